/**
 * Resuming a run: `resumePlan` runs a plan again after a run of it failed, was aborted or suspended,
 * without calling again any step that produced a result (its result is used as it is, as Step
 * Functions' redrive does), and with the approvals a person gave to the steps that waited. The plan
 * must be the same one (its `planHash`): results of one plan are never fed to another.
 */
import { asRefError, RefError } from "../shared/errors.js";
import { isPlainArray, isPlainObject, ownData, ownDataEntries, ownElements } from "../shared/own-data.js";
import { reportFromJSON, STEP_ID_KEY, type RunReportJSON } from "./report-json.js";
import type { ResumeState } from "./approval.js";
import { runResumable } from "./run-plan.js";
import type { PendingStep, RunReport } from "../step/report.js";
import { readOption } from "../step/settings.js";
import { type RunOptions, type ToolFunctions } from "./run-options.js";

/** `resumePlan`'s options: `runPlan`'s, and what a person decided about the steps that wait. */
export interface ResumeOptions extends RunOptions {
  /** Steps that run without asking for approval (again). A step that has a result is still not called. */
  readonly approve?: readonly number[];
  /** Steps refused, by id, with the reason: each fails with `StepError` `denied`, its dependents are skipped. */
  readonly deny?: Readonly<Record<number, string>>;
}

/**
 * Run a plan again, from a previous report of it (a `RunReport`, or its JSON as `plan-refs run`
 * writes it, as an object or text). Steps that succeeded in `previous` are not called: their results
 * are used as they are, and `report.reused` lists them; failed, aborted, skipped, never-started and
 * waiting steps run (a waiting one only once approved). Refused before anything runs: a `previous`
 * of another plan (`RefError` `plan-mismatch`, naming both hashes), one of an `invalid` run or without
 * a `planHash` (`invalid-report`), an `approve` or `deny` naming a step the plan does not have, or a
 * step both approved and denied (`invalid-options`). The run keeps the previous run's id (so each
 * step's idempotency key stays the same) unless `runId` is given. `previous` is never changed.
 *
 * @example
 * const first = await runPlan(plan, tools, { approvalTools: ["send_email"] }); // status "suspended"
 * first.pending // Map { 3 => { tool: "send_email", args: { to: "ops@example.com", … } } }
 * const second = await resumePlan(plan, first, tools, { approve: [3] });
 * second.reused // [1, 2]: their tools were not called again
 */
export async function resumePlan(
  plan: unknown,
  previous: RunReport | RunReportJSON | string,
  tools: ToolFunctions,
  options: ResumeOptions = {},
): Promise<RunReport> {
  if (typeof options !== "object" || options === null) throw new RefError("invalid-options", "resumePlan options must be an object");
  const report = readPrevious(previous);
  if (report.status === "invalid")
    throw new RefError(
      "invalid-report",
      "the previous run was invalid (lint errors): nothing ran, so there is nothing to resume; fix the plan and run it with runPlan",
    );
  if (report.planHash === undefined)
    throw new RefError(
      "invalid-report",
      "the previous report has no planHash (it was written by an older plan-refs): it cannot be checked against the plan; run the plan with runPlan",
    );
  const approved = readApprove(readOption(options, "approve"));
  const denied = readDeny(readOption(options, "deny"));
  const runId = readOption(options, "runId");
  const results = new Map<number, unknown>();
  // Results parsed from text are this run's own; any other is the caller's, and a tool may change what it is given.
  const copy = typeof previous !== "string";
  for (const [id, value] of report.results) if (!report.errors.has(id)) results.set(id, copy ? detached(value) : value);
  for (const id of approved)
    if (denied.has(id)) throw new RefError("invalid-options", `step ${id} is both approved and denied; nothing was run`);
  for (const id of denied.keys())
    if (results.has(id)) throw new RefError("invalid-options", `step ${id} already has a result: it cannot be denied; nothing was run`);
  const pending = report.pending ?? new Map<number, PendingStep>();
  const shown = new Map([...pending].map(([id, step]) => [id, step.args] as const));
  const state: ResumeState = { planHash: report.planHash, results, approved, denied, waiting: new Set(pending.keys()), shown };
  return runResumable(plan, tools, options, state, runId === undefined ? report.runId : undefined);
}

/** The previous report, read once: a `RunReport` as it is (its fields read, never written), JSON rebuilt. */
function readPrevious(previous: unknown): RunReport {
  if (isJSON(previous)) return reportFromJSON(previous);
  try {
    const report = previous as RunReport;
    if (typeof report !== "object" || report === null || !(report.results instanceof Map) || !(report.errors instanceof Map)) {
      throw new RefError("invalid-report", "the previous report must be a RunReport, or its JSON (reportToJSON, plan-refs run --results)");
    }
    const pending = report.pending;
    return { ...report, results: report.results, errors: report.errors, ...(pending instanceof Map ? { pending } : {}) };
  } catch (error) {
    throw asRefError(error, "the previous report");
  }
}

/** Whether `previous` is the JSON form (text, or an object whose results are not a `Map`). */
function isJSON(previous: unknown): boolean {
  return typeof previous === "string" || (isPlainObject(previous) && !(ownData(previous, "results") instanceof Map));
}

/** A reused result, detached from the previous report: a tool that changes its arguments cannot change `previous`. */
function detached(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return value; // a function, a class with private state: shared, as runPlan shares results
  }
}

function readApprove(value: unknown): Set<number> {
  const ids = new Set<number>();
  if (value === undefined) return ids;
  if (!isPlainArray(value)) throw new RefError("invalid-options", "option approve must be an array of step ids");
  for (const [id] of ownElements(value)) {
    if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0)
      throw new RefError("invalid-options", "option approve must be an array of step ids (non-negative integers)");
    ids.add(id);
  }
  return ids;
}

function readDeny(value: unknown): Map<number, string> {
  const reasons = new Map<number, string>();
  if (value === undefined) return reasons;
  if (!isPlainObject(value))
    throw new RefError("invalid-options", 'option deny must be an object of reasons by step id ({ 4: "too expensive" })');
  for (const [key, reason] of ownDataEntries(value)) {
    const id = Number(key);
    if (!STEP_ID_KEY.test(key) || !Number.isSafeInteger(id) || typeof reason !== "string")
      throw new RefError("invalid-options", 'option deny must be an object of reasons (strings) by step id ({ 4: "too expensive" })');
    reasons.set(id, reason);
  }
  return reasons;
}
