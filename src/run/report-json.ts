/**
 * A run's report as JSON data: what `plan-refs run` prints. `JSON.stringify(report)` would lose the
 * results and errors (they are `Map`s), can throw (a result with a cycle or a BigInt) and silently
 * changes what it writes (a Map as `{}`, a Date as a string); this never throws, and a result JSON
 * cannot hold unchanged becomes that step's error rather than losing every result.
 */
import { isPlainArray, isPlainObject, ownData, ownDataEntries, ownElements } from "../shared/own-data.js";
import { describeThrown, RefError } from "../shared/errors.js";
import { cutText, safeText } from "../shared/text.js";
import type { PendingStep, RunReport, StepTiming } from "../step/report.js";
import { STEP_FAILURES } from "../step/attempt.js";
import { toStorableJSON } from "../step/storable.js";
import { OUTPUT_STEP_ID, STEP_ERROR_CODES, StepError, type StepErrorCode } from "../step/step-error.js";

/** A step's error as JSON: `code` and `message`, and where it happened when that is known. */
export interface StepErrorJSON {
  readonly code: string;
  readonly message: string;
  readonly ref?: string;
  readonly arg?: string;
  readonly pointer?: string;
}

/** The JSON form of a `RunReport`. Step ids are the keys of `results`, `errors` and `timings.steps`. */
export interface RunReportJSON {
  readonly runId: string;
  readonly status: RunReport["status"];
  /** Every result produced, as JSON (a result of `undefined` is written as `null`). */
  readonly results: Record<string, unknown>;
  readonly errors: Record<string, StepErrorJSON>;
  readonly skipped: number[];
  /** Milliseconds, rounded. */
  readonly timings: { readonly totalMs: number; readonly steps: Record<string, number> };
  /** Tries of each step that started (1 without retries). */
  readonly attempts: Record<string, number>;
  /** The plan's resolved `output`, as JSON, when it has one that could be resolved. */
  readonly output?: unknown;
  /** Why the plan's `output` could not be resolved (or written as JSON). */
  readonly outputError?: StepErrorJSON;
  /** The plan's hash (`RunReport.planHash`): what `resumePlan` checks. */
  readonly planHash?: string;
  /** Steps waiting for approval, with their tools and resolved arguments (written when some wait). */
  readonly pending?: Record<string, PendingStep>;
  /** Steps whose results a resume took from the previous report (written when there are some). */
  readonly reused?: number[];
}

/**
 * The report as plain JSON data (the form `plan-refs run` writes and the plan tools answer with):
 * results and errors keyed by step id. A result is written only when JSON holds it unchanged, by the
 * rule the PostgreSQL workers store results by (`toStorableJSON`): a Map, a Set, a Date, NaN, an
 * infinity, a class instance, an array hole, a getter, a BigInt, a cycle, a function or a symbol is
 * left out of `results` and reported in `errors` as the workers report it, code `unserializable` with
 * their detail (`step 2: its result cannot be stored as JSON: it contains a Map (JSON writes {})`; the
 * report does not keep tools, so the step is named by its id); the status is then `failed` (if it was
 * `ok`). `runPlan`'s in-memory report keeps such a value (its dependents got it too, in the process);
 * only its JSON forms refuse it. A result of `undefined` is written as `null`. Never throws.
 *
 * @example
 * const report = await runPlan({ steps: [{ id: 1, tool: "now", args: {} }] }, { now: () => new Date() });
 * report.results.get(1) instanceof Date // true
 * reportToJSON(report).errors[1]?.code // "unserializable"
 * JSON.stringify(reportToJSON(report)) // always works, unlike JSON.stringify(report)
 */
export function reportToJSON(report: RunReport): RunReportJSON {
  const results: Record<string, unknown> = {};
  const errors: Record<string, StepErrorJSON> = {};
  for (const [id, error] of report.errors) errors[String(id)] = stepErrorJSON(error);
  for (const [id, value] of report.results) {
    const written = storedJSON(value);
    if (written.ok) {
      results[String(id)] = written.value;
    } else if (errors[String(id)] === undefined) {
      const failure = STEP_FAILURES.unserializable(written.reason);
      errors[String(id)] = { code: failure.code, message: `step ${id}: ${failure.detail}` };
    }
  }
  const unserializable = Object.values(errors).some((error) => error.code === "unserializable");
  return {
    runId: report.runId,
    status: report.status === "ok" && unserializable ? "failed" : report.status,
    // Step ids are non-negative integers: an object keyed by them lists them in numeric order.
    results,
    errors,
    skipped: [...report.skipped],
    timings: {
      totalMs: Math.round(report.timings.totalMs),
      steps: Object.fromEntries([...report.timings.steps].map(([id, timing]) => [String(id), Math.round(timing.durationMs)])),
    },
    attempts: Object.fromEntries([...(report.attempts ?? [])].map(([id, tries]) => [String(id), tries])),
    ...(report.planHash === undefined ? {} : { planHash: report.planHash }),
    ...(report.pending === undefined || report.pending.size === 0 ? {} : { pending: pendingJSON(report.pending) }),
    ...(report.reused === undefined || report.reused.length === 0 ? {} : { reused: [...report.reused] }),
    ...outputJSON(report),
  };
}

/** The report's output as JSON, or its error; an output JSON cannot write is an `unserializable` error. */
function outputJSON(report: RunReport): { output?: unknown; outputError?: StepErrorJSON } {
  if (report.outputError !== undefined) return { outputError: stepErrorJSON(report.outputError) };
  if (!Object.hasOwn(report, "output")) return {};
  const written = storedJSON(report.output);
  return written.ok
    ? { output: written.value }
    : { outputError: { code: "unserializable", message: `the plan's output cannot be stored as JSON: ${written.reason}` } };
}

/** Waiting steps as JSON: arguments JSON cannot write are written as `{}` (the step still waits). */
function pendingJSON(pending: ReadonlyMap<number, PendingStep>): Record<string, PendingStep> {
  const out: Record<string, PendingStep> = {};
  for (const [id, step] of pending) {
    const args = jsonSnapshot(step.args);
    out[String(id)] = { tool: step.tool, args: args.ok && isPlainObject(args.value) ? args.value : {} };
  }
  return out;
}

const STATUSES: readonly RunReport["status"][] = ["ok", "failed", "aborted", "invalid", "suspended"];
/** A step id as an object key: a non-negative integer's digits, no sign, no leading zero. */
export const STEP_ID_KEY = /^(?:0|[1-9]\d*)$/;
const PLAN_HASH = /^[0-9a-f]{64}$/;
/** `step 3 (tool): …`: the tool of a step error's message (StepError writes it so). */
const ERROR_TOOL = /^step \d+ \((.*?)\): /s;

/**
 * A `RunReport` rebuilt from its JSON form (what `reportToJSON` gives and `plan-refs run` writes), as
 * an object or as JSON text: results, errors, pending steps and timings as `Map`s, each error a
 * `StepError` with its code, message, `ref`, `arg` and `pointer`. Timings keep what the JSON keeps
 * (each step's rounded duration, from 0); diagnostics are not in the JSON (`[]`). Reads own data only;
 * anything else is refused with `RefError` `invalid-report` naming the place.
 *
 * @example
 * const report = reportFromJSON(readFileSync("out.json", "utf8"));
 * report.errors.get(2)?.code // "timeout"
 * await resumePlan(plan, report, tools)
 */
export function reportFromJSON(json: unknown): RunReport {
  let value = json;
  if (typeof json === "string") {
    try {
      value = JSON.parse(json) as unknown;
    } catch (error) {
      throw new RefError("invalid-report", `the report is not JSON: ${safeText(describeThrown(error), 200)}`);
    }
  }
  try {
    return readReport(value);
  } catch (error) {
    if (error instanceof RefError) throw error;
    throw new RefError("invalid-report", `the report could not be read: ${safeText(describeThrown(error), 200)}`, { cause: error });
  }
}

function refuse(where: string, what: string): never {
  throw new RefError("invalid-report", `the report's ${where} must be ${what}`);
}

function readReport(value: unknown): RunReport {
  if (!isPlainObject(value)) refuse("JSON", "an object (what plan-refs run writes)");
  const field = (name: string): unknown => ownData(value, name);
  const runId = field("runId");
  if (typeof runId !== "string") refuse("runId", "a string");
  const status = field("status");
  if (!STATUSES.includes(status as RunReport["status"])) refuse("status", `one of ${STATUSES.join(", ")}`);
  const results = new Map<number, unknown>();
  for (const [id, result] of byStep(field("results"), "results")) results.set(id, result);
  const errors = new Map<number, StepError>();
  for (const [id, error] of byStep(field("errors"), "errors")) errors.set(id, readError(id, error));
  const skipped = stepIds(field("skipped"), "skipped");
  const timings = field("timings");
  if (!isPlainObject(timings)) refuse("timings", "an object with totalMs and steps");
  const totalMs = ownData(timings, "totalMs");
  if (typeof totalMs !== "number" || !(totalMs >= 0)) refuse("timings.totalMs", "a number of milliseconds");
  const steps = new Map<number, StepTiming>();
  for (const [id, durationMs] of byStep(ownData(timings, "steps"), "timings.steps")) {
    if (typeof durationMs !== "number" || !(durationMs >= 0)) refuse(`timings.steps["${id}"]`, "a number of milliseconds");
    steps.set(id, { startMs: 0, endMs: durationMs, durationMs });
  }
  const attempts = new Map<number, number>();
  const triesGiven = field("attempts");
  for (const [id, tries] of triesGiven === undefined ? [] : byStep(triesGiven, "attempts")) {
    if (typeof tries !== "number" || !Number.isSafeInteger(tries) || tries < 1) refuse(`attempts["${id}"]`, "a positive integer");
    attempts.set(id, tries);
  }
  const planHash = field("planHash");
  if (planHash !== undefined && (typeof planHash !== "string" || !PLAN_HASH.test(planHash)))
    refuse("planHash", "64 lowercase hex digits (SHA-256)");
  const pending = new Map<number, PendingStep>();
  const pendingGiven = field("pending");
  for (const [id, step] of pendingGiven === undefined ? [] : byStep(pendingGiven, "pending")) {
    const tool = ownData(step, "tool");
    const args = ownData(step, "args");
    if (typeof tool !== "string" || !isPlainObject(args)) refuse(`pending["${id}"]`, "an object with tool (a string) and args (an object)");
    pending.set(id, { tool, args });
  }
  const reusedGiven = field("reused");
  const reused = reusedGiven === undefined ? [] : stepIds(reusedGiven, "reused");
  const outputErrorGiven = field("outputError");
  const output = Object.hasOwn(value, "output")
    ? { output: field("output") }
    : outputErrorGiven === undefined
      ? {}
      : { outputError: readError(OUTPUT_STEP_ID, outputErrorGiven, "outputError") };
  return {
    runId,
    status: status as RunReport["status"],
    ...(planHash === undefined ? {} : { planHash: planHash }),
    results,
    errors,
    skipped,
    diagnostics: [],
    timings: { totalMs, steps },
    attempts,
    pending,
    reused,
    ...output,
  };
}

/** An object keyed by step id (own data only), as entries by number. */
function byStep(value: unknown, where: string): [number, unknown][] {
  if (!isPlainObject(value)) refuse(where, "an object keyed by step id");
  return ownDataEntries(value).map(([key, item]) => {
    if (!STEP_ID_KEY.test(key) || !Number.isSafeInteger(Number(key)))
      refuse(where, `keyed by step ids (non-negative integers), not "${safeText(key)}"`);
    return [Number(key), item];
  });
}

function stepIds(value: unknown, where: string): number[] {
  if (!isPlainArray(value)) refuse(where, "an array of step ids");
  return ownElements(value).map(([id]) => {
    if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) refuse(where, "an array of step ids (non-negative integers)");
    return id;
  });
}

/** A step's error from its JSON: the same code, message and places. */
function readError(id: number, value: unknown, where = `errors["${id}"]`): StepError {
  if (!isPlainObject(value)) refuse(where, "an object with code and message");
  const code = ownData(value, "code");
  const message = ownData(value, "message");
  if (!STEP_ERROR_CODES.includes(code as StepErrorCode)) refuse(`${where}.code`, `one of ${STEP_ERROR_CODES.join(", ")}`);
  if (typeof message !== "string") refuse(`${where}.message`, "a string");
  const error = new StepError(code as StepErrorCode, id, ERROR_TOOL.exec(message)?.[1] ?? "", "");
  Object.defineProperty(error, "message", { value: message, writable: true, enumerable: false, configurable: true });
  for (const name of ["ref", "arg", "pointer"] as const) {
    const place = ownData(value, name);
    if (place === undefined) continue;
    if (typeof place !== "string") refuse(`${where}.${name}`, "a string");
    Object.defineProperty(error, name, { value: place, writable: false, enumerable: true, configurable: true });
  }
  return error;
}

function stepErrorJSON(error: unknown): StepErrorJSON {
  const code = ownString(error, "code") ?? "tool-error";
  const message = ownString(error, "message") ?? describeThrown(error);
  const ref = ownString(error, "ref");
  const arg = ownString(error, "arg");
  const pointer = ownString(error, "pointer");
  return {
    code,
    message,
    ...(ref === undefined ? {} : { ref }),
    ...(arg === undefined ? {} : { arg }),
    ...(pointer === undefined ? {} : { pointer }),
  };
}

/**
 * An own string property of an error (Error keeps `message` on itself), never running a getter. A thin
 * wrapper over the shared `ownData` because, unlike it, this never throws: the report is written for
 * whatever a tool threw, a Proxy whose trap throws included.
 */
function ownString(value: unknown, key: string): string | undefined {
  try {
    const read = ownData(value, key);
    return typeof read === "string" ? read : undefined;
  } catch {
    return undefined; // A Proxy whose trap throws.
  }
}

/** A value by the one rule of results written as JSON (`toStorableJSON`), as JSON reads it back (`undefined`: `null`). */
function storedJSON(value: unknown): { ok: true; value: unknown } | { ok: false; reason: string } {
  const written = toStorableJSON(value);
  return written.ok ? { ok: true, value: written.text === null ? null : (JSON.parse(written.text) as unknown) } : written;
}

/** A waiting step's arguments as JSON writes them and reads them back (what a person is shown), or why they cannot be written. */
function jsonSnapshot(value: unknown): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    const text = JSON.stringify(value);
    // `undefined`, a function or a symbol: JSON has no such value; `null` keeps the step's entry.
    return { ok: true, value: text === undefined ? null : (JSON.parse(text) as unknown) };
  } catch (error) {
    const reason = describeThrown(error);
    return {
      ok: false,
      reason: /circular/i.test(reason)
        ? "it contains a cycle"
        : /bigint/i.test(reason)
          ? "it contains a BigInt"
          : cutText(reason.split("\n")[0]!, 200),
    };
  }
}

/**
 * The step results of a value when it is a run report in JSON (what `plan-refs run --results` writes:
 * an object with a string `runId`, a known `status` and a `results` object), else `undefined`: a
 * report is recognised by those three fields, which no results object keyed by step ids has.
 * Own data only; never throws.
 *
 * @example
 * reportResults({ runId: "r1", status: "ok", results: { "1": { city: "Lisbon" } } }) // { "1": { city: "Lisbon" } }
 * reportResults({ "1": { city: "Lisbon" } }) // undefined
 */
export function reportResults(value: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(value)) return undefined;
  const runId = ownData(value, "runId");
  const status = ownData(value, "status");
  const results = ownData(value, "results");
  if (typeof runId !== "string" || !STATUSES.includes(status as RunReport["status"]) || !isPlainObject(results)) return undefined;
  return results;
}
