/** The linter's "did you mean" helper: the closest known name within a small edit distance. */
import { describe, expect, test } from "vitest";
import { didYouMean, editDistance } from "../../src/lint/did-you-mean.js";

const long = (n: number, last = "a"): string => "a".repeat(n - 1) + last;

describe("didYouMean", () => {
  test.each([
    ["ctiy", ["city", "country"], "city"],
    ["City", ["city"], "city"],
    ["longtitude", ["latitude", "longitude"], "longitude"],
    ["lng", ["lat", "lon"], undefined],
    ["zzz", ["city"], undefined],
    ["city", ["city"], undefined],
    ["", ["a"], "a"],
    // One edit per three characters, at least one.
    ["ab", ["xb"], "xb"],
    ["ab", ["xy"], undefined],
    ["abcdef", ["abxyef"], "abxyef"],
    ["abcdef", ["axyzef"], undefined],
    // A length difference past the limit is not compared at all.
    ["abc", ["abcde"], undefined],
    ["abcdef", ["abcdefgh"], "abcdefgh"],
    // The name itself is skipped; a case-only difference is the closest there is.
    ["city", ["city", "City"], "City"],
    ["CITY", ["citx", "city"], "city"],
    // The first of equally close candidates wins.
    ["cat", ["cut", "cot"], "cut"],
    ["cat", ["cot", "cut"], "cot"],
    ["cat", ["dog", "cut", "cat!"], "cut"],
  ] as const)("%s among %j", (name, candidates, expected) => {
    expect(didYouMean(name, candidates)).toBe(expected);
  });

  test("names and candidates of more than 64 characters are not compared", () => {
    expect(didYouMean(long(64, "b"), [long(64)])).toBe(long(64));
    expect(didYouMean(long(65, "b"), [long(65)])).toBeUndefined();
    expect(didYouMean(long(64, "b"), [long(65)])).toBeUndefined();
  });

  test("at most 2,000 candidates are compared", () => {
    const others = Array.from({ length: 1_999 }, (_, i) => `zzzz${i}`);
    expect(didYouMean("ctiy", [...others, "city"])).toBe("city");
    expect(didYouMean("ctiy", [...others, "zzzz", "city"])).toBeUndefined();
  });

  test("what is not a string is skipped; a name that is not a string has no suggestion", () => {
    expect(didYouMean("city", [5 as unknown as string, "ctiy"])).toBe("ctiy");
    expect(didYouMean(5 as unknown as string, ["5"])).toBeUndefined();
  });

  test("candidates that cannot be iterated are a RefError", () => {
    expect(() => didYouMean("a", 5 as unknown as string[])).toThrow(expect.objectContaining({ name: "RefError" }));
  });
});

describe("editDistance", () => {
  test.each([
    ["", "", 0],
    ["abc", "abc", 0],
    ["ab", "ba", 1],
    ["ca", "ac", 1],
    ["abcd", "acbd", 1],
    ["kitten", "sitting", 3],
    ["ca", "abc", 3],
    ["", "abc", 3],
    ["abc", "", 3],
    ["abc", "abd", 1],
    ["abc", "xabc", 1],
    ["abcdef", "badcfe", 3],
  ])("editDistance(%s, %s) = %i", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });

  test.each([
    ["abcdef", "uvwxyz", 2, 3],
    ["abcdef", "uvwxyz", 5, 6],
    ["abcdef", "uvwxyz", 6, 6],
    ["abc", "abd", 1, 1],
    ["abc", "xyz", 0, 1],
  ])("editDistance(%s, %s, %i) = %i: it gives up with limit + 1", (a, b, limit, distance) => {
    expect(editDistance(a, b, limit)).toBe(distance);
  });
});
