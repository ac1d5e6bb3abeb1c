/**
 * The executor's error (src/step/step-error.ts): a `RefError` named `StepError`, its message for a step
 * and for the plan's output, its cause, and the place (`ref`, `arg`, `span`) copied from the cause of an
 * `unresolved-args` or `unresolved-output` error only.
 */
import { describe, expect, test } from "vitest";
import { KeyError, RefError } from "../../src/shared/errors.js";
import { OUTPUT_STEP_ID, STEP_ERROR_CODES, StepError } from "../../src/step/step-error.js";

const keyError = (): KeyError =>
  new KeyError("missing-key", '$1.town: step 1\'s result has no key "town"', {
    step: 1,
    stepText: "1",
    key: "town",
    ref: "$1.town",
    arg: "/q",
    span: { start: 3, end: 7 },
  });

describe("StepError", () => {
  test.each([
    ["a step", 2, "search", "it threw: down", "step 2 (search): it threw: down"],
    [
      "the plan's output, whatever the tool",
      OUTPUT_STEP_ID,
      "",
      "it refers to step 2 (at /b), which was skipped",
      "the plan's output: it refers to step 2 (at /b), which was skipped",
    ],
  ] as const)("its message names %s", (_name, stepId, tool, detail, message) => {
    const error = new StepError("tool-error", stepId, tool, detail);
    expect(error).toBeInstanceOf(RefError);
    expect(error.name).toBe("StepError");
    expect(String(error)).toBe(`StepError: ${message}`);
    expect(error.message).toBe(message);
    expect(error.code).toBe("tool-error");
    expect(error.stepId).toBe(stepId);
    expect(error.tool).toBe(tool);
  });

  test("a cause is kept as the error's cause; without one there is no cause at all", () => {
    const cause = new Error("down");
    expect(new StepError("tool-error", 1, "t", "it threw", cause).cause).toBe(cause);
    expect(Object.hasOwn(new StepError("tool-error", 1, "t", "it threw"), "cause")).toBe(false);
  });

  test.each([
    ["unresolved-args", 3, { ref: "$1.town", arg: "/q", span: { start: 3, end: 7 } }],
    ["unresolved-output", OUTPUT_STEP_ID, { ref: "$1.town", arg: "/q", span: { start: 3, end: 7 } }],
    ["tool-error", 3, { ref: undefined, arg: undefined, span: undefined }],
    ["invalid-input", 3, { ref: undefined, arg: undefined, span: undefined }],
  ] as const)("%s: the place of a RefError cause is copied only for the resolution codes", (code, stepId, place) => {
    const error = new StepError(code, stepId, "t", "it could not be resolved", keyError());
    expect({ ref: error.ref, arg: error.arg, span: error.span }).toEqual(place);
  });

  test("a cause that is no RefError gives no place", () => {
    const error = new StepError("unresolved-args", 3, "t", "no", Object.assign(new Error("x"), { ref: "$1", arg: "/a" }));
    expect({ ref: error.ref, arg: error.arg, span: error.span }).toEqual({ ref: undefined, arg: undefined, span: undefined });
  });

  test("a cause that looks like a RefError but throws when read (a Proxy) gives no place, never a throw", () => {
    const hostile = new Proxy(keyError(), {
      get() {
        throw new Error("no reading");
      },
    });
    const error = new StepError("unresolved-args", 3, "t", "no", hostile);
    expect({ ref: error.ref, arg: error.arg, span: error.span }).toEqual({ ref: undefined, arg: undefined, span: undefined });
    expect(error.message).toBe("step 3 (t): no");
  });

  test("every code is accepted and kept", () => {
    for (const code of STEP_ERROR_CODES) expect(new StepError(code, 1, "t", "x").code).toBe(code);
    expect(new Set(STEP_ERROR_CODES).size).toBe(STEP_ERROR_CODES.length);
  });
});
