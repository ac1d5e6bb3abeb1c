/**
 * Ajv's errors turned into findings, one row per rule (test/cases/input-schema.json): a failed
 * `anyOf`/`oneOf` folded into one line or into its best branch, each keyword's message, unknown keys
 * escaped into their pointer, missing names with their types, the dialects' `unevaluatedProperties`,
 * and what is left out where a value is not known before the run. Untagged and small, so the mutation
 * runs see every rule of `input-schema.ts`.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test, vi } from "vitest";
import {
  argumentsCopy,
  compileInputSchema,
  inputIssues,
  MAX_PATTERN_INPUT,
  MAX_PATTERN_LENGTH,
  MAX_SCHEMA_DEPTH,
  MAX_SCHEMA_NODES,
  valueText,
  type Unsure,
} from "../../src/lint/input-schema.js";

interface Row {
  readonly name: string;
  readonly schema: unknown;
  readonly value: unknown;
  readonly unsure?: Readonly<Record<string, Unsure>>;
  readonly issues: readonly unknown[];
}

const rows = JSON.parse(readFileSync(new URL("../cases/input-schema.json", import.meta.url), "utf8")) as Row[];

describe("input issues", () => {
  test.each(rows.map((row) => [row.name, row] as const))("%s", (_, row) => {
    const compiled = compileInputSchema(row.schema);
    if (!compiled.ok) throw new Error(compiled.reason);
    const unsure = row.unsure === undefined ? undefined : new Map(Object.entries(row.unsure));
    const issues = inputIssues(compiled, argumentsCopy(row.value, 16), unsure);
    // Type sets compare as sorted lists: a JSON row cannot hold a Set.
    // The shape form of a message (for spans without content) is checked apart: the same rule, a shape for the value.
    const plain = issues.map((issue) =>
      issue.kind === "missing"
        ? { ...issue, names: issue.names.map((n) => ({ name: n.name, types: n.types === null ? null : [...n.types] })) }
        : issue.kind === "invalid"
          ? { kind: issue.kind, path: issue.path, message: issue.message }
          : issue,
    );
    expect(plain).toEqual(row.issues);
    for (const issue of issues) {
      if (issue.kind !== "invalid") continue;
      const rule = issue.message.slice(0, issue.message.lastIndexOf(" (got "));
      expect(issue.shapeMessage).toMatch(/ \(got (?:an? |an empty |null|no value)[a-z0-9 ]*\)$/);
      expect(issue.shapeMessage.startsWith(`${rule} (got `)).toBe(true);
    }
    // The same map given as a function that makes it gives the same findings.
    if (unsure !== undefined) expect(inputIssues(compiled, argumentsCopy(row.value, 16), () => unsure)).toEqual(issues);
  });
});

describe("the validator's settings", () => {
  // The validators are made once per dialect and kept in the module: a fresh copy of it makes them
  // inside this test, so what they were made with is what this test sees.
  test("every error, the schema of each name, own properties only, fast formats, draft-07 without $schema", async () => {
    vi.resetModules();
    const fresh = await import("../../src/lint/input-schema.js");
    const issuesOf = (schema: unknown, value: unknown) => {
      const compiled = fresh.compileInputSchema(schema);
      if (!compiled.ok) throw new Error(compiled.reason);
      return fresh
        .inputIssues(compiled, fresh.argumentsCopy(value, 16))
        .map((issue) =>
          issue.kind === "missing"
            ? { ...issue, names: issue.names.map((n) => ({ ...n, types: n.types === null ? null : [...n.types] })) }
            : issue,
        );
    };
    const schema = {
      type: "object",
      properties: { n: { type: "integer" }, d: { type: "string", format: "date" }, m: { type: "number" } },
      required: ["m", "toString"],
      additionalProperties: false,
    };
    expect(issuesOf(schema, { n: "x", d: "2021-02-30", z: 1 })).toEqual([
      { kind: "unknown", path: "/z", name: "z", declared: ["n", "d", "m"], closed: true },
      {
        kind: "invalid",
        path: "/n",
        message: 'must be an integer (got "x")',
        shapeMessage: "must be an integer (got a string of 1 character)",
      },
      {
        kind: "missing",
        path: "",
        names: [
          { name: "m", types: ["number"] },
          { name: "toString", types: null },
        ],
      },
    ]);
    expect(issuesOf({ type: "object", properties: { a: {} }, unevaluatedProperties: false }, { z: 1 })).toEqual([]);
  });
});

describe("compiling a catalog's schema", () => {
  test("each schema object is compiled once; true and false are schemas", () => {
    const schema = { type: "object" };
    expect(compileInputSchema(schema)).toBe(compileInputSchema(schema));
    expect(compileInputSchema(true)).toMatchObject({ ok: true, untested: [] });
    expect(compileInputSchema(false)).toMatchObject({ ok: true, untested: [] });
  });

  test.each([
    ["a string", "x"],
    ["a number", 5],
    ["null", null],
    ["an array", [{ type: "string" }]],
    ["a class instance", new (class Schema {})()],
  ])("%s is not a schema", (_name, schema) => {
    expect(compileInputSchema(schema)).toEqual({ ok: false, reason: "an input schema must be an object or a boolean" });
  });

  test("a schema Ajv refuses gives Ajv's reason, cut", () => {
    const result = compileInputSchema({ type: "nope" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason.startsWith("schema is invalid: data/type must be equal to one of the allowed values")).toBe(true);
    expect(result.reason.length).toBeLessThanOrEqual(161);
  });

  test("an invalid pattern makes the schema one that cannot be compiled", () => {
    expect(compileInputSchema({ type: "string", pattern: "(" })).toMatchObject({
      ok: false,
      reason: expect.stringContaining("Invalid regular expression"),
    });
  });

  test("nesting: 64 levels compile, 65 do not", () => {
    const nested = (levels: number): unknown => {
      let node: Record<string, unknown> = {};
      for (let i = 1; i < levels; i++) node = { a: node };
      return { "x-data": node };
    };
    expect(compileInputSchema(nested(MAX_SCHEMA_DEPTH)).ok).toBe(true);
    expect(compileInputSchema(nested(MAX_SCHEMA_DEPTH + 1))).toEqual({
      ok: false,
      reason: `the schema is nested deeper than ${MAX_SCHEMA_DEPTH}`,
    });
  });

  test("size: 20,000 nodes compile, one more does not", () => {
    // The root, the array and its items are the nodes; an unknown keyword is not compiled.
    const sized = (nodes: number): unknown => ({ "x-data": Array.from({ length: nodes - 2 }, () => ({})) });
    expect(compileInputSchema(sized(MAX_SCHEMA_NODES)).ok).toBe(true);
    expect(compileInputSchema(sized(MAX_SCHEMA_NODES + 1))).toEqual({
      ok: false,
      reason: `the schema has more than ${MAX_SCHEMA_NODES} nodes`,
    });
  });

  test("a pattern of 1,000 characters is tested, a longer one is not, and said so", () => {
    const tested = compileInputSchema({ type: "string", pattern: "a".repeat(MAX_PATTERN_LENGTH) });
    expect(tested).toMatchObject({ ok: true, untested: [] });
    if (tested.ok) expect(inputIssues(tested, "b")).toHaveLength(1);
    const long = compileInputSchema({ type: "string", pattern: "a".repeat(MAX_PATTERN_LENGTH + 1) });
    expect(long).toMatchObject({
      ok: true,
      untested: [`pattern "${"a".repeat(40)}…" is not tested (longer than ${MAX_PATTERN_LENGTH} characters)`],
    });
    if (long.ok) expect(inputIssues(long, "b")).toEqual([]);
  });

  test("a string of 1,000 characters is tested against a pattern, a longer one is not", () => {
    const compiled = compileInputSchema({ type: "string", pattern: "^a+$" });
    if (!compiled.ok) throw new Error(compiled.reason);
    expect(inputIssues(compiled, "b".repeat(MAX_PATTERN_INPUT))).toHaveLength(1);
    expect(inputIssues(compiled, "b".repeat(MAX_PATTERN_INPUT + 1))).toEqual([]);
  });

  test("the untested patterns of one schema are not carried into the next", () => {
    const first = compileInputSchema({ type: "string", pattern: "^(a+)+$" });
    const second = compileInputSchema({ type: "string", pattern: "^b+$" });
    expect(first).toMatchObject({ ok: true, untested: [expect.stringContaining("^(a+)+$")] });
    expect(second).toMatchObject({ ok: true, untested: [] });
  });

  test("a schema's accessors are left out: a getter never runs", () => {
    let ran = false;
    const schema: Record<string, unknown> = { type: "object", properties: { a: { type: "integer" } } };
    Object.defineProperty(schema, "required", { enumerable: true, get: () => ((ran = true), ["a"]) });
    const compiled = compileInputSchema(schema);
    if (!compiled.ok) throw new Error(compiled.reason);
    expect(inputIssues(compiled, {})).toEqual([]);
    expect(inputIssues(compiled, { a: "x" })).toEqual([
      {
        kind: "invalid",
        path: "/a",
        message: 'must be an integer (got "x")',
        shapeMessage: "must be an integer (got a string of 1 character)",
      },
    ]);
    expect(ran).toBe(false);
  });
});

describe("argumentsCopy", () => {
  test("own data only: accessors, holes and class instances become absent or undefined", () => {
    let ran = false;
    const args = {
      a: 1,
      get b() {
        ran = true;
        return 2;
      },
      c: [1, , 3],
      d: new (class Point {
        x = 1;
      })(),
      e: { f: "g" },
    };
    expect(argumentsCopy(args, 8)).toEqual({ a: 1, c: [1, undefined, 3], d: undefined, e: { f: "g" } });
    expect(ran).toBe(false);
  });

  test("deeper than maxDepth, a container becomes undefined", () => {
    expect(argumentsCopy({ a: { b: { c: 1 } }, x: [[1]] }, 1)).toEqual({ a: { b: undefined }, x: [undefined] });
    expect(argumentsCopy({ a: 1 }, 0)).toEqual({ a: 1 });
  });

  test("a container met twice, or a cycle, is copied once", () => {
    const shared = { k: 1 };
    const cyclic: Record<string, unknown> = { n: 1 };
    cyclic["self"] = cyclic;
    expect(argumentsCopy({ a: shared, b: shared, c: cyclic }, 8)).toEqual({ a: { k: 1 }, b: undefined, c: { n: 1, self: undefined } });
    const root: Record<string, unknown> = { n: 1 };
    root["self"] = root;
    expect(argumentsCopy(root, 8)).toEqual({ n: 1, self: undefined });
  });

  test("a __proto__ key stays an own key of the copy, and the copy is an ordinary object", () => {
    const copy = argumentsCopy(JSON.parse('{"__proto__": {"polluted": true}}'), 8) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    // An own key like any other: its value copied, and as writable, enumerable and configurable.
    expect(Object.getOwnPropertyDescriptor(copy, "__proto__")).toEqual({
      value: { polluted: true },
      writable: true,
      enumerable: true,
      configurable: true,
    });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  test("primitives are themselves", () => {
    expect(argumentsCopy("x", 8)).toBe("x");
    expect(argumentsCopy(null, 8)).toBe(null);
  });
});

describe("valueText", () => {
  test.each([
    ["a string", "Paris", '"Paris"'],
    ["a long string", "x".repeat(50), `"${"x".repeat(40)}…"`],
    ["a number", 2.5, "2.5"],
    ["a boolean", false, "false"],
    ["null", null, "null"],
    ["an object, as JSON", { a: [1] }, '{"a":[1]}'],
    ["a long array, cut", Array.from({ length: 30 }, (_, i) => i), "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,1…"],
    ["Infinity, which JSON cannot write", Infinity, "Infinity"],
    ["NaN", NaN, "NaN"],
    ["undefined", undefined, "a value"],
    ["a BigInt", 10n, "a value"],
  ])("%s", (_name, value, expected) => {
    expect(valueText(value)).toBe(expected);
  });
});
