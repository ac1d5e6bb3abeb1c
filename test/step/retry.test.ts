import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import {
  NonRetryableError,
  RefError,
  reportToJSON,
  runPlan,
  type RunEvent,
  type RunOptions,
  type RunReport,
  type ToolContext,
  type ToolFunctions,
} from "../../src/index.js";
import { backoffMs, resolveRetryPolicy, retryDelayMs } from "../../src/step/retry.js";
import { MAX_TIMEOUT_MS, readRetryPolicy } from "../../src/step/settings.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Run a plan under fake timers: every timer is run (no test sleeps), then the report. */
async function run(plan: unknown, tools: ToolFunctions, options: RunOptions): Promise<RunReport> {
  const report = runPlan(plan, tools, options);
  await vi.runAllTimersAsync();
  return report;
}

/** A tool failing `failures` times (with what `error` makes), then returning "ok"; its call times (fake clock) and contexts. */
function flaky(failures: number, error: (call: number) => unknown = (call) => new Error(`down ${call}`)) {
  const calls: { at: number; context: ToolContext }[] = [];
  const fn = (_args: Record<string, unknown>, context: ToolContext) => {
    calls.push({ at: Date.now(), context });
    if (calls.length <= failures) throw error(calls.length);
    return "ok";
  };
  return { fn, calls };
}

const onePlan = { steps: [{ id: 1, tool: "flaky", args: {} }] };

describe("retries with backoff", () => {
  test("jitter none: the waits are exactly 1 s, 2 s, 4 s by default, capped at maxDelayMs", async () => {
    const tool = flaky(4);
    const events: RunEvent[] = [];
    const start = Date.now();
    const report = await run(
      onePlan,
      { flaky: tool.fn },
      { retry: { attempts: 5, jitter: "none", maxDelayMs: 3_000 }, onEvent: (event) => events.push(event) },
    );
    expect(report.status).toBe("ok");
    expect(tool.calls.map((call) => call.at - start)).toEqual([0, 1_000, 3_000, 6_000, 9_000]);
    const retries = events.filter((event) => event.type === "step-retry");
    expect(retries.map((event) => [event.attempt, event.delayMs, event.attempts, event.error.code])).toEqual([
      [1, 1_000, 5, "tool-error"],
      [2, 2_000, 5, "tool-error"],
      [3, 3_000, 5, "tool-error"],
      [4, 3_000, 5, "tool-error"],
    ]);
    expect(report.attempts?.get(1)).toBe(5);
    expect(reportToJSON(report).attempts).toEqual({ 1: 5 });
  });

  test("jitter full: each wait lies within [0, the computed wait]", async () => {
    const tool = flaky(5);
    const delays: number[] = [];
    await run(
      onePlan,
      { flaky: tool.fn },
      {
        retry: { attempts: 6, initialDelayMs: 100, factor: 3 },
        onEvent: (event) => event.type === "step-retry" && delays.push(event.delayMs),
      },
    );
    expect(delays).toHaveLength(5);
    delays.forEach((delay, i) => {
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(100 * 3 ** i);
    });
    const policy = resolveRetryPolicy({ attempts: 3 });
    expect(retryDelayMs(policy, 1, { code: "tool-error" }, () => 0.999_999)).toBeLessThanOrEqual(1_000);
    expect(retryDelayMs(policy, 2, { code: "tool-error" }, () => 0)).toBe(0);
    expect(backoffMs(policy, 10)).toBe(30_000);
  });

  test("a tool's retryAfterMs is waited (capped at maxDelayMs), with no jitter", async () => {
    const tool = flaky(2, (call) => Object.assign(new Error("429"), { retryAfterMs: call === 1 ? 5_000 : 60_000 }));
    const start = Date.now();
    const report = await run(onePlan, { flaky: tool.fn }, { retry: { attempts: 3, maxDelayMs: 10_000 } });
    expect(report.status).toBe("ok");
    expect(tool.calls.map((call) => call.at - start)).toEqual([0, 5_000, 15_000]);
  });

  test("retryable: false (own property, or NonRetryableError) is never retried; a getter is never read", async () => {
    for (const error of [new NonRetryableError("gone"), Object.assign(new Error("gone"), { retryable: false })]) {
      const tool = flaky(3, () => error);
      const report = await run(onePlan, { flaky: tool.fn }, { retry: { attempts: 3 } });
      expect(tool.calls).toHaveLength(1);
      expect(report.errors.get(1)?.code).toBe("tool-error");
    }
    const sneaky = new Error("down");
    Object.defineProperty(sneaky, "retryable", { get: () => false });
    const tool = flaky(1, () => sneaky);
    expect((await run(onePlan, { flaky: tool.fn }, { retry: { attempts: 2 } })).status).toBe("ok");
  });

  test("retryOn: tool-error and timeout each retried only when listed; unresolved-args and invalid-output never", async () => {
    const slowOnce = () => {
      let calls = 0;
      return { fn: () => (++calls === 1 ? new Promise(() => undefined) : "ok"), calls: () => calls };
    };
    for (const [retryOn, errorCalls, timeoutCalls] of [
      [undefined, 2, 2],
      [["tool-error"], 2, 1],
      [["timeout"], 1, 2],
      [[], 1, 1],
    ] as const) {
      const failing = flaky(1);
      const slow = slowOnce();
      const retry = { attempts: 2, ...(retryOn === undefined ? {} : { retryOn }) };
      await run(
        {
          steps: [
            { id: 1, tool: "failing", args: {} },
            { id: 2, tool: "slow", args: {} },
          ],
        },
        { failing: failing.fn, slow: slow.fn },
        { retry, timeoutMs: 50 },
      );
      expect([failing.calls.length, slow.calls()], JSON.stringify(retryOn)).toEqual([errorCalls, timeoutCalls]);
    }
    let calls = 0;
    const count = () => ++calls;
    const report = await run(
      {
        steps: [
          { id: 1, tool: "count", args: {} },
          { id: 2, tool: "empty", args: {} },
          { id: 3, tool: "count", args: { x: "$2.nope" } },
        ],
        tools: { count: { output: { type: "string" } }, empty: {} },
      },
      { count, empty: () => ({}) },
      { retry: { attempts: 3 }, validateOutputs: true },
    );
    expect(
      [calls, report.errors.get(1)?.code, report.errors.get(3)?.code, report.attempts?.get(3)],
      JSON.stringify(report.diagnostics),
    ).toEqual([1, "invalid-output", "unresolved-args", 1]);
  });

  test("timeoutMs applies to each try; each try has its own signal, attempt and the same idempotency key", async () => {
    const contexts: ToolContext[] = [];
    const signals: AbortSignal[] = [];
    const hang = (_args: Record<string, unknown>, context: ToolContext) => {
      contexts.push(context);
      signals.push(context.signal);
      return contexts.length < 3 ? new Promise(() => undefined) : "late but fine";
    };
    const start = Date.now();
    const report = await run(
      onePlan.steps.map((step) => ({ ...step, tool: "hang" })),
      { hang },
      { retry: { attempts: 3, jitter: "none", initialDelayMs: 10 }, timeoutMs: 100, runId: "run-7" },
    );
    expect(report.status).toBe("ok");
    expect(report.runId).toBe("run-7");
    expect(Date.now() - start).toBe(100 + 10 + 100 + 20);
    expect(contexts.map((context) => [context.attempt, context.idempotencyKey])).toEqual([
      [1, "run-7:1"],
      [2, "run-7:1"],
      [3, "run-7:1"],
    ]);
    expect(signals.map((signal) => signal.aborted)).toEqual([true, true, false]);
  });

  test("each try gets the arguments the plan gave, also when a try set or deleted them", async () => {
    const seen: unknown[] = [];
    const mutate = (args: Record<string, unknown>) => {
      seen.push(structuredClone(args));
      args.q = "changed";
      delete args.keep;
      if (seen.length < 3) throw new Error("again");
      return "ok";
    };
    const plan = {
      steps: [
        { id: 0, tool: "zero", args: {} },
        { id: 1, tool: "mutate", args: { q: "$0", keep: { n: 1 } } },
      ],
    };
    await run(plan, { zero: () => "zero", mutate }, { retryByTool: { mutate: { attempts: 3, initialDelayMs: 0 } } });
    expect(seen).toEqual([
      { q: "zero", keep: { n: 1 } },
      { q: "zero", keep: { n: 1 } },
      { q: "zero", keep: { n: 1 } },
    ]);
  });

  test("retryByTool replaces the default policy for its tool", async () => {
    const a = flaky(5);
    const b = flaky(5);
    await run(
      {
        steps: [
          { id: 1, tool: "a", args: {} },
          { id: 2, tool: "b", args: {} },
        ],
      },
      { a: a.fn, b: b.fn },
      { retry: { attempts: 2 }, retryByTool: { b: { attempts: 4 } } },
    );
    expect([a.calls.length, b.calls.length]).toEqual([2, 4]);
  });

  test("an abort or a failFast stop cancels a pending retry at once; the step keeps its last error", async () => {
    const controller = new AbortController();
    const tool = flaky(5);
    const report = runPlan(onePlan, { flaky: tool.fn }, { retry: { attempts: 5, initialDelayMs: 60_000 }, signal: controller.signal });
    await vi.advanceTimersByTimeAsync(1);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    const done = await report;
    expect(vi.getTimerCount()).toBe(0);
    expect([done.status, done.errors.get(1)?.code, tool.calls.length, done.attempts?.get(1)]).toEqual(["aborted", "tool-error", 1, 1]);

    const waiting = flaky(5);
    const stopped = runPlan(
      {
        steps: [
          { id: 1, tool: "waiting", args: {} },
          { id: 2, tool: "boom", args: {} },
        ],
      },
      { waiting: waiting.fn, boom: () => new Promise((_, reject) => setTimeout(reject, 10, new Error("boom"))) },
      { retryByTool: { waiting: { attempts: 5, initialDelayMs: 60_000, jitter: "none" } }, failFast: true },
    );
    await vi.advanceTimersByTimeAsync(10);
    const failed = await stopped;
    expect(vi.getTimerCount()).toBe(0);
    expect([failed.status, failed.errors.get(1)?.code, failed.errors.get(2)?.code, waiting.calls.length]).toEqual([
      "failed",
      "tool-error",
      "tool-error",
      1,
    ]);
  });

  test.each([
    [{ attempts: 0 }, "retry.attempts must be a positive integer"],
    [{ attempts: 2, initialDelayMs: -1 }, "retry.initialDelayMs must be a number of milliseconds from 0 to 2147483647"],
    [{ attempts: 2, maxDelayMs: 2 ** 31 }, "retry.maxDelayMs must be a number of milliseconds"],
    [{ attempts: 2, factor: 0.5 }, "retry.factor must be a finite number of at least 1"],
    [{ attempts: 2, jitter: "half" }, 'retry.jitter must be one of "full", "none"'],
    [{ attempts: 2, retryOn: ["aborted"] }, 'retry.retryOn must be an array of step error codes among "tool-error", "timeout"'],
    [{ attempts: 2, retryOn: "timeout" }, "retry.retryOn must be an array"],
    [[2], "retry must be a retry policy"],
  ])("an invalid policy %j is refused: %s", async (retry, message) => {
    const error = await runPlan(onePlan, { flaky: () => 1 }, { retry: retry as never }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RefError);
    expect((error as RefError).code).toBe("invalid-options");
    expect((error as RefError).message).toContain(message);
  });

  test("retryByTool and runId are checked too; the default runId is a UUID", async () => {
    await expect(runPlan(onePlan, { flaky: () => 1 }, { retryByTool: { flaky: { attempts: 1.5 } } })).rejects.toThrow(
      "option retryByTool.flaky.attempts must be a positive integer",
    );
    await expect(runPlan(onePlan, { flaky: () => 1 }, { runId: "" })).rejects.toThrow(
      "option runId must be 1 to 200 printable ASCII characters without spaces",
    );
    const report = await runPlan(onePlan, { flaky: () => 1 });
    expect(report.runId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(reportToJSON(report).runId).toBe(report.runId);
  });
});

type Outcome = "fail" | "stop" | "ok";

describe("property: retries against a model", () => {
  test("calls per tool, each step's outcome, and the report equal the model", async () => {
    const step = fc.record({
      dependsOn: fc.option(fc.nat(), { nil: undefined }),
      outcomes: fc.array(fc.constantFrom<Outcome>("fail", "stop", "ok"), { maxLength: 5 }),
    });
    const policy = fc.record({
      attempts: fc.integer({ min: 1, max: 4 }),
      initialDelayMs: fc.integer({ min: 0, max: 50 }),
      retryOn: fc.subarray(["tool-error", "timeout"] as const),
      jitter: fc.constantFrom("none" as const, "full" as const),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), policy, async (steps, retry) => {
        const calls = steps.map(() => 0);
        const tools: Record<string, () => unknown> = {};
        steps.forEach((spec, i) => {
          tools[`t${i}`] = () => {
            const outcome = spec.outcomes[calls[i]!++] ?? "ok";
            if (outcome === "fail") throw new Error(`t${i} failed`);
            if (outcome === "stop") throw new NonRetryableError(`t${i} gave up`);
            return i;
          };
        });
        const plan = {
          steps: steps.map((spec, i) => ({
            id: i,
            tool: `t${i}`,
            args: spec.dependsOn === undefined || i === 0 ? {} : { x: `$${spec.dependsOn % i}` },
          })),
        };
        const report = await run(plan, tools, { retry });

        // The model: a step runs when its dependency succeeded; it is tried until it succeeds, gives up, or runs out of tries.
        const state: ("done" | "failed" | "skipped")[] = [];
        const modelCalls = steps.map(() => 0);
        steps.forEach((spec, i) => {
          const dependency = spec.dependsOn === undefined || i === 0 ? undefined : spec.dependsOn % i;
          if (dependency !== undefined && state[dependency] !== "done") return void (state[i] = "skipped");
          for (let k = 1; ; k++) {
            modelCalls[i]!++;
            const outcome = spec.outcomes[k - 1] ?? "ok";
            if (outcome === "ok") return void (state[i] = "done");
            if (outcome === "stop" || k === retry.attempts || !retry.retryOn.includes("tool-error")) return void (state[i] = "failed");
          }
        });
        expect(calls).toEqual(modelCalls);
        expect(report.status).toBe(state.includes("failed") ? "failed" : "ok");
        expect([...report.results.keys()].sort()).toEqual(state.flatMap((s, i) => (s === "done" ? [i] : [])));
        expect([...report.errors.keys()].sort()).toEqual(state.flatMap((s, i) => (s === "failed" ? [i] : [])));
        expect([...report.skipped].sort()).toEqual(state.flatMap((s, i) => (s === "skipped" ? [i] : [])));
        expect(report.attempts).toEqual(new Map(modelCalls.flatMap((n, i) => (n > 0 ? [[i, n] as const] : []))));
        expect(vi.getTimerCount()).toBe(0);
      }),
      { numRuns: 150 },
    );
  });
});

describe("property: every wait is finite and within maxDelayMs", () => {
  // The whole space a policy may take and pass the option reader, also factors that overflow to infinity.
  const policies = fc.record({
    attempts: fc.integer({ min: 1, max: 2_000 }),
    initialDelayMs: fc.oneof(fc.constant(0), fc.double({ min: 0, max: MAX_TIMEOUT_MS, noNaN: true })),
    maxDelayMs: fc.oneof(fc.constant(0), fc.double({ min: 0, max: MAX_TIMEOUT_MS, noNaN: true })),
    factor: fc.oneof(fc.constant(1e200), fc.double({ min: 1, max: Number.MAX_VALUE, noNaN: true })),
    jitter: fc.constantFrom("full" as const, "none" as const),
  });

  test("retryDelayMs (the wait of both executors) for any policy the reader accepts and any try", () => {
    fc.assert(
      fc.property(
        policies,
        fc.nat({ max: 2_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (given, failedAt, random) => {
          const policy = readRetryPolicy(given, "retry")!;
          const failed = 1 + (failedAt % policy.attempts);
          for (const wait of [backoffMs(policy, failed), retryDelayMs(policy, failed, { code: "tool-error" }, () => random)]) {
            if (wait === undefined) continue; // the last try: no wait
            expect(Number.isFinite(wait), `${wait}`).toBe(true);
            expect(wait).toBeGreaterThanOrEqual(0);
            expect(wait).toBeLessThanOrEqual(policy.maxDelayMs);
          }
        },
      ),
    );
  });

  test("a first wait of 0 and a factor that overflows: runPlan's step-retry events say 0, not NaN", async () => {
    const tool = flaky(3);
    const delays: number[] = [];
    const report = await run(
      onePlan,
      { flaky: tool.fn },
      {
        retry: { attempts: 4, initialDelayMs: 0, factor: 1e200 },
        onEvent: (event) => event.type === "step-retry" && delays.push(event.delayMs),
      },
    );
    expect(report.status).toBe("ok");
    expect(delays).toEqual([0, 0, 0]);
    const overflowing = resolveRetryPolicy({ attempts: 4, initialDelayMs: 1, factor: 1e200, jitter: "none" });
    expect([1, 2, 3].map((failed) => backoffMs(overflowing, failed))).toEqual([1, 30_000, 30_000]);
  });
});

describe("what a tool's error says about its retry (retryDelayMs, jitter none: the backoff is 1,000 ms)", () => {
  const policy = resolveRetryPolicy({ attempts: 3, jitter: "none", maxDelayMs: 30_000 });
  const hostile = new Proxy(
    {},
    {
      getOwnPropertyDescriptor: () => {
        throw new Error("no descriptors for you");
      },
    },
  );
  const callable = Object.assign(() => undefined, { retryAfterMs: 7 });
  test.each([
    ["retryAfterMs 5000", { retryAfterMs: 5_000 }, 5_000],
    ["retryAfterMs 0: no wait", { retryAfterMs: 0 }, 0],
    ["retryAfterMs past maxDelayMs: the cap", { retryAfterMs: 60_000 }, 30_000],
    ["retryAfterMs -1: ignored", { retryAfterMs: -1 }, 1_000],
    ["retryAfterMs Infinity: ignored", { retryAfterMs: Infinity }, 1_000],
    ["retryAfterMs NaN: ignored", { retryAfterMs: NaN }, 1_000],
    ["retryAfterMs as text: ignored", { retryAfterMs: "5000" }, 1_000],
    ["retryAfterMs as a getter: never read", Object.defineProperty({}, "retryAfterMs", { get: () => 5_000 }), 1_000],
    ["retryAfterMs inherited: ignored", Object.create({ retryAfterMs: 5_000 }) as object, 1_000],
    ["a function with retryAfterMs", callable, 7],
    ["a function with retryable false", Object.assign(() => undefined, { retryable: false }), undefined],
    ["retryable false", { retryable: false }, undefined],
    ["retryable false wins over retryAfterMs", { retryable: false, retryAfterMs: 5 }, undefined],
    ["retryable 0: not false", { retryable: 0 }, 1_000],
    ["a NonRetryableError", new NonRetryableError("gone"), undefined],
    ["no cause", undefined, 1_000],
    ["null", null, 1_000],
    ["a string", "retryable", 1_000],
    ["a number", 5_000, 1_000],
    ["a Proxy whose traps throw", hostile, 1_000],
  ])("%s", (_name, cause, delay) => {
    expect(retryDelayMs(policy, 1, { code: "tool-error", cause })).toBe(delay);
  });

  test("NonRetryableError: an Error named NonRetryableError, with its message and an own retryable false", () => {
    const error = new NonRetryableError("no such city: Atlantis");
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.message, error.retryable]).toEqual(["NonRetryableError", "no such city: Atlantis", false]);
    expect(String(error)).toBe("NonRetryableError: no such city: Atlantis");
    expect(Object.getOwnPropertyDescriptor(error, "retryable")?.value).toBe(false);
  });

  test("a wait that grows to exactly maxDelayMs is maxDelayMs, one past it the cap", () => {
    const capped = resolveRetryPolicy({ attempts: 5, initialDelayMs: 1_000, factor: 2, maxDelayMs: 4_000, jitter: "none" });
    expect([1, 2, 3, 4].map((failed) => backoffMs(capped, failed))).toEqual([1_000, 2_000, 4_000, 4_000]);
  });
});
