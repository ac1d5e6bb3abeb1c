/**
 * The one decoder of JSON string escapes with file offsets (src/grammar/json-escapes.ts), below the
 * linter's positions and the editor's strings: a property over any string JSON can write, and the
 * broken strings of a document being typed.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { decodeJsonContent } from "../../src/grammar/json-escapes.js";

describe("decodeJsonContent", () => {
  test("gives back what JSON.stringify wrote, each code unit at the offset of its character or escape", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.boolean(), (value, unicodeEscapes) => {
        let text = JSON.stringify(value);
        // Also every character as \uXXXX (JSON.stringify escapes only what it must).
        if (unicodeEscapes)
          text = `"${Array.from({ length: value.length }, (_, i) => `\\u${value.charCodeAt(i).toString(16).padStart(4, "0")}`).join("")}"`;
        const decoded = decodeJsonContent(text, 1, text.length);
        expect(decoded.value).toBe(value);
        expect(decoded.end).toBe(text.length - 1);
        expect(decoded.offsets).toHaveLength(value.length + 1);
        for (let i = 0; i < value.length; i++) {
          const at = decoded.offsets[i]!;
          const width = decoded.offsets[i + 1]! - at;
          expect(JSON.parse(`"${text.slice(at, at + width)}"`)).toBe(value[i]);
        }
      }),
    );
  });

  test.each([
    ["an unterminated string ends at the limit", '"ab', 3, { value: "ab", end: 3 }],
    ["an invalid escape is kept as written", '"\\x"', 4, { value: "\\x", end: 3 }],
    ["a \\u with too few hex digits is kept as written", '"\\u12"', 6, { value: "\\u12", end: 5 }],
    ["a backslash at the limit is kept", '"a\\', 3, { value: "a\\", end: 3 }],
  ])("%s", (_name, text, limit, expected) => {
    expect(decodeJsonContent(text, 1, limit)).toMatchObject(expected);
  });
});
