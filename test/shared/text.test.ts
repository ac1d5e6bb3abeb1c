/**
 * `cutText` and `textTail`, the one cutting rule of every message and excerpt: a cut never splits a
 * surrogate pair, so no message ends (or starts) in half a character the text did not have.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { cutText, excerpt, quoted, safeText, textTail, valueKind, valueShape } from "../../src/shared/text.js";
import { revokedProxy } from "../helpers/hostile.js";

/** The places of the lone surrogates of a text (half a pair with no other half). */
function loneAt(text: string): number[] {
  const places: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const high = unit >= 0xd800 && unit <= 0xdbff;
    const low = unit >= 0xdc00 && unit <= 0xdfff;
    const next = text.charCodeAt(i + 1);
    const previous = text.charCodeAt(i - 1);
    if ((high && !(next >= 0xdc00 && next <= 0xdfff)) || (low && !(previous >= 0xd800 && previous <= 0xdbff))) places.push(i);
  }
  return places;
}

describe("cutText", () => {
  test.each([
    ["short enough: as it is, no marker", "abc", 3, "…", "abc"],
    ["cut, with the marker", "abcdef", 3, "…", "abc…"],
    ["cut, no marker by default", "abcdef", 3, undefined, "abc"],
    ["a pair at the limit is kept whole or left out", "ab😀c", 3, "…", "ab…"],
    ["a pair before the limit is kept", "ab😀c", 4, "…", "ab😀…"],
    ["a lone high surrogate of the text itself stays", "ab\ud83dxy", 3, "…", "ab\ud83d…"],
    ["a limit of 0", "abc", 0, "…", "…"],
    ["a pair at the very start and a limit of 1", "😀", 1, "…", "…"],
  ])("%s", (_name, text, max, marker, expected) => {
    expect(cutText(text, max, marker)).toBe(expected);
  });

  test("property: for any string and limit, the cut is a prefix of at most the limit, with no lone surrogate the text did not have, and one short of the limit at worst", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.nat({ max: 64 }), fc.constantFrom("", "…", " [cut]"), (text, max, marker) => {
        const cut = cutText(text, max, marker);
        if (text.length <= max) return void expect(cut).toBe(text);
        expect(cut.endsWith(marker)).toBe(true);
        const kept = cut.slice(0, cut.length - marker.length);
        expect(text.startsWith(kept)).toBe(true);
        expect(cut.length).toBeLessThanOrEqual(max + marker.length);
        expect(kept.length).toBeGreaterThanOrEqual(max - 1);
        const lone = new Set(loneAt(text));
        for (const place of loneAt(kept)) expect(lone.has(place), `${JSON.stringify(text)} at ${place}`).toBe(true);
      }),
    );
  });

  test("property: textTail keeps a suffix of at most the limit, with no lone surrogate the text did not have", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.nat({ max: 64 }), (text, max) => {
        const tail = textTail(text, max);
        expect(text.endsWith(tail)).toBe(true);
        expect(tail.length).toBeLessThanOrEqual(max);
        expect(tail.length).toBeGreaterThanOrEqual(Math.min(text.length, max) - 1);
        const offset = text.length - tail.length;
        const lone = new Set(loneAt(text));
        for (const place of loneAt(tail)) expect(lone.has(place + offset)).toBe(true);
      }),
    );
  });

  test("the escaping cuts go through it: an emoji at the limit is left out whole, never escaped as half a pair", () => {
    const text = "😀".repeat(40);
    for (const shown of [safeText(text, 7), quoted(text, 7), excerpt(text, 7)]) {
      expect(shown).not.toMatch(/\\ud83d|[\ud800-\udbff](?![\udc00-\udfff])/);
      expect(shown).toContain("😀😀😀…");
    }
  });
});

describe("valueShape: a value's kind and size, none of its content", () => {
  test.each([
    ["a string of 20 characters", "sk-SECRET-0123456789"],
    ["a string of 1 character", "x"],
    ["an empty string", ""],
    ["a number", 42],
    ["a boolean", false],
    ["null", null],
    ["no value", undefined],
    ["a bigint", 10n],
    ["an array of 2 items", [1, "secret"]],
    ["an empty array", []],
    ["an object with 3 keys", { a: 1, b: 2, c: 3 }],
    ["an object with 1 key", { k: "secret" }],
    ["an empty object", {}],
    ["a function", () => "secret"],
    [
      "an object",
      new Proxy(
        {},
        {
          ownKeys: () => {
            throw new Error("trap");
          },
        },
      ),
    ],
    // Not plain data: its kind alone (valueKind), no size.
    ["a Map", new Map([[1, "secret"]])],
    ["a Date", new Date(0)],
    [
      "a class instance",
      new (class Point {
        x = 1;
      })(),
    ],
    ["an unreadable object", revokedProxy()],
  ])("%s", (shape, value) => {
    expect(valueShape(value)).toBe(shape);
  });
});

describe("valueKind: a value's kind in messages", () => {
  test.each([
    ["null", null],
    ["undefined", undefined],
    ["a string", "s"],
    ["a number", 1],
    ["a boolean", true],
    ["a bigint", 5n],
    ["a symbol", Symbol("s")],
    ["a function", () => 1],
    ["an array", [1]],
    ["a Map", new Map()],
    ["a Date", new Date(0)],
    ["an object", { a: 1 }],
    ["an object", Object.create(null) as object],
    [
      "a class instance",
      new (class Thing {
        a = 1;
      })(),
    ],
    ["a class instance", new Set()],
    ["an unreadable object", revokedProxy()],
  ])("%s", (described, value) => {
    expect(valueKind(value)).toBe(described);
  });
});
