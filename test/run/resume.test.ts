/**
 * `resumePlan`: steps that had a result are not called again (call counts), their results feed their
 * dependents, everything else runs; a previous report of another plan, or of an invalid run, is
 * refused before anything runs; the previous report is never changed.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { RefError, reportFromJSON, reportToJSON, resumePlan, runPlan, type RunReport, type ToolFunctions } from "../../src/index.js";
import { countingTools, randomPlan } from "../helpers/random-plans.js";

const plan = {
  steps: [
    { id: 1, tool: "geocode", args: { city: "Oslo" } },
    { id: 2, tool: "weather", args: { at: "$1" } },
    { id: 3, tool: "book", args: { weather: "$2", city: "$1.city" } },
    { id: 4, tool: "geocode", args: { city: "Bergen" } },
  ],
};

function tools(calls: number[], failing: Set<number>): ToolFunctions {
  const tool = (args: Record<string, unknown>, context: { stepId: number }): unknown => {
    calls.push(context.stepId);
    if (failing.has(context.stepId)) throw new Error("the service is down");
    return { ...args, by: context.stepId };
  };
  return { geocode: tool, weather: tool, book: tool };
}

/** Everything a report holds, as plain data (to see that nothing changed). */
function snapshot(report: RunReport): unknown {
  return {
    ...reportToJSON(report),
    errors: [...report.errors].map(([id, error]) => [id, error.code, error.message]),
    results: structuredClone([...report.results]),
  };
}

describe("resumePlan", () => {
  test("does not call a step that had a result; runs the failed and skipped ones against the kept results", async () => {
    const calls: number[] = [];
    const first = await runPlan(plan, tools(calls, new Set([2])));
    expect(first.status).toBe("failed");
    expect(first.skipped).toEqual([3]);
    expect(calls.sort()).toEqual([1, 2, 4]);
    calls.length = 0;
    const second = await resumePlan(plan, first, tools(calls, new Set()));
    expect(calls.sort()).toEqual([2, 3]);
    expect(second.status).toBe("ok");
    expect(second.reused).toEqual([1, 4]);
    expect([...second.results.keys()].sort()).toEqual([1, 2, 3, 4]);
    expect(second.results.get(3)).toEqual({ weather: { at: { city: "Oslo", by: 1 }, by: 2 }, city: "Oslo", by: 3 });
    expect(second.attempts).toEqual(
      new Map([
        [2, 1],
        [3, 1],
      ]),
    );
    expect(second.planHash).toBe(first.planHash);
    expect(second.runId).toBe(first.runId); // the same idempotency keys
    expect((await resumePlan(plan, first, tools([], new Set()), { runId: "another" })).runId).toBe("another");
  });

  test("takes the previous report as a RunReport, as its JSON object, or as its JSON text, alike", async () => {
    const first = await runPlan(plan, tools([], new Set([3])));
    const json = reportToJSON(first);
    for (const previous of [first, json, JSON.stringify(json), reportFromJSON(json)]) {
      const calls: number[] = [];
      const report = await resumePlan(plan, previous, tools(calls, new Set()));
      expect(calls).toEqual([3]);
      expect(reportToJSON(report).results).toEqual(reportToJSON(await resumePlan(plan, first, tools([], new Set()))).results);
    }
  });

  test("a step that failed with a result (invalid-output) runs again; aborted and never-started steps run", async () => {
    const catalog = { geocode: { output: { type: "object", required: ["lat"] } }, weather: {}, book: {} };
    const first = await runPlan(plan, tools([], new Set()), { catalog, validateOutputs: true });
    expect(first.errors.get(1)?.code).toBe("invalid-output");
    expect(first.results.has(1)).toBe(true);
    const calls: number[] = [];
    await resumePlan(plan, first, tools(calls, new Set()));
    expect(calls.sort()).toEqual([1, 2, 3, 4]);

    const controller = new AbortController();
    const slow: ToolFunctions = {
      ...tools([], new Set()),
      weather: () => {
        controller.abort();
        return new Promise(() => undefined);
      },
    };
    const aborted = await runPlan(plan, slow, { signal: controller.signal, concurrency: 1 });
    expect(aborted.status).toBe("aborted");
    expect([...aborted.results.keys()].sort()).toEqual([1, 4]); // 4 was ready before 2
    const again: number[] = [];
    const report = await resumePlan(plan, aborted, tools(again, new Set()));
    expect(again.sort()).toEqual([2, 3]);
    expect(report.status).toBe("ok");
  });

  test("property: over random plans and failures, no step that had a result is called again, and the resumed run completes", async () => {
    await fc.assert(
      fc.asyncProperty(randomPlan(), fc.array(fc.integer({ min: 1, max: 10 }), { maxLength: 4 }), async (random, failing) => {
        const first = countingTools(new Set(failing));
        const previous = await runPlan(random, first.tools, { concurrency: 3 });
        const second = countingTools();
        const report = await resumePlan(random, reportToJSON(previous), second.tools, { concurrency: 3 });
        for (const id of previous.results.keys()) expect(second.calls.get(id)).toBeUndefined();
        for (const step of random.steps)
          expect((first.calls.get(step.id) ?? 0) > 0 && previous.results.has(step.id) ? 0 : 1).toBe(second.calls.get(step.id) ?? 0);
        expect(report.status).toBe("ok");
        expect(report.results.size).toBe(random.steps.length);
        expect(report.reused).toEqual([...previous.results.keys()].sort((a, b) => a - b));
      }),
      { numRuns: 60 },
    );
  });

  test("a changed plan is refused before anything runs, naming both hashes (plan-mismatch)", async () => {
    const first = await runPlan(plan, tools([], new Set([2])));
    const changed = { steps: plan.steps.map((step) => (step.id === 4 ? { ...step, args: { city: "Trondheim" } } : step)) };
    const calls: number[] = [];
    const events: unknown[] = [];
    const refused = await resumePlan(changed, first, tools(calls, new Set()), { onEvent: (event) => events.push(event) }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RefError);
    expect((refused as RefError).code).toBe("plan-mismatch");
    const changedHash = (await runPlan(changed, tools([], new Set()))).planHash!;
    expect((refused as RefError).message).toContain(first.planHash!);
    expect((refused as RefError).message).toContain(changedHash);
    expect(calls).toEqual([]);
    expect(events).toEqual([]);
  });

  test("refuses an invalid previous run, a report without planHash, and a previous that is not a report", async () => {
    const invalid = await runPlan(plan, {});
    expect(invalid.status).toBe("invalid");
    const calls: number[] = [];
    const all = tools(calls, new Set());
    await expect(resumePlan(plan, invalid, all)).rejects.toMatchObject({
      code: "invalid-report",
      message: expect.stringContaining("invalid"),
    });
    const { planHash: _, ...old } = reportToJSON(await runPlan(plan, all));
    calls.length = 0;
    await expect(resumePlan(plan, old, all)).rejects.toMatchObject({
      code: "invalid-report",
      message: expect.stringContaining("planHash"),
    });
    await expect(resumePlan(plan, "{", all)).rejects.toMatchObject({ code: "invalid-report" });
    await expect(resumePlan(plan, 42 as never, all)).rejects.toMatchObject({ code: "invalid-report" });
    await expect(resumePlan(plan, { results: new Map() } as never, all)).rejects.toMatchObject({ code: "invalid-report" });
    expect(calls).toEqual([]);
  });

  test("never changes the previous report, also when a tool changes the arguments it was given", async () => {
    const first = await runPlan(plan, tools([], new Set([2])));
    const before = snapshot(first);
    const json = reportToJSON(first);
    const jsonBefore = structuredClone(json);
    const changing: ToolFunctions = {
      ...tools([], new Set()),
      weather: (args) => {
        (args.at as Record<string, unknown>).city = "changed";
        return 1;
      },
    };
    await resumePlan(plan, first, changing);
    await resumePlan(plan, json, changing);
    expect(snapshot(first)).toEqual(before);
    expect(json).toEqual(jsonBefore);
  });

  test("a stream of steps cannot be resumed; options are checked", async () => {
    const first = await runPlan(plan, tools([], new Set([2])));
    async function* stream(): AsyncIterable<unknown> {
      yield* plan.steps;
    }
    await expect(resumePlan(stream(), first, tools([], new Set()))).rejects.toMatchObject({ code: "invalid-options" });
    await expect(resumePlan(plan, first, tools([], new Set()), null as never)).rejects.toMatchObject({ code: "invalid-options" });
    await expect(resumePlan(plan, first, tools([], new Set()), { concurrency: 0 })).rejects.toMatchObject({ code: "invalid-options" });
  });
});
