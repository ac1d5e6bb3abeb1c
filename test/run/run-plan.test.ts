import { describe, expect, test } from "vitest";
import { runPlan, type RunEvent, type ToolFunction } from "../../src/run/run-plan.js";
import { StepError } from "../../src/step/step-error.js";

/** A promise with its resolve and reject exposed, so a test decides when a tool finishes. */
function deferred<T = unknown>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

describe("runPlan order and concurrency", () => {
  test("independent steps overlap, dependents wait for what they reference", async () => {
    const timeline: string[] = [];
    const gates = new Map<number, ReturnType<typeof deferred>>();
    const tool: ToolFunction = async (args, { stepId }) => {
      timeline.push(`start ${stepId}`);
      const gate = deferred();
      gates.set(stepId, gate);
      const value = await gate.promise;
      timeline.push(`end ${stepId}`);
      return { ...args, value };
    };
    const plan = {
      steps: [
        { id: 1, tool: "t", args: {} },
        { id: 2, tool: "t", args: { from: "$1.value" } },
        { id: 3, tool: "t", args: { from: "$1.value" } },
        { id: 4, tool: "t", args: { a: "$2.value", b: "$3.value" } },
      ],
    };
    const running = runPlan(plan, { t: tool });
    await tick();
    expect(timeline).toEqual(["start 1"]);
    gates.get(1)!.resolve("one");
    await tick();
    expect(timeline).toEqual(["start 1", "end 1", "start 2", "start 3"]);
    gates.get(3)!.resolve("three");
    await tick();
    expect(timeline).not.toContain("start 4");
    gates.get(2)!.resolve("two");
    await tick();
    gates.get(4)!.resolve("four");
    const report = await running;
    expect(report.status).toBe("ok");
    expect(report.results.get(4)).toEqual({ a: "two", b: "three", value: "four" });
    expect(timeline.indexOf("start 4")).toBeGreaterThan(timeline.indexOf("end 2"));
  });

  test.each([1, 2, 3, 8])("never more than concurrency %i tools at once, each step exactly once", async (concurrency) => {
    let inFlight = 0;
    let most = 0;
    const calls = new Map<number, number>();
    const tool: ToolFunction = async (_args, { stepId }) => {
      calls.set(stepId, (calls.get(stepId) ?? 0) + 1);
      inFlight++;
      most = Math.max(most, inFlight);
      await tick();
      inFlight--;
      return stepId;
    };
    const steps = Array.from({ length: 20 }, (_, i) => ({ id: i, tool: "t", args: i >= 10 ? { prev: `$${i - 10}` } : {} }));
    const report = await runPlan({ steps }, { t: tool }, { concurrency });
    expect(report.status).toBe("ok");
    expect(most).toBeLessThanOrEqual(concurrency);
    expect(most).toBe(Math.min(concurrency, 10));
    expect([...calls.values()].every((count) => count === 1)).toBe(true);
    expect(calls.size).toBe(20);
  });

  test("arguments are resolved with the plan's options", async () => {
    const plan = {
      options: { syntax: "path", templates: true, deep: true },
      steps: [
        { id: 1, tool: "geo", args: {} },
        { id: 2, tool: "echo", args: { text: "in ${1.city.name}", nested: { at: ["$1.lat"] }, tz: '$1.tz ?? "UTC"' } },
      ],
    };
    const report = await runPlan(plan, { geo: () => ({ city: { name: "Paris" }, lat: 48.8 }), echo: (args) => args });
    expect(report.results.get(2)).toEqual({ text: "in Paris", nested: { at: [48.8] }, tz: "UTC" });
  });

  test("never mutates the plan (frozen plans work)", async () => {
    const plan = deepFreeze({
      steps: [
        { id: 1, tool: "a", args: { x: 1 } },
        { id: 2, tool: "a", args: { y: "$1" } },
      ],
    });
    const copy = structuredClone(plan);
    const report = await runPlan(plan, { a: (args) => args });
    expect(report.status).toBe("ok");
    expect(plan).toEqual(copy);
  });
});

describe("runPlan failures", () => {
  test("a failure keeps every result and skips only its dependents", async () => {
    const called: number[] = [];
    const events: RunEvent[] = [];
    const plan = {
      steps: [
        { id: 1, tool: "ok", args: {} },
        { id: 2, tool: "boom", args: { a: "$1" } },
        { id: 3, tool: "ok", args: { b: "$2" } },
        { id: 4, tool: "ok", args: { c: "$3" } },
        { id: 5, tool: "ok", args: { d: "$1" } },
        { id: 6, tool: "ok", args: {} },
      ],
    };
    const tools = {
      ok: (_: unknown, { stepId }: { stepId: number }) => {
        called.push(stepId);
        return `r${stepId}`;
      },
      boom: () => Promise.reject(new Error("service unavailable")),
    };
    const report = await runPlan(plan, tools, { onEvent: (event) => events.push(event) });
    expect(report.status).toBe("failed");
    expect([...report.results.keys()].sort()).toEqual([1, 5, 6]);
    expect(report.errors.get(2)).toBeInstanceOf(StepError);
    expect(report.errors.get(2)?.code).toBe("tool-error");
    expect(report.errors.get(2)?.message).toContain("service unavailable");
    expect(report.skipped.sort()).toEqual([3, 4]);
    expect(called.sort()).toEqual([1, 5, 6]);
    expect(
      events
        .filter((e) => e.type === "step-skipped")
        .map((e) => e.stepId)
        .sort(),
    ).toEqual([3, 4]);
  });

  test("a tool that throws synchronously fails only its step", async () => {
    const report = await runPlan(
      [
        { id: 1, tool: "bad", args: {} },
        { id: 2, tool: "good", args: {} },
      ],
      {
        bad: () => {
          throw new TypeError("oops");
        },
        good: () => 2,
      },
    );
    expect(report.errors.get(1)?.code).toBe("tool-error");
    expect(report.results.get(2)).toBe(2);
  });

  test("arguments that cannot be resolved fail the step with the KeyError as cause", async () => {
    const report = await runPlan(
      [
        { id: 1, tool: "a", args: {} },
        { id: 2, tool: "a", args: { q: "$1.city" } },
      ],
      { a: () => ({ town: "Paris" }) },
    );
    const error = report.errors.get(2);
    expect(error?.code).toBe("unresolved-args");
    expect((error?.cause as { code?: string }).code).toBe("missing-key");
    expect(report.results.get(1)).toEqual({ town: "Paris" });
  });

  test("failFast stops new steps after the first failure", async () => {
    const called: number[] = [];
    const steps = [{ id: 1, tool: "boom", args: {} }, ...[2, 3, 4].map((id) => ({ id, tool: "ok", args: {} }))];
    const report = await runPlan(
      steps,
      {
        boom: () => {
          throw new Error("x");
        },
        ok: (_a, { stepId }) => called.push(stepId),
      },
      { failFast: true, concurrency: 1 },
    );
    expect(report.status).toBe("failed");
    expect(called).toEqual([]);
    expect(report.skipped.sort()).toEqual([2, 3, 4]);
  });

  test("a step past timeoutMs fails with code timeout and sees its signal aborted", async () => {
    let sawAbort = false;
    const report = await runPlan(
      [
        { id: 1, tool: "slow", args: {} },
        { id: 2, tool: "fast", args: {} },
      ],
      {
        slow: (_a, { signal }) =>
          new Promise((_resolve, reject) => {
            signal.addEventListener("abort", () => {
              sawAbort = true;
              reject(signal.reason);
            });
          }),
        fast: () => "quick",
      },
      { timeoutMs: 20 },
    );
    expect(report.errors.get(1)?.code).toBe("timeout");
    expect(report.results.get(2)).toBe("quick");
    expect(sawAbort).toBe(true);
  });

  test("abort: no new step starts, running tools see the abort, the report keeps results so far", async () => {
    const controller = new AbortController();
    let runningSawAbort = false;
    const started: number[] = [];
    const report = await runPlan(
      [
        { id: 1, tool: "first", args: {} },
        { id: 2, tool: "hang", args: { a: "$1" } },
        { id: 3, tool: "first", args: { b: "$2" } },
      ],
      {
        first: (_a, { stepId }) => {
          started.push(stepId);
          return "one";
        },
        hang: (_a, { signal }) => {
          started.push(2);
          signal.addEventListener("abort", () => (runningSawAbort = true));
          setImmediate(() => controller.abort(new Error("user pressed Ctrl-C")));
          return new Promise(() => {});
        },
      },
      { signal: controller.signal },
    );
    expect(report.status).toBe("aborted");
    expect(report.results.get(1)).toBe("one");
    expect(runningSawAbort).toBe(true);
    expect(started).toEqual([1, 2]);
    expect(report.errors.get(2)?.code).toBe("aborted");
    expect(report.skipped).toEqual([3]);
  });

  test("a plan with lint errors calls no tool and reports the diagnostics", async () => {
    let calls = 0;
    const report = await runPlan([{ id: 1, tool: "a", args: { q: "$7.city" } }], { a: () => calls++ });
    expect(report.status).toBe("invalid");
    expect(calls).toBe(0);
    expect(report.diagnostics.map((d) => d.code)).toContain("unknown-step");
  });

  test("a tool with no function makes the plan invalid before anything runs", async () => {
    const report = await runPlan(
      [
        { id: 1, tool: "a", args: {} },
        { id: 2, tool: "missing", args: {} },
      ],
      { a: () => 1 },
    );
    expect(report.status).toBe("invalid");
    expect(report.results.size).toBe(0);
    expect(report.diagnostics.find((d) => d.code === "unknown-tool")?.pointer).toBe("/1/tool");
  });
});

describe("runPlan output validation", () => {
  const tools = {
    geocode: { output: { type: "object", properties: { lat: { type: "number" } }, required: ["lat"] } },
    use: {},
  };
  test("a result that does not match the output schema fails the step, and is still kept", async () => {
    const report = await runPlan(
      {
        tools,
        steps: [
          { id: 1, tool: "geocode", args: {} },
          { id: 2, tool: "use", args: { lat: "$1.lat" } },
        ],
      },
      { geocode: () => ({ lat: "north" }), use: () => 1 },
      { validateOutputs: true },
    );
    expect(report.errors.get(1)?.code).toBe("invalid-output");
    expect(report.errors.get(1)?.message).toMatch(/\/lat must be number/);
    expect(report.results.get(1)).toEqual({ lat: "north" });
    expect(report.skipped).toEqual([2]);
  });
  test("without validateOutputs the same result passes", async () => {
    const report = await runPlan({ tools, steps: [{ id: 1, tool: "geocode", args: {} }] }, { geocode: () => ({ lat: "north" }) });
    expect(report.status).toBe("ok");
  });
  test("a matching result passes validation", async () => {
    const report = await runPlan(
      { tools, steps: [{ id: 1, tool: "geocode", args: {} }] },
      { geocode: () => ({ lat: 1 }) },
      { validateOutputs: true },
    );
    expect(report.status).toBe("ok");
  });
});

describe("runPlan with a streamed plan", () => {
  test("a step starts as soon as it has arrived, before the rest of the plan", async () => {
    const firstStarted = deferred<void>();
    const order: string[] = [];
    async function* planner() {
      order.push("emit 1");
      yield { id: 1, tool: "a", args: {} };
      await firstStarted.promise; // the planner only goes on once step 1 is running
      order.push("emit 2");
      yield { id: 2, tool: "a", args: { x: "$1" } };
    }
    const report = await runPlan(planner(), {
      a: (_args, { stepId }) => {
        order.push(`run ${stepId}`);
        if (stepId === 1) firstStarted.resolve();
        return stepId;
      },
    });
    expect(report.status).toBe("ok");
    expect(order).toEqual(["emit 1", "run 1", "emit 2", "run 2"]);
  });

  test("a reference to a step that never arrives fails the referencing step when the stream ends", async () => {
    async function* planner() {
      yield { id: 1, tool: "a", args: { x: "$9" } };
      yield { id: 2, tool: "a", args: {} };
      yield { id: 3, tool: "a", args: { y: "$1" } };
    }
    const report = await runPlan(planner(), { a: () => "v" });
    expect(report.status).toBe("failed");
    expect(report.errors.get(1)?.code).toBe("missing-dependency");
    expect(report.results.get(2)).toBe("v");
    expect(report.skipped).toEqual([3]);
  });

  test("a step may reference a step that arrives later", async () => {
    async function* planner() {
      yield { id: 2, tool: "a", args: { x: "$1" } };
      yield { id: 1, tool: "a", args: {} };
    }
    const report = await runPlan(planner(), { a: (args) => args });
    expect(report.results.get(2)).toEqual({ x: {} });
  });

  test("cycles and self references in a stream fail those steps", async () => {
    async function* planner() {
      yield { id: 1, tool: "a", args: { x: "$2" } };
      yield { id: 2, tool: "a", args: { x: "$1" } };
      yield { id: 3, tool: "a", args: { x: "$3" } };
    }
    const report = await runPlan(planner(), { a: () => 1 });
    expect(report.errors.get(3)?.code).toBe("cycle");
    expect(report.errors.get(1)?.code ?? report.errors.get(2)?.code).toBe("cycle");
    expect(report.results.size).toBe(0);
  });
});

describe("runPlan with large step ids", () => {
  test("ids of any size (below 2^20 and above, up to Number.MAX_SAFE_INTEGER) are scheduled alike", async () => {
    const big = Number.MAX_SAFE_INTEGER;
    const mid = 2 ** 20;
    const plan = [
      { id: big, tool: "a", args: { x: `$${mid}` } },
      { id: mid, tool: "a", args: { y: "$5" } },
      { id: 5, tool: "a", args: {} },
      { id: mid - 1, tool: "a", args: { z: `$${big}` } },
    ];
    const report = await runPlan(plan, { a: (args) => args });
    expect(report.status).toBe("ok");
    expect(report.results.get(mid - 1)).toEqual({ z: { x: { y: {} } } });
    expect([...report.timings.steps.keys()]).toEqual([big, mid, 5, mid - 1]);
  });
});
