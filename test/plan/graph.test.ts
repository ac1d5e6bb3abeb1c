/**
 * The dependency graph of a plan (planGraph, graphFromEdges), a building block of the linter:
 * dependencies, dependents, levels and cycles.
 */
import { describe, expect, test } from "vitest";
import { graphFromEdges, planGraph } from "../../src/plan/graph.js";

const step = (id: number, args: Record<string, unknown> = {}, tool = "t") => ({ id, tool, args });

describe("planGraph", () => {
  const setsOf = (edges: Map<number, Set<number>>) => Object.fromEntries([...edges].map(([k, v]) => [k, [...v].sort((a, b) => a - b)]));

  test("dependencies and dependents of a diamond, and its levels", () => {
    const graph = planGraph({ steps: [step(1), step(2, { a: "$1" }), step(3, { a: "$1.x" }), step(4, { a: "$2", b: "$3" })] });
    expect(setsOf(graph.dependencies)).toEqual({ 1: [], 2: [1], 3: [1], 4: [2, 3] });
    expect(setsOf(graph.dependents)).toEqual({ 1: [2, 3], 2: [4], 3: [4], 4: [] });
    expect(graph.levels).toEqual([[1], [2, 3], [4]]);
    expect(graph.cycles).toEqual([]);
  });

  test("independent steps share the first level; references to missing steps are not edges", () => {
    const graph = planGraph([step(1), step(2, { a: "$9" }), step(3)]);
    expect(graph.levels).toEqual([[1, 2, 3]]);
    expect(setsOf(graph.dependencies)).toEqual({ 1: [], 2: [], 3: [] });
  });

  test("a forward reference runs after its dependency", () => {
    expect(planGraph([step(1, { a: "$2" }), step(2)]).levels).toEqual([[2], [1]]);
  });

  test("the plan's options, then the caller's, decide what is a reference", () => {
    const steps = [step(1), step(2), step(4), step(3, { a: "$2.x ?? $1.x", n: { t: "at ${4}" } })];
    const plan = { options: { syntax: "path", templates: true, deep: true }, steps };
    // Path syntax: both sides of ??; deep and templates: the nested ${4}.
    expect(setsOf(planGraph(plan).dependencies)[3]).toEqual([1, 2, 4]);
    // The seed syntax reads "$2.x ?? $1.x" as step 2, key "x ?? $1.x"; nested strings are not read.
    expect(setsOf(planGraph({ steps }).dependencies)[3]).toEqual([2]);
    expect(setsOf(planGraph({ steps }, { deep: true, templates: true }).dependencies)[3]).toEqual([2, 4]);
    // A caller's option overrides the plan's; an undefined one does not.
    expect(setsOf(planGraph(plan, { syntax: "seed", deep: undefined }).dependencies)[3]).toEqual([2, 4]);
  });

  test.each([
    ["a two-step cycle", [step(1, { a: "$2" }), step(2, { a: "$1" })], [[1, 2]]],
    ["a three-step cycle in reference order", [step(1, { a: "$3" }), step(2, { a: "$1" }), step(3, { a: "$2" })], [[1, 3, 2]]],
    ["a self-loop", [step(1, { a: "$1" })], [[1]]],
    ["a self-loop inside a larger cycle gives the larger cycle", [step(1, { a: "$1", b: "$2" }), step(2, { a: "$1" })], [[1, 2]]],
    [
      "two separate cycles, sorted by their first step",
      [step(5, { a: "$6" }), step(6, { a: "$5" }), step(1, { a: "$2" }), step(2, { a: "$1" })],
      [
        [1, 2],
        [5, 6],
      ],
    ],
    [
      "the shortest cycle through the smallest step of a component",
      [step(1, { a: "$2" }), step(2, { a: "$3", b: "$1" }), step(3, { a: "$1" })],
      [[1, 2]],
    ],
  ])("cycles: %s", (_name, steps, cycles) => {
    expect(planGraph(steps).cycles).toEqual(cycles);
  });

  test("steps in or behind a cycle are in no level", () => {
    const graph = planGraph([step(1), step(2, { a: "$3" }), step(3, { a: "$2" }), step(4, { a: "$3" }), step(5, { a: "$1" })]);
    expect(graph.levels).toEqual([[1], [5]]);
    expect(graph.cycles).toEqual([[2, 3]]);
  });

  const N = 100_000;
  test("a chain of 100,000 steps: one step per level, no stack overflow", () => {
    const steps = Array.from({ length: N }, (_, i) => step(i, i === 0 ? {} : { prev: `$${i - 1}` }));
    const graph = planGraph(steps);
    expect(graph.levels.length).toBe(N);
    expect(graph.levels[N - 1]).toEqual([N - 1]);
    expect(graph.cycles).toEqual([]);
  });

  test("a cycle through 100,000 steps is found whole, in reference order", () => {
    const steps = Array.from({ length: N }, (_, i) => step(i, { next: `$${(i + 1) % N}` }));
    const graph = planGraph(steps);
    expect(graph.levels).toEqual([]);
    expect(graph.cycles.length).toBe(1);
    expect(graph.cycles[0]).toEqual(Array.from({ length: N }, (_, i) => i));
  });

  test("graphFromEdges works from known dependency sets", () => {
    const graph = graphFromEdges(
      [{ id: 1 }, { id: 2 }],
      new Map([
        [1, new Set<number>()],
        [2, new Set([1])],
      ]),
    );
    expect(graph.levels).toEqual([[1], [2]]);
    expect(setsOf(graph.dependents)).toEqual({ 1: [2], 2: [] });
  });

  test("garbage is an empty graph", () => {
    for (const value of [null, 42, "x", { steps: 1 }]) {
      const graph = planGraph(value);
      expect([graph.levels, graph.cycles, graph.dependencies.size]).toEqual([[], [], 0]);
    }
  });
});
