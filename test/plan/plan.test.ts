/**
 * The plan format (readPlan), the reference scanner (scanArgs) and the dependency graph (planGraph),
 * the building blocks of the linter (issue 4).
 */
import { describe, expect, test } from "vitest";
import { graphFromEdges, planGraph } from "../../src/plan/graph.js";
import { readPlan } from "../../src/plan/plan.js";
import { scanArgs } from "../../src/plan/references.js";
import { normalizeOptions, type ResolveOptions } from "../../src/shared/options.js";

const step = (id: number, args: Record<string, unknown> = {}, tool = "t") => ({ id, tool, args });

describe("readPlan", () => {
  test("an object plan: steps with their index and pointer, tools and options", () => {
    const tools = { t: { description: "a tool", output: { type: "object" } } };
    const read = readPlan({ steps: [step(1), step(2, { q: "$1" })], tools, options: { syntax: "path", deep: true } });
    expect(read.problems).toEqual([]);
    expect(read.stepsPointer).toBe("/steps");
    expect(read.steps.map((s) => [s.id, s.index, s.pointer])).toEqual([
      [1, 0, "/steps/0"],
      [2, 1, "/steps/1"],
    ]);
    expect(read.plan.options).toEqual({ syntax: "path", deep: true });
    expect(read.plan.tools?.["t"]).toBe(tools.t);
  });

  test("a bare array of steps", () => {
    const read = readPlan([step(0), step(5)]);
    expect(read.problems).toEqual([]);
    expect(read.stepsPointer).toBe("");
    expect(read.steps.map((s) => s.pointer)).toEqual(["/0", "/1"]);
  });

  test("args may be left out (no arguments)", () => {
    const read = readPlan({ steps: [{ id: 1, tool: "t" }] });
    expect(read.problems).toEqual([]);
    expect(read.steps[0]?.args).toEqual({});
  });

  test("a bad step is reported and left out; the others keep their document index", () => {
    const read = readPlan({ steps: [step(1), "x", { id: 3 }, step(4)] });
    expect(read.steps.map((s) => [s.id, s.index])).toEqual([
      [1, 0],
      [4, 3],
    ]);
    expect(read.problems.map((p) => [p.code, p.pointer])).toEqual([
      ["invalid-plan", "/steps/1"],
      ["invalid-plan", "/steps/2"],
    ]);
    expect(read.problems[1]).toMatchObject({ step: 3 });
  });

  test("a duplicate id: the first step is kept, the second reported at its id", () => {
    const read = readPlan({ steps: [step(1, {}, "first"), step(2), step(1, {}, "second")] });
    expect(read.steps.map((s) => s.tool)).toEqual(["first", "t"]);
    expect(read.problems).toEqual([{ code: "duplicate-step-id", message: expect.stringContaining("/steps/0") as unknown, pointer: "/steps/2/id", step: 1 }]);
  });

  test.each([
    ["0", 0, true],
    ["a large safe integer", Number.MAX_SAFE_INTEGER, true],
    ["a negative number", -1, false],
    ["a fraction", 1.5, false],
    ["a string of digits", "1", false],
    ["above MAX_SAFE_INTEGER", Number.MAX_SAFE_INTEGER + 1, false],
    ["null", null, false],
  ])("step id %s: valid %s", (_name, id, valid) => {
    const read = readPlan({ steps: [{ id, tool: "t" }] });
    expect(read.steps.length).toBe(valid ? 1 : 0);
    expect(read.problems.map((p) => p.pointer)).toEqual(valid ? [] : ["/steps/0/id"]);
  });

  test("unknown properties point at their key", () => {
    const read = readPlan({ steps: [{ ...step(1), colour: "red" }], stepz: [], options: { strict: true } });
    expect(read.problems.map((p) => [p.pointer, p.at])).toEqual([
      ["/stepz", "key"],
      ["/options/strict", "key"],
      ["/steps/0/colour", "key"],
    ]);
  });

  test("a __proto__ key is an unknown own key, and no prototype changes", () => {
    const value = JSON.parse('{"steps": [], "__proto__": {"steps": 1}}') as unknown;
    const read = readPlan(value);
    expect(read.problems.map((p) => p.pointer)).toEqual(["/__proto__"]);
    expect(Object.getPrototypeOf(read.plan)).toBe(Object.prototype);
  });

  test.each([
    ["a number", 42, [""]],
    ["null", null, [""]],
    ["an object without steps", {}, [""]],
    ["steps that are not an array", { steps: {} }, ["/steps"]],
    ["bad options", { steps: [], options: { syntax: "yaml", templates: 1 } }, ["/options/syntax", "/options/templates"]],
    ["options that are not an object", { steps: [], options: [] }, ["/options"]],
    ["a tool that is not an object", { steps: [], tools: { a: 1 } }, ["/tools/a"]],
    ["a tool schema that is not a schema", { steps: [], tools: { a: { input: "x", output: true } } }, ["/tools/a/input"]],
    ["a name that is not a string", { steps: [], name: 3 }, ["/name"]],
  ])("shape problems: %s", (_name, value, pointers) => {
    expect(readPlan(value).problems.map((p) => p.pointer)).toEqual(pointers);
  });
});

describe("scanArgs", () => {
  const scan = (args: unknown, options?: ResolveOptions) => scanArgs(args, normalizeOptions(options));

  test("top-level placeholders in document order, with pointers and references", () => {
    const result = scan({ b: "$2.x", a: "plain", "c/d": "$1", n: 5 });
    expect(result.refs.map((r) => [r.pointer, r.text, r.references.map((n) => n.step.id)])).toEqual([
      ["/b", "$2.x", ["2"]],
      ["/c~1d", "$1", ["1"]],
    ]);
    expect(result.malformed).toEqual([]);
  });

  test("every reference of a default chain and of a template", () => {
    const path = scan({ q: '$1.a ?? $2.b ?? "x"' }, { syntax: "path" });
    expect(path.refs[0]?.references.map((n) => n.step.id)).toEqual(["1", "2"]);
    const template = scan({ q: "${3} and ${4.k}" }, { templates: true });
    expect(template.refs[0]?.references.map((n) => n.step.id)).toEqual(["3", "4"]);
  });

  test("nested placeholders are not resolved without deep, and are with it", () => {
    const args = { f: { city: "$1.city" }, l: ["$2"] };
    const flat = scan(args);
    expect(flat.refs).toEqual([]);
    expect(flat.unresolvedNested.map((n) => n.pointer)).toEqual(["/f/city", "/l/0"]);
    const deep = scan(args, { deep: true });
    expect(deep.refs.map((r) => r.pointer)).toEqual(["/f/city", "/l/0"]);
    expect(deep.unresolvedNested).toEqual([]);
  });

  test("malformed strings are classified strictly; plain text is not", () => {
    const result = scan({ a: "$1.", b: "$1 .x", c: "$5 off", d: "price $1", e: "$x" });
    expect(result.malformed.map((m) => [m.pointer, m.error.code])).toEqual([
      ["/a", "syntax"],
      ["/b", "syntax"],
      ["/c", "syntax"],
    ]);
  });

  test("template-like text while templates are off, only where the resolver reads", () => {
    const result = scan({ a: "in ${1.city}", b: "${HOME}", c: { d: "in ${2}" } });
    expect(result.templateLike.map((t) => t.pointer)).toEqual(["/a"]);
    expect(scan({ a: "in ${1.city}" }, { templates: true }).templateLike).toEqual([]);
    expect(scan({ c: { d: "in ${2}" } }, { deep: true }).templateLike.map((t) => t.pointer)).toEqual(["/c/d"]);
  });

  test("too deep for maxDepth: reported with deep only, at the first container past the limit", () => {
    const args = { a: { b: { c: { d: "$1" } } } };
    expect(scan(args, { deep: true, maxDepth: 2 }).tooDeep).toBe("/a/b/c");
    expect(scan(args, { maxDepth: 2 }).tooDeep).toBeUndefined();
    expect(scan(args, { deep: true }).tooDeep).toBeUndefined();
  });

  test("deeply nested args do not overflow the stack", () => {
    let args: unknown = "$1";
    for (let i = 0; i < 50_000; i++) args = { x: args };
    const result = scan({ root: args }, { deep: true, maxDepth: 100_000 });
    expect(result.refs.length).toBe(1);
    expect(result.refs[0]?.pointer.split("/").length).toBe(50_002);
  });

  test("getters are never invoked", () => {
    let ran = false;
    const args = {
      get q() {
        ran = true;
        return "$1";
      },
    };
    expect(scan(args).refs).toEqual([]);
    expect(ran).toBe(false);
  });
});

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
    ["two separate cycles, sorted by their first step", [step(5, { a: "$6" }), step(6, { a: "$5" }), step(1, { a: "$2" }), step(2, { a: "$1" })], [[1, 2], [5, 6]]],
    ["the shortest cycle through the smallest step of a component", [step(1, { a: "$2" }), step(2, { a: "$3", b: "$1" }), step(3, { a: "$1" })], [[1, 2]]],
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
    const graph = graphFromEdges([{ id: 1 }, { id: 2 }], new Map([[1, new Set<number>()], [2, new Set([1])]]));
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
