/** The evaluator's limits (src/resolve/limits.ts): one error builder each, with the exact code, message and place. */
import { describe, expect, test } from "vitest";
import { depthLimitError, InterpolationTooLong, outputLimitError, placeholderLimitError } from "../../src/resolve/limits.js";
import { RefError } from "../../src/shared/errors.js";

describe("src/resolve/limits.ts", () => {
  test.each([
    ["maxDepth, args", () => depthLimitError("args", 3, "/a/b"), "args are nested deeper than maxDepth (3)", "/a/b"],
    [
      "maxDepth, an interpolated value",
      () => depthLimitError("interpolated value", 2),
      "interpolated value is nested deeper than maxDepth (2)",
      undefined,
    ],
    ["maxPlaceholders", () => placeholderLimitError(1, "/c"), "more than maxPlaceholders (1) placeholders in one call", "/c"],
    [
      "maxOutputLength, a template's output",
      () => outputLimitError("template output", 10),
      "template output is longer than maxOutputLength (10)",
      undefined,
    ],
    [
      "maxOutputLength, an interpolated value",
      () => outputLimitError("interpolated value", 6),
      "interpolated value is longer than maxOutputLength (6)",
      undefined,
    ],
  ])("%s: code limit, its message, its argument pointer", (_name, build, detail, arg) => {
    const error = build();
    expect(error).toBeInstanceOf(RefError);
    expect({ code: error.code, detail: error.detail, arg: error.arg }).toEqual({ code: "limit", detail, arg });
    expect(error.message).toBe(arg === undefined ? detail : `${detail}, in argument ${arg}`);
  });

  test("a template's output error carries the template and the span; an interpolated value's is InterpolationTooLong, which the template replaces", () => {
    const span = { start: 2, end: 8 };
    const output = outputLimitError("template output", 10, "x ${1.a}", span);
    expect({ ref: output.ref, span: output.span }).toEqual({ ref: "x ${1.a}", span });
    expect(output).not.toBeInstanceOf(InterpolationTooLong);
    expect(outputLimitError("interpolated value", 6)).toBeInstanceOf(InterpolationTooLong);
    expect(depthLimitError("interpolated value", 2)).not.toBeInstanceOf(InterpolationTooLong);
  });
});
