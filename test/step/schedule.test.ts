/**
 * The run rules both executors share (src/step/schedule.ts), against a naive model: pure, no
 * database needed.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { dependentsToSkip, runStatus, scheduleGraph, STEP_EVENT_TYPES, stopDetail, type StepState } from "../../src/step/schedule.js";
import { runPlan, type RunEvent } from "../../src/run/run-plan.js";
import type { Diagnostic } from "../../src/shared/diagnostic.js";

describe("the run rules (src/step/schedule.ts)", () => {
  test("property: a failure skips exactly the waiting steps that reach it through dependencies, each once", () => {
    const graphArb = fc.integer({ min: 1, max: 15 }).chain((n) =>
      fc.tuple(
        fc.tuple(
          ...Array.from({ length: n }, (_, i) =>
            fc.subarray(
              Array.from({ length: i }, (_, j) => j),
              { maxLength: Math.min(3, i) },
            ),
          ),
        ),
        fc.array(fc.constantFrom<StepState>("waiting", "ready", "running", "done", "failed", "skipped"), { minLength: n, maxLength: n }),
        fc.integer({ min: 0, max: n - 1 }),
      ),
    );
    fc.assert(
      fc.property(graphArb, ([deps, stateList, from]) => {
        const graph = scheduleGraph(deps.map((dependencies, id) => ({ id, dependencies })));
        const states = new Map(stateList.map((state, id) => [id, state] as [number, StepState]));
        const skipped = dependentsToSkip(graph, from, states);
        // The model: waiting steps reachable from `from` through waiting steps only.
        const expected = new Set<number>();
        let grew = true;
        while (grew) {
          grew = false;
          deps.forEach((dependencies, id) => {
            if (states.get(id) !== "waiting" || expected.has(id)) return;
            if (dependencies.some((d) => d === from || expected.has(d))) {
              expected.add(id);
              grew = true;
            }
          });
        }
        expect(new Set(skipped.map((s) => s.id))).toEqual(expected);
        expect(skipped.length).toBe(expected.size);
        for (const { id, blockedBy } of skipped) expect(deps[id]).toContain(blockedBy);
      }),
      { numRuns: 300 },
    );
  });
});

describe("a run's status and a stop's detail", () => {
  const error = { code: "unknown-step", severity: "error", message: "m" } as unknown as Diagnostic;
  const warning = { code: "unused-step", severity: "warning", message: "m" } as unknown as Diagnostic;
  test.each([
    ["nothing failed", undefined, 0, [], 0, "ok"],
    ["a warning only", undefined, 0, [warning], 0, "ok"],
    ["a step failed", undefined, 1, [], 0, "failed"],
    ["an error diagnostic", undefined, 0, [error], 0, "failed"],
    ["steps wait for approval, a failure too", undefined, 1, [], 2, "suspended"],
    ["aborted, steps waiting for approval", "aborted", 0, [], 2, "aborted"],
    ["stopped by a failure (failFast), steps waiting for approval", "failed", 1, [], 2, "failed"],
  ] as const)("%s: %s", (_name, stopped, failures, diagnostics, pending, status) => {
    expect(runStatus(stopped, failures, diagnostics, pending)).toBe(status);
  });

  test("the detail of a step aborted by a stop says why the run stopped", () => {
    expect([stopDetail("aborted"), stopDetail("failed")]).toEqual([
      "aborted with the run",
      "aborted because another step failed (failFast)",
    ]);
  });

  test("the graph keeps the plan's order and lists a dependent once, however often it references a step", () => {
    const graph = scheduleGraph([
      { id: 3, dependencies: [] },
      { id: 1, dependencies: [3, 3] },
      { id: 2, dependencies: [3, 1] },
    ]);
    expect(graph.order).toEqual([3, 1, 2]);
    expect([...graph.dependentsOf]).toEqual([
      [3, [1, 2]],
      [1, [2]],
    ]);
    expect(graph.dependenciesOf.get(1)).toEqual([3, 3]);
  });
});

describe("the step event names (STEP_EVENT_TYPES)", () => {
  test("every event runPlan tells is named in the shared list, each name once; waiting for approval is step-awaiting-approval", async () => {
    const events: RunEvent[] = [];
    let tries = 0;
    const plan = {
      steps: [
        { id: 1, tool: "flaky", args: {} },
        { id: 2, tool: "broken", args: {} },
        { id: 3, tool: "echo", args: { after: "$2" } },
        { id: 4, tool: "pay", args: { after: "$1" } },
      ],
    };
    const tools = {
      flaky: () => {
        if (++tries === 1) throw new Error("first try");
        return 1;
      },
      broken: () => {
        throw new Error("always");
      },
      echo: (args: Record<string, unknown>) => args,
      pay: () => 1,
    };
    const report = await runPlan(plan, tools, {
      retryByTool: { flaky: { attempts: 2, initialDelayMs: 0 } },
      approvalTools: ["pay"],
      onEvent: (event) => void events.push(event),
    });
    expect(report.status).toBe("suspended");
    const names = [...new Set(events.map((event) => event.type))].sort();
    expect(names).toEqual(["step-awaiting-approval", "step-done", "step-failed", "step-retry", "step-skipped", "step-start"]);
    for (const name of names) expect(STEP_EVENT_TYPES).toContain(name);
    expect(new Set(STEP_EVENT_TYPES).size).toBe(STEP_EVENT_TYPES.length);
  });
});
