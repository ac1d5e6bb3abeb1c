/**
 * How a run stops. An abort, a `failFast` stop or a timeout under
 * `failFast` returns the report at once, also while a streamed plan is stalled (and tells the planner
 * with `iterator.return()`); an already aborted signal skips every step; a step stopped while it runs
 * keeps its real start and end.
 */
import { describe, expect, test } from "vitest";
import { runPlan, type RunEvent } from "../../src/run/run-plan.js";

const never = () => new Promise<never>(() => {});
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** An async iterator that yields `steps`, then stalls for ever; it records whether `return()` was called. */
function stallingPlanner(steps: unknown[]) {
  const calls = { next: 0, return: 0 };
  const iterator: AsyncIterableIterator<unknown> = {
    next() {
      const step = steps[calls.next++];
      return step === undefined ? never() : Promise.resolve({ done: false, value: step });
    },
    return() {
      calls.return++;
      return Promise.resolve({ done: true, value: undefined });
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
  return { iterator, calls };
}

describe("a stop while the streamed plan is stalled returns the report at once", () => {
  test("the issue's generator: aborted after its first step, runPlan resolves", { timeout: 10_000 }, async () => {
    async function* planner() {
      yield { id: 1, tool: "t", args: {} };
      await new Promise(() => {});
    }
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const report = await runPlan(planner(), { t: () => "one" }, { signal: controller.signal });
    expect(report.status).toBe("aborted");
    expect(report.results.get(1)).toBe("one");
  });

  test("abort: iterator.return() is called and the running step is reported aborted", { timeout: 10_000 }, async () => {
    const { iterator, calls } = stallingPlanner([{ id: 1, tool: "hang", args: {} }]);
    const controller = new AbortController();
    let toolSawAbort = false;
    const running = runPlan(
      iterator,
      {
        hang: (_args, { signal }) => {
          signal.addEventListener("abort", () => (toolSawAbort = true));
          return never();
        },
      },
      { signal: controller.signal },
    );
    await tick();
    controller.abort(new Error("stop"));
    const report = await running;
    expect(report.status).toBe("aborted");
    expect(report.errors.get(1)?.code).toBe("aborted");
    expect(calls.return).toBe(1);
    expect(toolSawAbort).toBe(true);
  });

  test("failFast: a failing step ends the run although the planner never finishes", { timeout: 10_000 }, async () => {
    const { iterator, calls } = stallingPlanner([
      { id: 1, tool: "ok", args: {} },
      { id: 2, tool: "boom", args: {} },
    ]);
    const report = await runPlan(iterator, { ok: () => 1, boom: () => Promise.reject(new Error("down")) }, { failFast: true });
    expect(report.status).toBe("failed");
    expect(report.errors.get(2)?.code).toBe("tool-error");
    expect(report.results.get(1)).toBe(1);
    expect(calls.return).toBe(1);
  });

  test("a timeout under failFast ends the run although the planner never finishes", { timeout: 10_000 }, async () => {
    const { iterator, calls } = stallingPlanner([{ id: 1, tool: "hang", args: {} }]);
    const report = await runPlan(iterator, { hang: never }, { failFast: true, timeoutMs: 20 });
    expect(report.status).toBe("failed");
    expect(report.errors.get(1)?.code).toBe("timeout");
    expect(calls.return).toBe(1);
  });

  test("without a stop, a stream that ends is read to its end and return() is not called", async () => {
    const steps = [{ id: 1, tool: "t", args: {} }];
    let returned = 0;
    const iterator: AsyncIterableIterator<unknown> = {
      next: () => Promise.resolve(steps.length > 0 ? { done: false, value: steps.shift() } : { done: true, value: undefined }),
      return: () => {
        returned++;
        return Promise.resolve({ done: true, value: undefined });
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    const report = await runPlan(iterator, { t: () => 1 });
    expect(report.status).toBe("ok");
    expect(returned).toBe(0);
  });

  test("a return() that throws or rejects is ignored", { timeout: 10_000 }, async () => {
    for (const close of [
      () => {
        throw new Error("no");
      },
      () => Promise.reject(new Error("no")),
    ]) {
      const iterator = {
        next: () => never(),
        return: close,
        [Symbol.asyncIterator]() {
          return this;
        },
      };
      const controller = new AbortController();
      const running = runPlan(iterator, {}, { signal: controller.signal });
      await tick();
      controller.abort();
      expect((await running).status).toBe("aborted");
    }
  });
});

describe("an already aborted signal", () => {
  test("every step is skipped and no tool is called", async () => {
    let calls = 0;
    const plan = {
      steps: [
        { id: 1, tool: "t", args: {} },
        { id: 2, tool: "t", args: { a: "$1" } },
        { id: 3, tool: "t", args: {} },
      ],
    };
    const report = await runPlan(plan, { t: () => calls++ }, { signal: AbortSignal.abort() });
    expect(report.status).toBe("aborted");
    expect([...report.skipped].sort()).toEqual([1, 2, 3]);
    expect(calls).toBe(0);
    expect(report.errors.size).toBe(0);
    expect(report.results.size).toBe(0);
  });

  test("a streamed plan is not read, and is told to return", async () => {
    const { iterator, calls } = stallingPlanner([{ id: 1, tool: "t", args: {} }]);
    const report = await runPlan(iterator, { t: () => 1 }, { signal: AbortSignal.abort() });
    expect(report.status).toBe("aborted");
    expect(calls.next).toBe(0);
    expect(calls.return).toBe(1);
  });
});

describe("the timings of a step stopped while it runs", () => {
  test.each(["abort", "failFast"] as const)("%s: real start and end, in timings.steps and in the event", async (how) => {
    const controller = new AbortController();
    const events: RunEvent[] = [];
    const steps = [{ id: 1, tool: "hang", args: {} }, ...(how === "failFast" ? [{ id: 2, tool: "late", args: {} }] : [])];
    // The stop comes once step 1's tool is under way (its call is the event), whichever way it comes.
    let hangCalled: () => void = () => undefined;
    const underWay = new Promise<void>((resolve) => (hangCalled = resolve));
    const running = runPlan(
      steps,
      {
        hang: () => (hangCalled(), never()),
        late: async () => {
          await underWay;
          throw new Error("late failure");
        },
      },
      { signal: controller.signal, failFast: how === "failFast", onEvent: (event) => events.push(event) },
    );
    if (how === "abort") {
      await underWay;
      controller.abort();
    }
    const report = await running;
    const start = events.find((event) => event.type === "step-start" && event.stepId === 1);
    const failed = events.find((event) => event.type === "step-failed" && event.stepId === 1);
    const timing = report.timings.steps.get(1);
    expect(report.errors.get(1)?.code).toBe("aborted");
    expect(timing).toBeDefined();
    expect(start?.type === "step-start" && start.startMs).toBe(timing!.startMs);
    expect(timing!.endMs).toBeGreaterThan(timing!.startMs);
    expect(timing!.durationMs).toBe(timing!.endMs - timing!.startMs);
    expect(failed?.type === "step-failed" && [failed.startMs, failed.endMs, failed.durationMs]).toEqual([
      timing!.startMs,
      timing!.endMs,
      timing!.durationMs,
    ]);
  });
});
