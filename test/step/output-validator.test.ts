/**
 * A tool's result against the output schema of its catalog entry (src/step/output-validator.ts): what
 * `outputMismatch` says for each kind of schema and result (the detail of an `invalid-output` step
 * error), and that a schema is compiled once, ahead of the run by `prepareOutputSchema`.
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import type { JsonSchema } from "../../src/plan/plan.js";
import { outputMismatch, prepareOutputSchema } from "../../src/step/output-validator.js";

const MISMATCH = "result does not match the output schema: ";
const INVALID = "the catalog's output schema is invalid: ";

/** The schema, and the names of the properties read from it (Ajv reads a schema only to compile it). */
function watched(schema: Record<string, unknown>): { schema: JsonSchema; reads: string[] } {
  const reads: string[] = [];
  const proxy = new Proxy(schema, {
    get(target, key, receiver) {
      if (typeof key === "string") reads.push(key);
      return Reflect.get(target, key, receiver);
    },
  });
  return { schema: proxy, reads };
}

afterEach(() => {
  vi.restoreAllMocks();
});

// First in the file on purpose: the validator is built by the first schema compiled, so this test
// is the one that sees how it is built (annotations ignored, every error, formats not checked, quietly).
test("Ajv's settings: unknown keywords and formats are annotations, every mismatch is found, nothing is logged", () => {
  const warn = vi.spyOn(console, "warn");
  expect(
    outputMismatch(
      { type: "object", "x-unit": "celsius", properties: { a: { type: "number" }, b: { type: "string", format: "email" } } },
      { a: "x", b: 1 },
    ),
  ).toBe(`${MISMATCH}/a must be number; /b must be string`);
  expect(outputMismatch({ type: "string", format: "email", "x-ui": "text" }, "not an address")).toBeUndefined();
  expect(warn).not.toHaveBeenCalled();
});

describe("outputMismatch", () => {
  test.each([
    ["true accepts anything", true, { any: ["thing"] }, undefined],
    ["true accepts undefined", true, undefined, undefined],
    ["false accepts nothing", false, "anything", "the catalog's output schema is false (no result is valid)"],
    ["a result that fits", { type: "object", properties: { t: { type: "number" } } }, { t: 21 }, undefined],
    ["the result itself has the wrong type: it is named (result)", { type: "string" }, 1, `${MISMATCH}(result) must be string`],
    [
      "a property of the wrong type: its JSON Pointer",
      { type: "object", properties: { t: { type: "number" } } },
      { t: "warm" },
      `${MISMATCH}/t must be number`,
    ],
    [
      "every mismatch is found (not only the first), and the first three are told",
      { type: "object", required: ["a", "b", "c", "d"] },
      {},
      `${MISMATCH}(result) must have required property 'a'; (result) must have required property 'b'; (result) must have required property 'c'`,
    ],
    [
      "two mismatches, both told",
      { type: "object", properties: { a: { type: "number" }, b: { type: "string" } } },
      { a: "x", b: 1 },
      `${MISMATCH}/a must be number; /b must be string`,
    ],
    [
      "a keyword Ajv does not know (an annotation of the catalog) is ignored, not an invalid schema",
      { type: "number", "x-unit": "celsius" },
      21,
      undefined,
    ],
    [
      "a keyword Ajv does not know does not hide a mismatch",
      { type: "number", "x-unit": "celsius" },
      "21",
      `${MISMATCH}(result) must be number`,
    ],
    [
      "a schema that breaks the meta-schema is invalid, whatever the result",
      { type: "nope" },
      1,
      `${INVALID}schema is invalid: data/type must be equal to one of the allowed values, data/type must be array, data/type must match a schema in anyOf`,
    ],
    ["a reference to nowhere is invalid", { $ref: "#/nowhere" }, 1, `${INVALID}can't resolve reference #/nowhere from id #`],
  ] as const)("%s", (_name, schema, value, expected) => {
    expect(outputMismatch(schema as JsonSchema, value)).toBe(expected);
  });

  test("an invalid schema stays invalid when checked again (the compile error is kept, not retried)", () => {
    const schema = { type: "nope" } as unknown as JsonSchema;
    expect(outputMismatch(schema, 1)).toMatch(/^the catalog's output schema is invalid: schema is invalid: /);
    expect(outputMismatch(schema, 1)).toMatch(/^the catalog's output schema is invalid: schema is invalid: /);
  });

  test("a format is an annotation: it is not checked, and nothing is written to the console", () => {
    const warn = vi.spyOn(console, "warn");
    const log = vi.spyOn(console, "log");
    expect(outputMismatch({ type: "string", format: "email" }, "not an address")).toBeUndefined();
    expect(outputMismatch({ type: "string", format: "date-time" }, 1)).toBe(`${MISMATCH}(result) must be string`);
    expect(warn).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
  });

  test("a schema is compiled on its first check only: later checks read it no more", () => {
    const { schema, reads } = watched({ type: "object", properties: { t: { type: "number" } } });
    expect(outputMismatch(schema, { t: 1 })).toBeUndefined();
    const compiled = reads.length;
    expect(compiled).toBeGreaterThan(0);
    expect(outputMismatch(schema, { t: "x" })).toBe(`${MISMATCH}/t must be number`);
    expect(outputMismatch(schema, { t: 2 })).toBeUndefined();
    expect(reads.length).toBe(compiled);
  });
});

describe("a schema with an $id, parsed again for each run (a catalog read per request)", () => {
  test("each copy is compiled and checks results: Ajv does not refuse the second as an $id it has seen", () => {
    const text = JSON.stringify({ $id: "https://example.com/weather-output", type: "object", required: ["sky"] });
    for (let copy = 0; copy < 3; copy++) {
      const schema = JSON.parse(text) as JsonSchema;
      expect(outputMismatch(schema, { sky: "sunny" })).toBeUndefined();
      expect(outputMismatch(schema, {})).toBe("result does not match the output schema: (result) must have required property 'sky'");
    }
  });
});

describe("prepareOutputSchema", () => {
  test("compiles the schema at once, so checking a result later does not read it again", () => {
    const { schema, reads } = watched({ type: "array", items: { type: "string" } });
    prepareOutputSchema(schema);
    const compiled = reads.length;
    expect(compiled).toBeGreaterThan(0);
    expect(outputMismatch(schema, ["a", "b"])).toBeUndefined();
    expect(outputMismatch(schema, ["a", 2])).toBe(`${MISMATCH}/1 must be string`);
    expect(reads.length).toBe(compiled);
  });

  test.each([
    ["true", true],
    ["false", false],
  ] as const)("a boolean schema has nothing to compile: %s", (_name, schema) => {
    expect(() => prepareOutputSchema(schema)).not.toThrow();
    expect(outputMismatch(schema, 1)).toBe(schema ? undefined : "the catalog's output schema is false (no result is valid)");
  });

  test("an invalid schema is not thrown when prepared: the check says it is invalid", () => {
    const schema = { type: "nope" } as unknown as JsonSchema;
    expect(() => prepareOutputSchema(schema)).not.toThrow();
    expect(outputMismatch(schema, 1)).toMatch(/^the catalog's output schema is invalid: /);
  });
});
