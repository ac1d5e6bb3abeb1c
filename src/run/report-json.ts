/**
 * A run's report as JSON data: what `plan-refs run` prints. `JSON.stringify(report)` would lose the
 * results and errors (they are `Map`s) and can throw (a result with a cycle or a BigInt); this never
 * throws, and a result JSON cannot hold becomes that step's error rather than losing every result.
 */
import { ownData } from "../shared/own-data.js";
import { describeThrown } from "../shared/errors.js";
import type { RunReport } from "./run-plan.js";

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
}

/**
 * The report as plain JSON data (the form `plan-refs run` writes): results and errors keyed by step
 * id, each result a snapshot through `JSON.stringify` (so `toJSON` applies and the value is plain
 * data). A result JSON cannot write (a cycle, a BigInt, a getter that throws) is left out of
 * `results` and reported in `errors` with code `unserializable`; the status is then `failed` (if it
 * was `ok`). A result of `undefined` (or a function or symbol) is written as `null`. Never throws.
 *
 * @example
 * const report = await runPlan({ steps: [{ id: 1, tool: "now", args: {} }] }, { now: () => ({ at: 1n }) });
 * reportToJSON(report).errors[1]?.code // "unserializable"
 * JSON.stringify(reportToJSON(report)) // always works, unlike JSON.stringify(report)
 */
export function reportToJSON(report: RunReport): RunReportJSON {
  const results: Record<string, unknown> = {};
  const errors: Record<string, StepErrorJSON> = {};
  for (const [id, error] of report.errors) errors[String(id)] = stepErrorJSON(error);
  for (const [id, value] of report.results) {
    const snapshot = jsonSnapshot(value);
    if (snapshot.ok) {
      results[String(id)] = snapshot.value;
    } else if (errors[String(id)] === undefined) {
      errors[String(id)] = { code: "unserializable", message: `step ${id}: its result cannot be written as JSON: ${snapshot.reason}` };
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
    ...outputJSON(report),
  };
}

/** The report's output as JSON, or its error; an output JSON cannot write is an `unserializable` error. */
function outputJSON(report: RunReport): { output?: unknown; outputError?: StepErrorJSON } {
  if (report.outputError !== undefined) return { outputError: stepErrorJSON(report.outputError) };
  if (!Object.hasOwn(report, "output")) return {};
  const snapshot = jsonSnapshot(report.output);
  return snapshot.ok ? { output: snapshot.value } : { outputError: { code: "unserializable", message: `the plan's output cannot be written as JSON: ${snapshot.reason}` } };
}

function stepErrorJSON(error: unknown): StepErrorJSON {
  const code = ownString(error, "code") ?? "tool-error";
  const message = ownString(error, "message") ?? describeThrown(error);
  const ref = ownString(error, "ref");
  const arg = ownString(error, "arg");
  const pointer = ownString(error, "pointer");
  return { code, message, ...(ref === undefined ? {} : { ref }), ...(arg === undefined ? {} : { arg }), ...(pointer === undefined ? {} : { pointer }) };
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

/** The value as JSON writes it and reads it back, or why it cannot be written. */
function jsonSnapshot(value: unknown): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    const text = JSON.stringify(value);
    // `undefined`, a function or a symbol: JSON has no such value; `null` keeps the step's entry.
    return { ok: true, value: text === undefined ? null : (JSON.parse(text) as unknown) };
  } catch (error) {
    const reason = describeThrown(error);
    return { ok: false, reason: /circular/i.test(reason) ? "it contains a cycle" : /bigint/i.test(reason) ? "it contains a BigInt" : reason.split("\n")[0]!.slice(0, 200) };
  }
}
