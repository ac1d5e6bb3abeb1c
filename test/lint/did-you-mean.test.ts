/** The linter's "did you mean" helper: the closest known name within a small edit distance. */
import { describe, expect, test } from "vitest";
import { didYouMean, editDistance } from "../../src/lint/did-you-mean.js";

describe("didYouMean", () => {
  test.each([
    ["ctiy", ["city", "country"], "city"],
    ["City", ["city"], "city"],
    ["longtitude", ["latitude", "longitude"], "longitude"],
    ["lng", ["lat", "lon"], undefined],
    ["zzz", ["city"], undefined],
    ["city", ["city"], undefined],
    ["", ["a"], "a"],
  ] as const)("%s among %j", (name, candidates, expected) => {
    expect(didYouMean(name, candidates)).toBe(expected);
  });

  test.each([
    ["", "", 0],
    ["abc", "abc", 0],
    ["ab", "ba", 1],
    ["kitten", "sitting", 3],
    ["ca", "abc", 3],
  ])("editDistance(%s, %s) = %i", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });
});
