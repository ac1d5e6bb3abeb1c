/**
 * `reportFromJSON` rebuilds a `RunReport` from what `reportToJSON` gives (and `plan-refs run`
 * writes): the round trip keeps every field; anything else is refused with `invalid-report`.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { RefError, reportFromJSON, reportToJSON, runPlan, STEP_ERROR_CODES, StepError, type RunReportJSON } from "../../src/index.js";
import { UNSTORABLE_RESULTS } from "../helpers/unstorable.js";

const stepKey = fc.nat({ max: 50 }).map(String);
/** A JSON value as JSON writes it back (fast-check's may hold -0, which JSON writes as 0). */
const json = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const errorJSON = fc.record(
  {
    code: fc.constantFrom(...STEP_ERROR_CODES.filter((code) => code !== "unserializable")),
    message: fc.oneof(
      fc.string(),
      fc.tuple(fc.nat(), fc.string(), fc.string()).map(([id, tool, detail]) => `step ${id} (${tool}): ${detail}`),
    ),
    ref: fc.string(),
    arg: fc.string(),
    pointer: fc.string(),
  },
  { requiredKeys: ["code", "message"] },
);
const reportJSON: fc.Arbitrary<RunReportJSON> = fc
  .record(
    {
      runId: fc.string(),
      status: fc.constantFrom("ok", "failed", "aborted", "invalid", "suspended" as const),
      results: fc.dictionary(stepKey, json),
      errors: fc.dictionary(stepKey, errorJSON),
      skipped: fc.array(fc.nat()),
      timings: fc.record({ totalMs: fc.nat(), steps: fc.dictionary(stepKey, fc.nat()) }),
      attempts: fc.dictionary(stepKey, fc.integer({ min: 1, max: 10 })),
      planHash: fc.stringMatching(/^[0-9a-f]{64}$/),
      pending: fc.dictionary(stepKey, fc.record({ tool: fc.string(), args: fc.dictionary(fc.string(), json) }), { minKeys: 1 }),
      reused: fc.array(fc.nat(), { minLength: 1 }),
      output: json,
      outputError: errorJSON,
    },
    { requiredKeys: ["runId", "status", "results", "errors", "skipped", "timings", "attempts"] },
  )
  // A report has the plan's output or why there is none, never both.
  .map(
    ({ output, ...report }) => (report.outputError === undefined && output !== undefined ? { ...report, output } : report) as RunReportJSON,
  );

describe("reportFromJSON", () => {
  test("property: reportToJSON(reportFromJSON(json)) is json, from the object or its text", () => {
    fc.assert(
      fc.property(reportJSON, (json) => {
        expect(reportToJSON(reportFromJSON(json))).toEqual(json);
        expect(reportToJSON(reportFromJSON(JSON.stringify(json)))).toEqual(json);
      }),
    );
  });

  test("rebuilds Maps and StepErrors (code, message, tool, ref, arg, pointer) from a real run's report", async () => {
    const report = await runPlan(
      {
        steps: [
          { id: 1, tool: "a", args: {} },
          { id: 2, tool: "b", args: { q: "$1.missing" } },
          { id: 3, tool: "a", args: { x: "$2" } },
        ],
      },
      { a: () => ({ found: true }), b: () => 1 },
    );
    const back = reportFromJSON(JSON.stringify(reportToJSON(report)));
    expect(back.results).toEqual(report.results);
    expect(back.skipped).toEqual([3]);
    expect(back.planHash).toBe(report.planHash);
    const error = back.errors.get(2)!;
    expect(error).toBeInstanceOf(StepError);
    expect(error).toBeInstanceOf(RefError);
    expect(error).toMatchObject({
      code: "unresolved-args",
      message: report.errors.get(2)!.message,
      stepId: 2,
      tool: "b",
      ref: "$1.missing",
      arg: "/q",
    });
    expect(back.timings.steps.get(1)).toEqual({ startMs: 0, endMs: expect.any(Number), durationMs: expect.any(Number) });
    expect(back.attempts).toEqual(report.attempts);
  });

  test("keeps the plan's output, or its error as a StepError", async () => {
    const tools = { a: () => ({ found: true }), fail: () => Promise.reject(new Error("down")) };
    const ok = reportFromJSON(reportToJSON(await runPlan({ steps: [{ id: 1, tool: "a", args: {} }], output: { f: "$1.found" } }, tools)));
    expect(ok.output).toEqual({ f: true });
    const failed = await runPlan({ steps: [{ id: 1, tool: "fail", args: {} }], output: { f: "$1.found" } }, tools);
    const back = reportFromJSON(JSON.stringify(reportToJSON(failed)));
    expect(Object.hasOwn(back, "output")).toBe(false);
    expect(back.outputError).toBeInstanceOf(StepError);
    expect(back.outputError).toMatchObject({ code: "unresolved-output", message: failed.outputError!.message, ref: "$1.found", arg: "/f" });
    expect(() => reportFromJSON({ ...reportToJSON(failed), outputError: { code: "nope", message: "m" } })).toThrow(/outputError\.code/);
  });

  const valid = { runId: "r", status: "ok", results: {}, errors: {}, skipped: [], timings: { totalMs: 0, steps: {} }, attempts: {} };
  test.each([
    ["not JSON", "{", "not JSON"],
    ["not an object", [], "JSON must be an object"],
    ["no runId", { ...valid, runId: 1 }, "runId"],
    ["an unknown status", { ...valid, status: "done" }, "status must be one of"],
    ["results that are not keyed by step id", { ...valid, results: { "01": 1 } }, 'keyed by step ids (non-negative integers), not "01"'],
    ["results as an array", { ...valid, results: [1] }, "results must be an object keyed by step id"],
    ["an error without a known code", { ...valid, errors: { 1: { code: "boom", message: "x" } } }, 'errors["1"].code'],
    ["an error without a message", { ...valid, errors: { 1: { code: "timeout" } } }, 'errors["1"].message'],
    ["an error's ref that is not a string", { ...valid, errors: { 1: { code: "timeout", message: "m", ref: 1 } } }, 'errors["1"].ref'],
    ["skipped ids that are not ids", { ...valid, skipped: [-1] }, "skipped"],
    ["no timings", { ...valid, timings: undefined }, "timings must be"],
    ["a negative duration", { ...valid, timings: { totalMs: 0, steps: { 1: -1 } } }, 'timings.steps["1"]'],
    ["zero attempts", { ...valid, attempts: { 1: 0 } }, 'attempts["1"]'],
    ["a planHash that is not SHA-256", { ...valid, planHash: "abc" }, "planHash"],
    ["a pending step without args", { ...valid, pending: { 1: { tool: "t" } } }, 'pending["1"]'],
    ["reused ids that are not ids", { ...valid, reused: ["1"] }, "reused"],
    ["a getter (never run)", Object.defineProperty({ ...valid }, "runId", { get: () => "r", enumerable: true }), "runId"],
  ])("refuses %s (invalid-report, naming the place)", (_name, json, place) => {
    let thrown: unknown;
    try {
      reportFromJSON(json);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RefError);
    expect((thrown as RefError).code).toBe("invalid-report");
    expect((thrown as RefError).message).toContain(place);
  });

  test("a report without attempts (older JSON) reads with none", () => {
    const { attempts: _, ...old } = valid;
    expect(reportFromJSON(old).attempts).toEqual(new Map());
  });
});

describe("reportToJSON writes a result only when JSON holds it unchanged (toStorableJSON, the workers' rule)", () => {
  test.each(UNSTORABLE_RESULTS)("%s: kept in runPlan's report, refused in its JSON as unserializable", async (_name, make, reason) => {
    const report = await runPlan(
      {
        steps: [
          { id: 1, tool: "make", args: {} },
          { id: 2, tool: "make", args: {} },
        ],
      },
      { make: (_args, context) => (context.stepId === 1 ? make() : "fine") },
    );
    expect(report.status).toBe("ok");
    expect(report.results.get(1)).toEqual(make());
    const json = reportToJSON(report);
    expect(json.status).toBe("failed");
    expect(json.results).toEqual({ 2: "fine" });
    expect(json.errors).toEqual({ 1: { code: "unserializable", message: `step 1: its result cannot be stored as JSON: ${reason}` } });
  });

  test("an output JSON cannot hold unchanged is an unserializable outputError", async () => {
    const report = await runPlan({ steps: [{ id: 1, tool: "make", args: {} }], output: { kept: "$1" } }, { make: () => new Map() });
    expect(reportToJSON(report).outputError).toEqual({
      code: "unserializable",
      message: "the plan's output cannot be stored as JSON: it contains a Map (JSON writes {})",
    });
  });

  test("undefined is written as null", async () => {
    const report = await runPlan({ steps: [{ id: 1, tool: "none", args: {} }] }, { none: () => undefined });
    expect(reportToJSON(report).results).toEqual({ 1: null });
  });
});
