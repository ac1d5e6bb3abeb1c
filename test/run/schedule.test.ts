/**
 * The run rules both executors share (src/run/schedule.ts), against a naive model: pure, no
 * database needed.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { dependentsToSkip, scheduleGraph, type StepState } from "../../src/run/schedule.js";

describe("the run rules (src/run/schedule.ts)", () => {
  test("property: a failure skips exactly the waiting steps that reach it through dependencies, each once", () => {
    const graphArb = fc.integer({ min: 1, max: 15 }).chain((n) =>
      fc.tuple(
        fc.tuple(...Array.from({ length: n }, (_, i) => fc.subarray(Array.from({ length: i }, (_, j) => j), { maxLength: Math.min(3, i) }))),
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
