/**
 * `printable`, the command line's one escape rule for terminal text: nothing a terminal acts on gets
 * through, printable text is left exactly as it is, and escaping twice changes nothing.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { excerpt, printable } from "../../src/shared/text.js";

const ACTIVE =
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe("printable", () => {
  test.each([
    ["a newline and a forged line", "boom\nplan-refs: ok: 9 results", "boom\\nplan-refs: ok: 9 results"],
    ["an escape sequence", "\u001b[2K\u001b[1A", "\\u001b[2K\\u001b[1A"],
    ["the one-byte CSI", "\u009b2J", "\\u009b2J"],
    ["DEL and a line separator", "a\u007fb\u2028c", "a\\u007fb\\u2028c"],
    ["a bidirectional override", "abc\u202egnp.exe", "abc\\u202egnp.exe"],
    ["a lone surrogate", "x\ud800y", "x\\ud800y"],
    ["quotes, backslashes, accents and emoji stay as written", 'tool "fetch" \\ café 🚀', 'tool "fetch" \\ café 🚀'],
  ])("%s", (_name, text, expected) => {
    expect(printable(text)).toBe(expected);
  });

  test("property: the output holds nothing a terminal acts on, printable text is unchanged, escaping twice is escaping once", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const once = printable(text);
        expect(once).not.toMatch(ACTIVE);
        expect(printable(once)).toBe(once);
        if (!ACTIVE.test(text)) expect(once).toBe(text);
      }),
    );
  });
});

describe("excerpt", () => {
  test.each([
    ["JSON as written", '{"a":[1]}', 40, '{"a":[1]}'],
    ["exactly max characters are not cut", "abcde", 5, "abcde"],
    ["one more is cut, with an ellipsis", "abcdef", 5, "abcde…"],
    ["what a terminal acts on is escaped", "$1\u001b[2J", 60, "$1\\u001b[2J"],
    ["a pair at the limit is left out whole, never half of it escaped", "ab😀", 3, "ab…"],
  ])("%s", (_name, text, max, expected) => {
    expect(excerpt(text, max)).toBe(expected);
  });

  test("60 characters by default", () => {
    expect(excerpt("x".repeat(61))).toBe(`${"x".repeat(60)}…`);
    expect(excerpt("x".repeat(60))).toBe("x".repeat(60));
  });
});
