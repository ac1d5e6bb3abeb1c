/**
 * The plan format (readPlan), a building block of the linter: steps with their index and
 * pointer, and the shape problems it reports. The reference scanner is in references.test.ts, the
 * dependency graph in graph.test.ts.
 */
import { describe, expect, test } from "vitest";
import { lintPlan } from "../../src/lint/index.js";
import { readPlan, readTools } from "../../src/plan/plan.js";

const step = (id: number, args: Record<string, unknown> = {}, tool = "t") => ({ id, tool, args });

describe("readPlan", () => {
  test("an unknown property's message lists every property allowed there", () => {
    expect(readPlan({ steps: [{ id: 1, tool: "a", args: {}, extra: 1 }] }).problems.map((problem) => problem.message)).toEqual([
      'unknown step property "extra" (expected id, tool, args, description, name)',
    ]);
    expect(readPlan({ steps: [], stpes: [] }).problems.map((problem) => problem.message)).toEqual([
      'unknown plan property "stpes" (expected steps, output, tools, options, $schema, description, name)',
    ]);
  });

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
    expect(read.problems).toEqual([
      { code: "duplicate-step-id", message: expect.stringContaining("/steps/0") as unknown, pointer: "/steps/2/id", step: 1 },
    ]);
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

describe("readTools: a catalog in the shape of MCP's tools/list result", () => {
  const read = (value: unknown) => {
    const problems: [string, string][] = [];
    const tools = readTools(value, (pointer, message) => void problems.push([pointer, message]), "");
    return { tools: tools === undefined ? undefined : JSON.parse(JSON.stringify(tools)), problems };
  };

  test("the tools it lists, by name, with inputSchema and outputSchema as input and output", () => {
    const list = {
      tools: [
        {
          name: "get-sum",
          title: "Sum",
          description: "Adds.",
          inputSchema: { type: "object" },
          outputSchema: { type: "number" },
          annotations: { readOnlyHint: true },
        },
        { name: "echo" },
      ],
      nextCursor: "2",
    };
    expect(read(list)).toEqual({
      tools: { "get-sum": { input: { type: "object" }, output: { type: "number" }, description: "Adds." }, echo: {} },
      problems: [],
    });
  });

  test("each mistake in the list, with its place", () => {
    const list = { tools: [{ name: "" }, 3, { name: "a", inputSchema: "x", description: 1 }, { name: "a" }] };
    expect(read(list).problems).toEqual([
      ["/tools/0", 'each tool of a tools/list result must be an object with a "name" (a non-empty string)'],
      ["/tools/1", 'each tool of a tools/list result must be an object with a "name" (a non-empty string)'],
      ["/tools/2/inputSchema", '"inputSchema" must be a JSON Schema (an object or a boolean)'],
      ["/tools/2/description", '"description" must be a string'],
      ["/tools/3/name", 'tool "a" is listed twice'],
    ]);
  });

  test("a map whose only tool is named tools, with no description, input or output, gets a hint", () => {
    const { problems } = read({ tools: { geocode: { input: { type: "object" } } } });
    expect(problems).toHaveLength(1);
    expect(problems[0]![0]).toBe("/tools");
    expect(problems[0]![1]).toContain('the catalog\'s only tool is named "tools"');
    expect(read({ tools: { description: "a tool named tools" } }).problems).toEqual([]);
  });

  test("the linter reads it as the map it stands for", () => {
    const list = {
      tools: [
        {
          name: "get-sum",
          inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
        },
      ],
    };
    const diagnostics = lintPlan(
      {
        steps: [
          { id: 1, tool: "get-sum", args: { a: 1 } },
          { id: 2, tool: "get-summ" },
        ],
      },
      { tools: list as never },
    );
    expect(diagnostics.map((d) => d.code)).toEqual(["missing-argument", "unknown-tool"]);
  });
});
