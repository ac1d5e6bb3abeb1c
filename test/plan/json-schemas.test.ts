/**
 * The JSON Schemas shipped for editors (schema/plan.schema.json, schema/tools.schema.json): the
 * examples validate, and the schema and the linter's shape check (readPlan) agree on what a plan is.
 */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, test } from "vitest";
import { readPlan, readTools } from "../../src/plan/plan.js";

const read = (path: string): unknown => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), "utf8")) as unknown;
const planSchema = read("schema/plan.schema.json") as { $defs: Record<string, unknown> };
const toolsSchema = read("schema/tools.schema.json") as { $defs: Record<string, unknown> };

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
const validatePlan = ajv.compile(planSchema);
const validateTools = ajv.compile(toolsSchema);

describe("the schemas", () => {
  test("are valid draft 2020-12 schemas", () => {
    expect(ajv.validateSchema(planSchema)).toBe(true);
    expect(ajv.validateSchema(toolsSchema)).toBe(true);
  });

  test("share one definition of a tool catalog", () => {
    for (const name of ["toolCatalog", "tool", "jsonSchema"]) expect(toolsSchema.$defs[name]).toEqual(planSchema.$defs[name]);
  });

  test.each(["examples/lint/clean.plan.json", "examples/lint/mistakes.plan.json"])(
    "%s validates (its mistakes are in references, not in shape)",
    (path) => {
      expect(validatePlan(read(path)), JSON.stringify(validatePlan.errors)).toBe(true);
    },
  );

  test("a catalog in the shape of MCP's tools/list result validates, as readTools reads it", () => {
    const list = {
      tools: [{ name: "geocode", description: "Find a place.", inputSchema: { type: "object" }, outputSchema: { type: "object" } }],
      nextCursor: "x",
    };
    const problems: string[] = [];
    readTools(list, (pointer) => problems.push(pointer), "");
    expect(problems).toEqual([]);
    expect(validateTools(list), JSON.stringify(validateTools.errors)).toBe(true);
    expect(validateTools({ tools: [{ description: "no name" }] })).toBe(false);
  });

  test("examples/lint/tools.json validates, and its input and output schemas are valid JSON Schemas", () => {
    const tools = read("examples/lint/tools.json") as Record<string, { input?: object; output?: object }>;
    expect(validateTools(tools), JSON.stringify(validateTools.errors)).toBe(true);
    for (const spec of Object.values(tools)) {
      for (const schema of [spec.input, spec.output]) if (schema !== undefined) expect(ajv.validateSchema(schema)).toBe(true);
    }
  });
});

describe("the schema and readPlan agree", () => {
  const shapes: [string, unknown][] = [
    ["an empty plan", { steps: [] }],
    ["a bare array", [{ id: 0, tool: "a" }]],
    ["a full step", { steps: [{ id: 1, tool: "a", args: { q: "$0" }, name: "n", description: "d" }] }],
    [
      "everything a plan may have",
      {
        $schema: "x",
        name: "n",
        description: "d",
        options: { syntax: "path", templates: true, deep: false },
        tools: { a: { description: "d", input: {}, output: true } },
        steps: [],
      },
    ],
    ["not an object", 42],
    ["a string", "steps"],
    ["null", null],
    ["no steps", {}],
    ["steps not an array", { steps: {} }],
    ["a negative id", { steps: [{ id: -1, tool: "a" }] }],
    ["a fractional id", { steps: [{ id: 1.5, tool: "a" }] }],
    ["an id over MAX_SAFE_INTEGER", { steps: [{ id: 9007199254740992, tool: "a" }] }],
    ["a string id", { steps: [{ id: "1", tool: "a" }] }],
    ["no id", { steps: [{ tool: "a" }] }],
    ["no tool", { steps: [{ id: 1 }] }],
    ["an empty tool", { steps: [{ id: 1, tool: "" }] }],
    ["args an array", { steps: [{ id: 1, tool: "a", args: [] }] }],
    ["a step that is not an object", { steps: [1] }],
    ["an unknown plan property", { steps: [], extra: 1 }],
    ["an unknown step property", { steps: [{ id: 1, tool: "a", extra: 1 }] }],
    ["a bad syntax option", { steps: [], options: { syntax: "yaml" } }],
    ["an unknown option", { steps: [], options: { strict: true } }],
    ["a tool that is not an object", { steps: [], tools: { a: 1 } }],
    ["a tool input that is not a schema", { steps: [], tools: { a: { input: 3 } } }],
    ["a tool description that is not a string", { steps: [], tools: { a: { description: 3 } } }],
    ["a plan name that is not a string", { steps: [], name: 3 }],
    ["a step description that is not a string", { steps: [{ id: 1, tool: "a", description: 3 }] }],
  ];
  test.each(shapes)("%s", (_name, value) => {
    const shapeProblems = readPlan(value).problems.filter((problem) => problem.code === "invalid-plan");
    expect(validatePlan(value)).toBe(shapeProblems.length === 0);
  });

  const rows = (read("test/cases/lint.json") as { cases: { name: string; plan?: unknown; tools?: unknown }[] }).cases.filter(
    (row) => row.plan !== undefined,
  );
  test.each(rows)("lint.json: $name", (row) => {
    const shapeProblems = readPlan(row.plan).problems.filter((problem) => problem.code === "invalid-plan");
    expect(validatePlan(row.plan)).toBe(shapeProblems.length === 0);
    if (row.tools !== undefined) {
      const problems: string[] = [];
      readTools(row.tools, (pointer) => problems.push(pointer), "");
      expect(validateTools(row.tools)).toBe(problems.length === 0);
    }
  });
});
