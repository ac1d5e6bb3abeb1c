/**
 * The linter's JSON Schema walker: what a schema says about a path of keys and indexes (an
 * unknown key, a value that cannot be indexed, the types at the end), and where it stays silent.
 * The rows are in test/cases/schema-walk.json; type sets are compared as sorted arrays.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { walkSchema, type JsonType, type PathStep, type TypeSet, type WalkOutcome } from "../../src/lint/index.js";
import { declaredKeys, describeTypes, intersectTypes, typeOfValue, unionTypes } from "../../src/lint/schema-walk.js";

type Types = JsonType[] | null;
interface Cases {
  readonly walk: { name: string; schema: unknown; path: PathStep[]; expected: Omit<WalkOutcome, "types"> & { types: Types } }[];
  readonly declaredKeys: { name: string; schema: unknown; expected: string[] }[];
  readonly describeTypes: { types: Types; expected: string }[];
  readonly intersectTypes: { a: JsonType[]; b: JsonType[]; expected: JsonType[] }[];
  readonly unionTypes: { sets: Types[]; expected: Types }[];
  readonly typeOfValue: { value: unknown; expected: JsonType }[];
}

const cases = JSON.parse(readFileSync(new URL("../cases/schema-walk.json", import.meta.url), "utf8")) as Cases;
const sorted = (types: TypeSet): Types => (types === null ? null : [...types].sort());
const set = (types: Types): TypeSet => (types === null ? null : new Set(types));

describe("walkSchema", () => {
  test.each(cases.walk)("$name", ({ schema, path, expected }) => {
    const outcome = walkSchema(schema, path);
    expect({ ...outcome, types: sorted(outcome.types) }).toEqual(expected);
    // The outcome is exactly these fields: no undefined members (diagnostics are built from them).
    expect(Object.keys(outcome)).toEqual(Object.keys(expected));
  });

  test("a schema with thousands of anyOf branches stays within its budget", () => {
    const schema = {
      anyOf: Array.from({ length: 50_000 }, () => ({ type: "object", properties: { a: {} }, additionalProperties: false })),
    };
    expect(walkSchema(schema, [{ kind: "key", name: "b" }]).ok).toBe(true);
  });

  test("within the budget a closed object deep in allOf is still seen", () => {
    const schema = {
      allOf: Array.from({ length: 900 }, () => ({})).concat([{ type: "object", properties: { a: {} }, additionalProperties: false }]),
    };
    expect(walkSchema(schema, [{ kind: "key", name: "b" }])).toMatchObject({ ok: false, code: "unknown-key" });
  });

  test("a path that is not an array, or a schema that throws, is a RefError", () => {
    expect(() => walkSchema({}, "a" as unknown as PathStep[])).toThrow(expect.objectContaining({ name: "RefError", code: "invalid-args" }));
    const trap = new Proxy(
      {},
      {
        getOwnPropertyDescriptor: () => {
          throw new Error("trap");
        },
      },
    );
    expect(() => walkSchema(trap, [{ kind: "key", name: "a" }])).toThrow(expect.objectContaining({ name: "RefError" }));
  });
});

describe("declaredKeys", () => {
  test.each(cases.declaredKeys)("$name", ({ schema, expected }) => {
    expect([...declaredKeys(schema)].sort()).toEqual(expected);
  });

  test("a schema that throws declares what was read before it", () => {
    const trap = new Proxy(
      {},
      {
        getOwnPropertyDescriptor: () => {
          throw new Error("trap");
        },
      },
    );
    expect([...declaredKeys({ properties: { a: {} }, allOf: [trap, { properties: { b: {} } }] })]).toEqual(["a"]);
  });

  test("thousands of branches stay within the budget", () => {
    const schema = { anyOf: Array.from({ length: 5_000 }, (_, i) => ({ properties: { [`k${i}`]: {} } })) };
    const keys = declaredKeys(schema);
    expect(keys.size).toBeGreaterThan(0);
    expect(keys.size).toBeLessThan(1_000);
  });
});

describe("type helpers", () => {
  test.each(cases.describeTypes)("describeTypes($types) is $expected", ({ types, expected }) => {
    expect(describeTypes(set(types))).toBe(expected);
  });
  test.each(cases.intersectTypes)("intersectTypes($a, $b) is $expected", ({ a, b, expected }) => {
    expect([...intersectTypes(new Set(a), new Set(b))].sort()).toEqual(expected);
  });
  test.each(cases.unionTypes)("unionTypes($sets) is $expected", ({ sets, expected }) => {
    expect(sorted(unionTypes(sets.map(set)))).toEqual(expected);
  });
  test.each(cases.typeOfValue)("typeOfValue($value) is $expected", ({ value, expected }) => {
    expect(typeOfValue(value)).toBe(expected);
  });
  test("a BigInt is an integer", () => {
    expect(typeOfValue(10n)).toBe("integer");
  });
});
