/**
 * A run's approval and resume state: what a resume brings (results taken as they are, approvals and
 * denials a person gave), the check that it belongs to this plan, and the question asked when a step's
 * turn comes (`needsApproval`, `approvalTools`, or a step that waited before). The scheduler
 * (run-plan.ts) does what the answer says.
 */
import type { LocatedStep } from "../plan/plan.js";
import { resolveRefs } from "../resolve/resolve-refs.js";
import { describeThrown, RefError } from "../shared/errors.js";
import type { NormalizedOptions } from "../shared/options.js";
import { safeText } from "../shared/text.js";
import { STEP_FAILURES, type StepFailure } from "../step/attempt.js";
import type { RunLedger } from "./run-report.js";
import type { RunOptions, RunSettings } from "./run-options.js";
import { approvalRuleOf, asksApproval, denialOf } from "../step/gated.js";
import { canonicalJson } from "../step/plan-hash.js";
import type { StepRecord } from "./step-record.js";
import { isAwaitingApproval } from "../step/schedule.js";
import { reachTries, type TriesScheduler } from "./step-tries.js";

/** What a resume brings to a run (src/run/resume.ts), checked against the plan before any step is added. */
export interface ResumeState {
  /** The previous report's plan hash: a plan with another is refused (`plan-mismatch`). */
  readonly planHash: string;
  /** Results taken as they are: their steps are done without being called. */
  readonly results: ReadonlyMap<number, unknown>;
  /** Failures taken as they are (a plan call's steps that failed before the plan was whole): their steps fail so, without being called. */
  readonly failed?: ReadonlyMap<number, StepFailure>;
  /** Steps that run without asking for approval. */
  readonly approved: ReadonlySet<number>;
  /** Steps that fail `denied` with the reason (their dependents are skipped). */
  readonly denied: ReadonlyMap<number, string>;
  /** Steps that waited for approval before: they wait again unless approved or denied. */
  readonly waiting: ReadonlySet<number>;
  /** The resolved arguments each waiting step showed: an approved step runs with exactly these, or the resume is refused. */
  readonly shown: ReadonlyMap<number, unknown>;
}

/**
 * A resume of another plan, or approvals of steps the plan does not have, are refused before anything
 * runs (`planIds`: the plan's step ids).
 */
export function checkResume(resume: ResumeState, planHash: string, planIds: ReadonlySet<number>): void {
  if (resume.planHash !== planHash)
    throw new RefError(
      "plan-mismatch",
      `the previous report is of another plan (its planHash ${resume.planHash}, this plan's ${planHash}); nothing was run`,
    );
  for (const [list, ids] of [
    ["approve", resume.approved],
    ["deny", resume.denied.keys()],
  ] as const) {
    for (const id of ids)
      if (!planIds.has(id))
        throw new RefError("invalid-options", `option ${list} names step ${id}, which the plan does not have; nothing was run`);
  }
  // Only a step that waited showed its arguments to a person: approving any other would run arguments nobody saw.
  for (const id of resume.approved) {
    if (!resume.waiting.has(id))
      throw new RefError(
        "not-awaiting-approval",
        `step ${id} is not waiting for approval in the previous report (${waitingList(resume.waiting)}): only a step that waited, with the arguments it showed, can be approved; nothing was run`,
      );
  }
}

/**
 * What a person approved is what runs: each approved step's arguments, resolved now (the previous
 * results, this run's language options), must be the ones its waiting step showed. Other language
 * options (`deep`, `templates`, `syntax`) or other results would send something nobody saw, so such
 * a resume is refused before anything runs (`plan-mismatch`).
 */
export function checkApproved(
  resume: ResumeState,
  steps: readonly LocatedStep[],
  language: NormalizedOptions,
  results: ReadonlyMap<number, unknown> = resume.results,
): void {
  if (resume.approved.size === 0) return;
  for (const step of steps) {
    if (!resume.approved.has(step.id) || !resume.shown.has(step.id)) continue;
    let now: string;
    try {
      now = canonicalJson(resolveRefs(step.args, new Map([...results, ...resume.results]), language));
    } catch (error) {
      throw new RefError(
        "plan-mismatch",
        `step ${step.id} was approved with the arguments it showed, but they cannot be resolved again (${safeText(describeThrown(error), 120)}); nothing was run`,
      );
    }
    const shown = canonicalJson(resume.shown.get(step.id));
    if (now !== shown) {
      throw new RefError(
        "plan-mismatch",
        `step ${step.id} was approved with the arguments ${safeText(shown, 200)}, but this run would call it with ${safeText(now, 200)} (other language options or other results); nothing was run`,
      );
    }
  }
}

/** The steps that wait, for a message. */
function waitingList(waiting: ReadonlySet<number>): string {
  if (waiting.size === 0) return "no step waits";
  const ids = [...waiting];
  return `waiting: ${ids.slice(0, 10).join(", ")}${ids.length > 10 ? `, and ${ids.length - 10} more` : ""}`;
}

/** The answer for a step whose turn came: `false` it runs, `true` it waits, a failure, or the promise of one of those three. */
type ApprovalAnswer = boolean | StepFailure | { readonly promise: PromiseLike<boolean | StepFailure> };

/** What the gate needs of the run whose steps it holds (the scheduler, run-plan.ts). */
export interface GatedRun extends TriesScheduler {
  readonly ledger: RunLedger;
  /** The step's arguments resolved into a copy of its snapshot, once (its try gets them as they are), or `undefined` when they cannot be (its try fails without calling the tool). */
  argsForApproval(record: StepRecord): Record<string, unknown> | undefined;
  /** Fail the step (its dependents are skipped). */
  fail(record: StepRecord, failure: StepFailure, endMs?: number): void;
  /** The step holds a concurrency slot while `needsApproval`'s promise settles: "running" without a try, so a stop fails it as any running step. */
  hold(record: StepRecord): void;
  /** Give the slot back, once the promise settled; `false` when the run stopped meanwhile (nothing more happens to the step). */
  release(record: StepRecord): boolean;
  /** Begin the step's first try. */
  begin(record: StepRecord): void;
  /** Start what can start. */
  pump(): void;
}

/** Who decides whether a step waits for approval, and holds it while it waits. */
export class ApprovalGate {
  constructor(
    readonly settings: RunSettings,
    /** The caller's options object: only `this` for `needsApproval`. */
    readonly options: RunOptions,
    readonly resume: ResumeState | undefined,
    /** The run's tool function of a name (a tool marked with `requireApproval` always asks). */
    readonly lookUp: (tool: string) => unknown,
  ) {}

  /** Whether a step's turn must first ask for approval: it was not approved, and a rule may hold it. */
  asks(record: StepRecord): boolean {
    const resume = this.resume;
    if (resume?.approved.has(record.id) === true) return false;
    return (
      this.settings.needsApproval !== undefined ||
      resume?.waiting.has(record.id) === true ||
      asksApproval(this.settings.approvalTools, record.tool, record.fn ?? this.lookUp(record.tool)) // the function the step was given when it was added, else looked up
    );
  }

  /**
   * A step's turn came and it `asks`: ask, with its arguments resolved. `true` when it does not go on
   * now: it waits (pending), it failed, or the answer is a promise (the step holds its slot until it
   * settles).
   */
  turn(record: StepRecord, run: GatedRun): boolean {
    const args = run.argsForApproval(record);
    if (args === undefined) return false;
    const ledger = run.ledger;
    ledger.times.start(record.slot, ledger.now());
    const answer = this.#ask(record, args);
    if (answer === false) return false;
    if (answer === true) return this.#suspend(record, args, ledger);
    if ("code" in answer) {
      run.fail(record, answer, ledger.now());
      return true;
    }
    run.hold(record);
    Promise.resolve(answer.promise).then(
      (value) => reachTries<GatedRun>(record, (tries) => this.#decided(tries.scheduler, record, args, value)),
      (error: unknown) =>
        reachTries<GatedRun>(record, (tries) => this.#decided(tries.scheduler, record, args, STEP_FAILURES.approvalFailed(error))),
    );
    return true;
  }

  /** `needsApproval`'s promise settled: the step waits, fails, or begins (unless the run stopped meanwhile). */
  #decided(run: GatedRun, record: StepRecord, args: Record<string, unknown>, answer: boolean | StepFailure): void {
    if (!run.release(record)) return;
    if (answer === true) this.#suspend(record, args, run.ledger);
    else if (answer === false) run.begin(record);
    else run.fail(record, answer, run.ledger.now());
    run.pump();
  }

  /** The step waits for approval: its tool is not called in this run; what waits on it waits with it. */
  #suspend(record: StepRecord, args: Record<string, unknown>, ledger: RunLedger): true {
    record.args = undefined;
    ledger.markAwaitingApproval(record, args);
    return true;
  }

  /**
   * Ask about a step, its arguments resolved: the tool's own rule (`requireApproval`) and the run's
   * `needsApproval`, either of which may hold it, and the tool's rule may deny it (`denyCall`: a denial
   * wins over a hold, so nobody can approve what a policy refused). Each gets a copy of the arguments'
   * top level, so that what it does to them never reaches the tool; what either throws fails the step
   * (`denied`). When either answers with a promise, both answers are awaited.
   */
  #ask(record: StepRecord, args: Record<string, unknown>): ApprovalAnswer {
    if (this.settings.approvalTools?.has(record.tool) === true || this.resume?.waiting.has(record.id) === true) return true;
    const rule = approvalRuleOf(this.lookUp(record.tool));
    const needsApproval = this.settings.needsApproval;
    const answers: unknown[] = [];
    try {
      if (rule !== undefined) answers.push(rule({ ...args }, { id: record.id, tool: record.tool }));
      if (needsApproval !== undefined)
        answers.push(needsApproval.call(this.options, { id: record.id, tool: record.tool, args: { ...args } }));
    } catch (error) {
      return STEP_FAILURES.approvalFailed(error);
    }
    let promised = false;
    for (const answer of answers) {
      if (denialOf(answer) !== undefined) continue;
      let then: unknown;
      try {
        then =
          (typeof answer === "object" && answer !== null) || typeof answer === "function" ? (answer as { then?: unknown }).then : undefined;
      } catch (error) {
        return STEP_FAILURES.approvalFailed(error);
      }
      if (typeof then === "function") promised = true;
    }
    if (!promised) return decision(answers);
    return { promise: Promise.all(answers).then(decision) };
  }
}

/** What the answers of a step's rules decide: a denial fails it, else one answer holding it is enough. */
function decision(answers: readonly unknown[]): boolean | StepFailure {
  for (const answer of answers) {
    const denial = denialOf(answer);
    if (denial !== undefined) return STEP_FAILURES.denied(denial.reason);
  }
  return answers.some(Boolean);
}

/** Every step that waits, directly or through others, on a step waiting for approval (those are not stuck). */
export function heldByApproval(records: readonly StepRecord[]): Set<StepRecord> {
  const held = new Set<StepRecord>();
  const queue = records.filter((record) => isAwaitingApproval(record.state));
  for (let i = 0; i < queue.length; i++) {
    for (const dependent of queue[i]!.dependents ?? []) {
      if (dependent.state !== "waiting" || held.has(dependent)) continue;
      held.add(dependent);
      queue.push(dependent);
    }
  }
  return held;
}
