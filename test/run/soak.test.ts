/**
 * Runs that share one AbortSignal leave nothing behind. Each run used to add an
 * `abort` listener to the signal and never remove it (50 runs: 50 listeners and Node's
 * MaxListenersExceededWarning; 200 runs kept about 160 MB of finished results alive through them).
 *
 * The heap figure needs a garbage collection on demand: the `soak` project of vitest.config.ts runs this
 * file with `--expose-gc`, and the file refuses to run without it (it would measure nothing).
 */
import { beforeAll, describe, expect, test } from "vitest";
import { runPlan } from "../../src/run/run-plan.js";
import { watchListeners, watchTimers } from "../helpers/own-timers.js";

const gc = (globalThis as { gc?: () => void }).gc;

beforeAll(() => {
  if (gc === undefined)
    throw new Error(
      "test/run/soak.test.ts needs --expose-gc: run it through the soak project of vitest.config.ts (npx vitest run --project soak)",
    );
});

const RUNS = 10_000;

function collect(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

/**
 * Other work in the process: a timer made before the runs and cleared while they go (as another
 * test's, the runner's, or a late callback's on a loaded machine). The counts below are of the runs'
 * own timers and listeners (test/helpers/own-timers.ts), so it changes nothing.
 */
function otherWork(): { done(): void } {
  const timer = setTimeout(() => undefined, 600_000);
  return { done: () => clearTimeout(timer) };
}

describe("runs sharing one AbortSignal (with --expose-gc)", () => {
  test(`${RUNS.toLocaleString("en")} runs leave no listener, no timer and no retained results behind`, async () => {
    const controller = new AbortController();
    const { signal } = controller;
    // Each run produces about 100 KB of results, so 10,000 retained runs would hold about 1 GB.
    const big = () => new Array(1_000).fill("x".repeat(10)).map((s, i) => `${s}${i}`);
    const plan = {
      steps: [
        { id: 1, tool: "big", args: {} },
        { id: 2, tool: "echo", args: { n: "$1" } },
      ],
    };
    const tools = { big, echo: ({ n }: Record<string, unknown>) => (n as string[]).length };
    const other = otherWork();
    const timers = watchTimers();
    const listeners = watchListeners(signal, "abort");
    try {
      // A first run warms up the code, so the heap is measured without the modules it loads.
      await runPlan(plan, tools, { signal, timeoutMs: 60_000 });
      const heapBefore = collect();
      for (let i = 0; i < RUNS; i++) {
        const report = await runPlan(plan, tools, { signal, timeoutMs: 60_000, concurrency: 2 });
        if (report.status !== "ok") throw new Error(`run ${i}: ${report.status}`);
        if (i === 100) {
          other.done();
          expect(listeners.live()).toBe(0);
          expect(timers.pending()).toBe(0);
        }
      }
      // Each run added its listener and a timer per step, and took them all away again.
      expect(listeners.added()).toBe(RUNS + 1);
      expect(timers.made()).toBe(2 * (RUNS + 1));
      expect(listeners.live()).toBe(0);
      expect(timers.pending()).toBe(0);
      const growth = collect() - heapBefore;
      expect(growth).toBeLessThan(4 * 1024 * 1024);
    } finally {
      timers.restore();
      listeners.restore();
    }
  });

  test("aborted and failFast-stopped runs with hanging tools also remove their listener and timers", async () => {
    const { signal } = new AbortController();
    const other = otherWork();
    const timers = watchTimers();
    const listeners = watchListeners(signal, "abort");
    try {
      for (let i = 0; i < 200; i++) {
        const local = new AbortController();
        const both = AbortSignal.any([signal, local.signal]);
        const bothListeners = watchListeners(both, "abort");
        const running = runPlan(
          [
            { id: 1, tool: "hang", args: {} },
            { id: 2, tool: "hang", args: {} },
            { id: 3, tool: "boom", args: {} },
          ],
          { hang: () => new Promise(() => {}), boom: () => Promise.reject(new Error("x")) },
          { signal: i % 2 === 0 ? both : signal, timeoutMs: 60_000, failFast: i % 2 === 1 },
        );
        if (i % 2 === 0) setImmediate(() => local.abort());
        if (i === 100) setImmediate(() => other.done());
        const report = await running;
        expect(report.status).toBe(i % 2 === 0 ? "aborted" : "failed");
        expect(bothListeners.live()).toBe(0);
        expect(bothListeners.added()).toBe(i % 2 === 0 ? 1 : 0);
        bothListeners.restore();
      }
      expect(listeners.added()).toBe(100);
      expect(timers.made()).toBeGreaterThanOrEqual(200);
      expect(listeners.live()).toBe(0);
      expect(timers.pending()).toBe(0);
    } finally {
      timers.restore();
      listeners.restore();
    }
  });

  test("runs stopped while a step waits to be tried again leave no retry timer behind", async () => {
    const timers = watchTimers();
    try {
      for (let i = 0; i < 200; i++) {
        const controller = new AbortController();
        let waiting!: () => void;
        const retried = new Promise<void>((resolve) => (waiting = resolve));
        const running = runPlan(
          [
            { id: 1, tool: "flaky", args: {} },
            { id: 2, tool: "boom", args: {} },
          ],
          { flaky: () => Promise.reject(new Error("down")), boom: () => retried.then(() => Promise.reject(new Error("x"))) },
          {
            signal: controller.signal,
            timeoutMs: 60_000,
            failFast: i % 2 === 1,
            retryByTool: { flaky: { attempts: 3, initialDelayMs: 600_000 } },
            onEvent: (event) => event.type === "step-retry" && waiting(),
          },
        );
        if (i % 2 === 0) void retried.then(() => controller.abort());
        const report = await running;
        expect(report.status).toBe(i % 2 === 0 ? "aborted" : "failed");
        expect(report.errors.get(1)?.code).toBe("tool-error");
        expect(report.attempts?.get(1)).toBe(1);
        expect(timers.pending()).toBe(0);
      }
      // A timeout timer per try and a retry timer per run, all gone.
      expect(timers.made()).toBeGreaterThanOrEqual(3 * 200);
    } finally {
      timers.restore();
    }
  });
});

describe("tools that never settle (with --expose-gc)", () => {
  test("after a timeout, a tool that keeps its context for ever keeps only its own step, not the run's results", async () => {
    const kept: unknown[] = [];
    const big = () => Array.from({ length: 1_000 }, (_, i) => `result ${i} `.repeat(10));
    const plan = [
      { id: 1, tool: "big", args: {} },
      { id: 2, tool: "hang", args: { after: "$1" } },
    ];
    const tools = { big, hang: (_args: Record<string, unknown>, context: unknown) => new Promise(() => void kept.push(context)) };
    await runPlan(plan, tools, { timeoutMs: 1 });
    const heapBefore = collect();
    for (let i = 0; i < 300; i++) {
      const report = await runPlan(plan, tools, { timeoutMs: 1 });
      expect(report.errors.get(2)?.code).toBe("timeout");
    }
    // 300 runs' results would be about 40 MB; the contexts and their step records are a few hundred KB.
    expect(collect() - heapBefore).toBeLessThan(4 * 1024 * 1024);
    expect(kept).toHaveLength(301);
  });
});

describe("tools that keep their context after they settle (with --expose-gc)", () => {
  test("a kept context holds its own step, not the run's results", async () => {
    const kept: unknown[] = [];
    const big = () => Array.from({ length: 1_000 }, (_, i) => `result ${i} `.repeat(10));
    const plan = [
      { id: 1, tool: "big", args: {} },
      { id: 2, tool: "keep", args: { after: "$1" } },
    ];
    const tools = { big, keep: (_args: Record<string, unknown>, context: unknown) => void kept.push(context) };
    await runPlan(plan, tools);
    const heapBefore = collect();
    for (let i = 0; i < 300; i++) expect((await runPlan(plan, tools)).status).toBe("ok");
    expect(collect() - heapBefore).toBeLessThan(4 * 1024 * 1024);
    expect(kept).toHaveLength(301);
  });
});
