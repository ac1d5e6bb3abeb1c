/**
 * `timeoutMs` of 2^31 ms or more (or `Infinity`) used to time every step out after
 * 1 ms (timers clamp). `Infinity` means no limit; finite values above MAX_TIMEOUT_MS are refused.
 * Item 8 (what a run allocates only when needed): no timer without `timeoutMs`, no AbortController
 * unless the tool reads its signal (or a stop must reach it).
 */
import { afterEach, describe, expect, test } from "vitest";
import { MAX_TIMEOUT_MS, runPlan, type RunOptions, type ToolFunction } from "../../src/run/run-plan.js";
import { RefError } from "../../src/shared/errors.js";
import { watchTimers } from "../helpers/own-timers.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("timeoutMs", () => {
  test("MAX_TIMEOUT_MS is the largest delay a timer takes, 2^31 - 1", () => {
    expect(MAX_TIMEOUT_MS).toBe(2 ** 31 - 1);
  });

  test.each([Infinity, MAX_TIMEOUT_MS, 60_000])("%s ms: a step that takes a few milliseconds succeeds", async (timeoutMs) => {
    const report = await runPlan([{ id: 1, tool: "wait", args: {} }], { wait: async () => (await sleep(15), "done") }, { timeoutMs });
    expect(report.status).toBe("ok");
    expect(report.results.get(1)).toBe("done");
  });

  test("Infinity sets no timer at all", async () => {
    // The run's own timers, not the process's (others' come and go meanwhile): see test/helpers/own-timers.ts.
    const timers = watchTimers();
    let during = -1;
    try {
      await runPlan([{ id: 1, tool: "t", args: {} }], { t: () => void (during = timers.made()) }, { timeoutMs: Infinity });
      expect(during).toBe(0);
      expect(timers.made()).toBe(0);
    } finally {
      timers.restore();
    }
    // The same count sees the timer of a finite limit.
    const limited = watchTimers();
    try {
      await runPlan([{ id: 1, tool: "t", args: {} }], { t: () => void (during = limited.pending()) }, { timeoutMs: 60_000 });
      expect(during).toBe(1);
      expect(limited.pending()).toBe(0);
    } finally {
      limited.restore();
    }
  });

  test.each([
    [2 ** 31, "at most 2147483647"],
    [Number.MAX_VALUE, "at most 2147483647"],
    [0, "positive"],
    [-5, "positive"],
    [Number.NaN, "positive"],
    [-Infinity, "positive"],
    ["1000", "positive"],
  ] as const)("%s is refused with invalid-options", async (timeoutMs, words) => {
    let calls = 0;
    const error = await runPlan([{ id: 1, tool: "t", args: {} }], { t: () => calls++ }, { timeoutMs } as unknown as RunOptions).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RefError);
    expect((error as RefError).code).toBe("invalid-options");
    expect((error as RefError).message).toContain(words);
    expect(calls).toBe(0);
  });
});

describe("other options are checked once, at the start", () => {
  test.each([
    [{ concurrency: 0 }, "concurrency"],
    [{ concurrency: 1.5 }, "concurrency"],
    [{ signal: { aborted: false } }, "signal"],
    [{ onEvent: "log" }, "onEvent"],
    [{ syntax: "yaml" }, "syntax"],
  ])("%j is refused with invalid-options", async (options, name) => {
    const error = await runPlan([{ id: 1, tool: "t", args: {} }], { t: () => 1 }, options as unknown as RunOptions).catch(
      (e: unknown) => e,
    );
    expect((error as RefError).code).toBe("invalid-options");
    expect((error as RefError).message).toContain(name);
  });
});

describe("what a run makes only when it is needed", () => {
  const RealAbortController = globalThis.AbortController;
  afterEach(() => {
    globalThis.AbortController = RealAbortController;
  });

  /** Count the AbortControllers made while `run` runs (the real class, counted). */
  async function countControllers(run: () => Promise<unknown>): Promise<number> {
    let made = 0;
    globalThis.AbortController = class extends RealAbortController {
      constructor() {
        super();
        made++;
      }
    };
    try {
      await run();
    } finally {
      globalThis.AbortController = RealAbortController;
    }
    return made;
  }

  const steps = Array.from({ length: 20 }, (_, id) => ({ id, tool: "t", args: id > 0 ? { prev: `$${id - 1}` } : {} }));

  /**
   * Timers (setTimeout) the run made, and how many of them are still pending when it is done: its own
   * (test/helpers/own-timers.ts), not every Timeout the process makes meanwhile.
   */
  async function countTimers(run: () => Promise<unknown>): Promise<{ made: number; pending: number }> {
    const timers = watchTimers();
    try {
      await run();
      return { made: timers.made(), pending: timers.pending() };
    } finally {
      timers.restore();
    }
  }

  test("no timer without timeoutMs; one per step with it, none left pending afterwards", async () => {
    // The tool waits with setImmediate, which is not a Timeout.
    const tool: ToolFunction = () => new Promise((resolve) => setImmediate(() => resolve(1)));
    expect(await countTimers(() => runPlan(steps, { t: tool }))).toEqual({ made: 0, pending: 0 });
    expect(await countTimers(() => runPlan(steps, { t: tool }, { timeoutMs: 60_000 }))).toEqual({ made: steps.length, pending: 0 });
    const hang = () => new Promise(() => {});
    const controller = new AbortController();
    setImmediate(() => controller.abort());
    expect(await countTimers(() => runPlan(steps.slice(0, 1), { t: hang }, { timeoutMs: 60_000, signal: controller.signal }))).toEqual({
      made: 1,
      pending: 0,
    });
  });

  test("no AbortController for a tool that never reads its signal, one for a tool that does", async () => {
    expect(await countControllers(() => runPlan(steps, { t: () => 1 }))).toBe(0);
    expect(
      await countControllers(() =>
        runPlan(steps, { t: () => 1 }, { timeoutMs: 60_000, signal: new RealAbortController().signal, failFast: true }),
      ),
    ).toBe(0);
    expect(await countControllers(() => runPlan(steps, { t: (_args, { signal }) => signal.aborted }))).toBe(steps.length);
  });

  test("a step aborted before its tool reads the signal sees it already aborted, with the run's reason", async () => {
    const controller = new AbortController();
    let seen: { aborted: boolean; reason: unknown } | undefined;
    const report = await runPlan(
      [{ id: 1, tool: "t", args: {} }],
      {
        t: async (_args, context) => {
          controller.abort("stop now");
          await sleep(1);
          seen = { aborted: context.signal.aborted, reason: context.signal.reason };
        },
      },
      { signal: controller.signal },
    );
    await sleep(5);
    expect(report.status).toBe("aborted");
    expect(seen).toEqual({ aborted: true, reason: "stop now" });
  });
});

/**
 * runPlan used to read only `syntax`, `templates` and `deep` and dropped `strict` and the
 * limits; now it layers every language option over the plan's own as every entry point does.
 */
describe("every language option reaches the run", () => {
  const tools = { geocode: () => ({ city: "Paris" }), echo: (args: Record<string, unknown>) => args };

  test("strict: true makes a $-and-digit string that is not a placeholder an error", async () => {
    const plan = [{ id: 1, tool: "echo", args: { price: "$1x" } }];
    expect((await runPlan(plan, tools)).status).toBe("ok");
    const report = await runPlan(plan, tools, { strict: true });
    expect(report.status).toBe("invalid");
    expect(report.diagnostics.some((d) => d.severity === "error" && d.step === 1)).toBe(true);
  });

  test("a limit (maxRefLength) is applied to the plan's placeholders", async () => {
    const plan = [
      { id: 1, tool: "geocode", args: {} },
      { id: 2, tool: "echo", args: { where: "$1.city" } },
    ];
    expect((await runPlan(plan, tools)).results.get(2)).toEqual({ where: "Paris" });
    const report = await runPlan(plan, tools, { maxRefLength: 3 });
    expect(report.status).not.toBe("ok");
    expect(report.results.has(2)).toBe(false);
  });

  test("the caller's options layer over the plan's, and a bad limit is refused before anything runs", async () => {
    const plan = {
      options: { syntax: "path" },
      steps: [
        { id: 1, tool: "geocode", args: {} },
        { id: 2, tool: "echo", args: { where: "$1.city" } },
      ],
    };
    expect((await runPlan(plan, tools, { strict: true })).results.get(2)).toEqual({ where: "Paris" });
    let calls = 0;
    const error = await runPlan(plan, { ...tools, geocode: () => calls++ }, { maxDepth: -1 }).catch((e: unknown) => e);
    expect((error as RefError).code).toBe("invalid-options");
    expect((error as RefError).message).toContain("maxDepth");
    expect(calls).toBe(0);
  });
});
