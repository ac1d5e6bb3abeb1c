/**
 * A plan's `output` resolved when its run ends (src/step/plan-output.ts), called as both executors
 * call it: the value, or the `unresolved-output` error with the exact detail that names what happened
 * to a step the output needed (failed, skipped, or no result yet: a step still waiting for approval).
 */
import { describe, expect, test } from "vitest";
import { KeyError, RefError } from "../../src/shared/errors.js";
import { normalizeOptions } from "../../src/shared/options.js";
import { resolveOutput } from "../../src/step/plan-output.js";
import { OUTPUT_STEP_ID, StepError } from "../../src/step/step-error.js";

const options = normalizeOptions(undefined);
const none = new Map<number, StepError>();

function failed(id: number, code: "tool-error" | "invalid-output" = "tool-error"): Map<number, StepError> {
  return new Map([[id, new StepError(code, id, "echo", "down")]]);
}

/** The error of an outcome, or a test failure when there is none. */
function outputError(outcome: ReturnType<typeof resolveOutput>): StepError {
  if (!("outputError" in outcome)) throw new Error(`expected an outputError, got ${JSON.stringify(outcome)}`);
  return outcome.outputError;
}

describe("resolveOutput", () => {
  test("resolves against the results, literals pass through", () => {
    const results = new Map<number, unknown>([
      [1, { city: "Oslo" }],
      [2, "sunny"],
    ]);
    expect(resolveOutput({ city: "$1.city", sky: "$2", n: 3 }, results, none, [], options)).toEqual({
      output: { city: "Oslo", sky: "sunny", n: 3 },
    });
  });

  test("a step that failed is missing to it, even with a result left (an invalid output's); a ?? default stands in", () => {
    const results = new Map<number, unknown>([
      [1, "kept"],
      [2, "not a number"],
    ]);
    const outcome = resolveOutput(
      { a: "$1", b: '$2 ?? "none"' },
      results,
      failed(2, "invalid-output"),
      [],
      normalizeOptions({ syntax: "path" }),
    );
    expect(outcome).toEqual({ output: { a: "kept", b: "none" } });
  });

  test.each([
    [
      "a step that failed, with its code",
      { b: "$2" },
      failed(2),
      [],
      "the plan's output: it refers to step 2 (at /b), which failed (tool-error)",
    ],
    [
      "a step that failed its output schema: its result is not used",
      { value: "$2" },
      failed(2, "invalid-output"),
      [],
      "the plan's output: it refers to step 2 (at /value), which failed (invalid-output)",
    ],
    ["a step that was skipped", { c: "$3" }, none, [3], "the plan's output: it refers to step 3 (at /c), which was skipped"],
    [
      "a step with no result that neither failed nor was skipped (it waits for approval): the resolver's own words",
      { d: "$4" },
      none,
      [3],
      "the plan's output: it could not be resolved: $4: no result for step 4 (steps with results: 1, 2), in argument /d",
    ],
    [
      "a missing key of a step that succeeded: the resolver's own words",
      { e: "$1.town" },
      failed(2),
      [3],
      "the plan's output: it could not be resolved: $1.town: step 1's result has no key \"town\" (keys: city), in argument /e",
    ],
  ] as const)("%s", (_name, output, errors, skipped, message) => {
    const results = new Map<number, unknown>([
      [1, { city: "Oslo" }],
      [2, "left by the failed step"],
    ]);
    const error = outputError(resolveOutput(output, results, errors, skipped, options));
    expect(error).toBeInstanceOf(StepError);
    expect(error.code).toBe("unresolved-output");
    expect(error.stepId).toBe(OUTPUT_STEP_ID);
    expect(error.tool).toBe("");
    expect(error.message).toBe(message);
    expect(error.cause).toBeInstanceOf(KeyError);
    expect(error.arg).toBe(`/${Object.keys(output)[0]}`);
  });

  test("an output that could not be read (its RefError) is the error, whatever the results", () => {
    const unreadable = new RefError("access", "output: a getter at /a is not plain data", { arg: "/a" });
    const error = outputError(resolveOutput(unreadable, new Map([[1, 1]]), none, [], options));
    expect(error).toBeInstanceOf(StepError);
    expect(error.code).toBe("unresolved-output");
    expect(error.stepId).toBe(OUTPUT_STEP_ID);
    expect(error.tool).toBe("");
    expect(error.message).toBe("the plan's output: it could not be read: output: a getter at /a is not plain data, in argument /a");
    expect(error.cause).toBe(unreadable);
    expect(error.arg).toBe("/a");
  });

  test("the results it was given are not changed by leaving out the failed steps", () => {
    const results = new Map<number, unknown>([
      [1, "a"],
      [2, "b"],
    ]);
    resolveOutput({ a: "$1" }, results, failed(2), [], options);
    expect([...results]).toEqual([
      [1, "a"],
      [2, "b"],
    ]);
  });
});
