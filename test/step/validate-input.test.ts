/**
 * `validateInputs`: a step's resolved arguments against its tool's input schema, before the call
 * (src/step/validate-input.ts): a mismatch fails the step with `invalid-input`, the tool is not
 * called and its dependents are skipped; without the option the tool is called as before.
 */
import { describe, expect, test } from "vitest";
import { runPlan, type ToolFunction } from "../../src/run/run-plan.js";
import { StepError } from "../../src/step/step-error.js";
import { checksInputs, inputFailure, inputMismatch } from "../../src/step/validate-input.js";

const catalog = {
  parse: {},
  add: {
    input: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
      additionalProperties: false,
    },
  },
};

// Step 1's result is not known to the linter (no output schema), so only the run can see "three".
const plan = {
  steps: [
    { id: 1, tool: "parse", args: {} },
    { id: 2, tool: "add", args: { a: "$1.n", b: 2 } },
    { id: 3, tool: "add", args: { a: "$2", b: 1 } },
  ],
};

function tools(calls: string[]): Record<string, ToolFunction> {
  return {
    parse: () => ({ n: "three" }),
    add: (args) => {
      calls.push(JSON.stringify(args));
      return (args["a"] as number) + (args["b"] as number);
    },
  };
}

describe("runPlan with validateInputs", () => {
  test("a resolved argument that breaks the input schema fails the step, the tool is not called, dependents are skipped", async () => {
    const calls: string[] = [];
    const report = await runPlan(plan, tools(calls), { catalog, validateInputs: true });
    expect(report.status).toBe("failed");
    const error = report.errors.get(2);
    expect(error).toBeInstanceOf(StepError);
    expect(error?.code).toBe("invalid-input");
    expect(error?.message).toBe('step 2 (add): its arguments do not match the input schema: /a must be a number (got "three")');
    expect(calls).toEqual([]);
    expect(report.skipped).toEqual([3]);
  });

  test("without it the tool is called with what it was given", async () => {
    const calls: string[] = [];
    const report = await runPlan(plan, tools(calls), { catalog });
    expect(report.errors.size).toBe(0);
    expect(calls[0]).toBe('{"a":"three","b":2}');
  });

  test("arguments that fit run as before", async () => {
    const calls: string[] = [];
    const report = await runPlan({ steps: [{ id: 1, tool: "add", args: { a: 1, b: 2 } }] }, tools(calls), {
      catalog,
      validateInputs: true,
    });
    expect(report.status).toBe("ok");
    expect(report.results.get(1)).toBe(3);
  });
});

describe("inputMismatch", () => {
  test.each([
    ["a missing argument", { a: 1 }, '/ needs "b"'],
    ["an argument the schema does not allow", { a: 1, b: 2, c: 3 }, '"/c" is not an argument the schema allows'],
    ["several mistakes, each with its pointer", { a: "x", b: "y" }, '/a must be a number (got "x"); /b must be a number (got "y")'],
  ])("%s", (_name, args, detail) => {
    expect(inputMismatch(catalog, "add", args)?.detail).toBe(`its arguments do not match the input schema: ${detail}`);
  });

  test("the detail without values: each value the detail quotes reduced to its shape, the rest the same", () => {
    expect(inputMismatch(catalog, "add", { a: "sk-SECRET-0123456789", b: [1, 2], c: 3 })).toEqual({
      detail:
        'its arguments do not match the input schema: "/c" is not an argument the schema allows; /a must be a number (got "sk-SECRET-0123456789"); /b must be a number (got [1,2])',
      detailWithoutValues:
        'its arguments do not match the input schema: "/c" is not an argument the schema allows; /a must be a number (got a string of 20 characters); /b must be a number (got an array of 2 items)',
    });
  });

  test("no catalog, no such tool, no input schema, or one that cannot be compiled: nothing to say", () => {
    expect(inputMismatch(undefined, "add", {})).toBeUndefined();
    expect(inputMismatch(catalog, "other", {})).toBeUndefined();
    expect(inputMismatch({ add: {} }, "add", {})).toBeUndefined();
    expect(inputMismatch({ add: { input: { $ref: "#/nowhere" } } }, "add", {})).toBeUndefined();
  });
});

describe("inputMismatch, each kind of schema and mistake", () => {
  const numbers = Object.fromEntries(["a", "b", "c", "d", "e"].map((name) => [name, { type: "number" }]));
  const PREFIX = "its arguments do not match the input schema: ";
  test.each([
    [
      "false: no arguments fit",
      false,
      { a: 1 },
      '/ is not allowed by the schema (got {"a":1})',
      "/ is not allowed by the schema (got an object with 1 key)",
    ],
    ["true: any arguments fit", true, { a: 1 }, undefined, undefined],
    [
      "several names missing, all in one issue",
      { type: "object", required: ["a", "b", "c"] },
      {},
      '/ needs "a", "b", "c"',
      '/ needs "a", "b", "c"',
    ],
    [
      "a mistake of the arguments as a whole is at /",
      { type: "object", minProperties: 2 },
      { a: 1 },
      '/ must NOT have fewer than 2 properties (got {"a":1})',
      "/ must NOT have fewer than 2 properties (got an object with 1 key)",
    ],
    [
      "past three mistakes, the first three and how many more",
      { type: "object", properties: numbers },
      { a: "1", b: "2", c: "3", d: "4", e: "5" },
      '/a must be a number (got "1"); /b must be a number (got "2"); /c must be a number (got "3") (and 2 more)',
      "/a must be a number (got a string of 1 character); /b must be a number (got a string of 1 character); /c must be a number (got a string of 1 character) (and 2 more)",
    ],
    [
      "exactly three mistakes: no more to count",
      { type: "object", properties: numbers },
      { a: "1", b: "2", c: "3" },
      '/a must be a number (got "1"); /b must be a number (got "2"); /c must be a number (got "3")',
      "/a must be a number (got a string of 1 character); /b must be a number (got a string of 1 character); /c must be a number (got a string of 1 character)",
    ],
  ] as const)("%s", (_name, input, args, detail, detailWithoutValues) => {
    expect(inputMismatch({ tool: { input } }, "tool", args)).toEqual(
      detail === undefined ? undefined : { detail: PREFIX + detail, detailWithoutValues: PREFIX + detailWithoutValues },
    );
  });

  test.each([
    ["a string", "an object"],
    ["a number", 5],
    ["null", null],
    ["an array", [{ type: "object" }]],
  ] as const)("an input that is no schema (%s) checks nothing: the linter reports it", (_name, input) => {
    expect(inputMismatch({ tool: { input } }, "tool", { a: 1 })).toBeUndefined();
  });

  test.each([
    ["an Error: its message", new Error("no keys"), "its arguments could not be read: no keys"],
    ["anything else: no text of it", "secret", "its arguments could not be read: unknown error"],
  ])("arguments that cannot be read (a Proxy that throws) are a mismatch, never a throw: %s", (_name, thrown, detail) => {
    const args = new Proxy(
      {},
      {
        ownKeys() {
          throw thrown;
        },
      },
    );
    expect(inputMismatch({ tool: { input: { type: "object" } } }, "tool", args)).toEqual({ detail, detailWithoutValues: detail });
  });
});

describe("the input check both executors decide with", () => {
  test.each([
    ["the run asked", true, false, true],
    ["the executor asked (a worker's own validateInputs)", undefined, true, true],
    ["neither", false, false, false],
    ["a stored value that is not true", "yes", false, false],
  ])("checksInputs: %s", (_name, run, executor, on) => {
    expect(checksInputs(run, executor)).toBe(on);
  });

  const catalog = { add: { input: { type: "object", required: ["b"] } } };
  test("inputFailure: invalid-input when on and the arguments do not fit; nothing when off or when they fit", () => {
    expect(inputFailure(true, catalog, "add", { a: 1 })).toEqual({
      code: "invalid-input",
      detail: 'its arguments do not match the input schema: / needs "b"',
      detailWithoutValues: 'its arguments do not match the input schema: / needs "b"',
    });
    expect(inputFailure(false, catalog, "add", { a: 1 })).toBeUndefined();
    expect(inputFailure(true, catalog, "add", { b: 1 })).toBeUndefined();
  });
});
