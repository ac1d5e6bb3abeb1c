/**
 * `resolveLocalRef`, the one reader of local `$ref`s (the linter's schema walk, the editor's schema at
 * a cursor, planSchema and fromStrictOutput each decide what "not found" means).
 */
import { describe, expect, test } from "vitest";
import { resolveLocalRef } from "../../src/shared/pointer.js";

const root = {
  $defs: { day: { type: "string" }, "a/b": { type: "number" }, "c~d": true, "e f": { enum: [1] } },
  items: [{ type: "integer" }],
  sneaky: Object.defineProperty({}, "x", { get: () => ({ type: "string" }), enumerable: true }),
};

describe("resolveLocalRef", () => {
  test.each([
    ["the root", "#", root],
    ["a definition", "#/$defs/day", { type: "string" }],
    ["an escaped slash", "#/$defs/a~1b", { type: "number" }],
    ["an escaped tilde", "#/$defs/c~0d", true],
    ["a percent-encoded space", "#/$defs/e%20f", { enum: [1] }],
    ["an array index", "#/items/0", { type: "integer" }],
    ["a missing key", "#/$defs/night", undefined],
    ["past a leaf", "#/$defs/day/type/x", undefined],
    ["another document", "other.json#/$defs/day", undefined],
    ["an anchor", "#day", undefined],
    ["a bad percent escape", "#/$defs/%E0%A4%A", undefined],
    ["a getter is never run", "#/sneaky/x", undefined],
    ["an inherited key", "#/$defs/toString", undefined],
  ])("%s: %s", (_name, ref, expected) => {
    expect(resolveLocalRef(root, ref)).toEqual(expected);
  });
});
