/**
 * The linter's JSON Schema walker: what a schema says about a path of keys and indexes (an
 * unknown key, a value that cannot be indexed, the types at the end), and where it stays silent.
 */
import { describe, expect, test } from "vitest";
import { walkSchema } from "../../src/lint/index.js";

describe("walkSchema", () => {
  const object = (properties: Record<string, unknown>, closed = true) => ({ type: "object", properties, ...(closed ? { additionalProperties: false } : {}) });
  test.each([
    ["an open object allows any key", object({ a: {} }, false), [{ kind: "key", name: "b" }], { ok: true, types: null }],
    ["a closed object refuses an unknown key", object({ a: {} }), [{ kind: "key", name: "b" }], { ok: false, at: 0, code: "unknown-key", keys: ["a"], types: null }],
    ["additionalProperties false without properties says nothing", { type: "object", additionalProperties: false }, [{ kind: "key", name: "b" }], { ok: true, types: null }],
    ["patternProperties make it open", { ...object({ a: {} }), patternProperties: { "^x": {} } }, [{ kind: "key", name: "b" }], { ok: true, types: null }],
    ["a $ref next to properties makes it open", { ...object({ a: {} }), $ref: "#/$defs/x", $defs: { x: {} } }, [{ kind: "key", name: "b" }], { ok: true, types: null }],
    ["a key on a string", { type: "string" }, [{ kind: "key", name: "b" }], { ok: false, at: 0, code: "not-indexable", keys: [], types: new Set(["string"]) }],
    ["an index on an object", { type: "object" }, [{ kind: "index", index: 0 }], { ok: false, at: 0, code: "not-indexable", keys: [], types: new Set(["object"]) }],
    ["type from const", { const: 3 }, [], { ok: true, types: new Set(["integer"]) }],
    ["type from enum", { enum: ["a", null] }, [], { ok: true, types: new Set(["string", "null"]) }],
    ["nullable string cannot take a key", { type: ["string", "null"] }, [{ kind: "key", name: "x" }], { ok: false, at: 0, code: "not-indexable", keys: [], types: new Set(["string", "null"]) }],
    ["an object-or-null can take a key", { type: ["object", "null"] }, [{ kind: "key", name: "x" }], { ok: true, types: null }],
    ["a remote $ref is unknown", { $ref: "https://example.com/s.json" }, [{ kind: "key", name: "x" }], { ok: true, types: null }],
    ["$ref to #/definitions", { $ref: "#/definitions/d", definitions: { d: { type: "number" } } }, [], { ok: true, types: new Set(["number"]) }],
    ["$ref with a percent-encoded name", { $ref: "#/$defs/a%20b", $defs: { "a b": { type: "boolean" } } }, [], { ok: true, types: new Set(["boolean"]) }],
    ["a $ref cycle ends as unknown", { $ref: "#" }, [{ kind: "key", name: "x" }], { ok: true, types: null }],
    ["draft-07 tuple items", { type: "array", items: [{ type: "string" }], additionalItems: false }, [{ kind: "index", index: 1 }], { ok: false, at: 0, code: "unknown-key", keys: [], maxItems: 1, types: null }],
    ["oneOf types are a union", { oneOf: [{ type: "string" }, { type: "integer" }] }, [], { ok: true, types: new Set(["string", "integer"]) }],
    ["allOf types are an intersection", { allOf: [{ type: ["string", "number"] }, { type: ["integer", "null"] }] }, [], { ok: true, types: new Set(["integer"]) }],
    ["contradictory types say nothing", { allOf: [{ type: "string" }, { type: "number" }] }, [], { ok: true, types: null }],
    ["a boolean schema allows anything", true, [{ kind: "key", name: "x" }], { ok: true, types: null }],
    ["garbage is not a schema", "nonsense", [{ kind: "key", name: "x" }], { ok: true, types: null }],
  ] as const)("%s", (_name, schema, path, expected) => {
    expect(walkSchema(schema, path)).toEqual(expected);
  });

  test("a schema with thousands of anyOf branches stays within its budget", () => {
    const schema = { anyOf: Array.from({ length: 50_000 }, () => ({ type: "object", properties: { a: {} }, additionalProperties: false })) };
    expect(walkSchema(schema, [{ kind: "key", name: "b" }]).ok).toBe(true);
  });
});
