/**
 * A run's approval and resume state: what a resume brings (results taken as they are, approvals and
 * denials a person gave), the check that it belongs to this plan, and the question asked when a step's
 * turn comes (`needsApproval`, `approvalTools`, or a step that waited before). The scheduler
 * (run-plan.ts) does what the answer says.
 */
import { RefError } from "../shared/errors.js";
import { STEP_FAILURES, type StepFailure } from "./attempt.js";
import type { RunLedger } from "./run-report.js";
import type { RunOptions, RunSettings } from "./settings.js";
import type { StepRecord } from "./step-record.js";
import { reachTries, type TriesScheduler } from "./step-tries.js";

/** What a resume brings to a run (src/run/resume.ts), checked against the plan before any step is added. */
export interface ResumeState {
  /** The previous report's plan hash: a plan with another is refused (`plan-mismatch`). */
  readonly planHash: string;
  /** Results taken as they are: their steps are done without being called. */
  readonly results: ReadonlyMap<number, unknown>;
  /** Steps that run without asking for approval. */
  readonly approved: ReadonlySet<number>;
  /** Steps that fail `denied` with the reason (their dependents are skipped). */
  readonly denied: ReadonlyMap<number, string>;
  /** Steps that waited for approval before: they wait again unless approved or denied. */
  readonly waiting: ReadonlySet<number>;
}

/**
 * A resume of another plan, or approvals of steps the plan does not have, are refused before anything
 * runs (`planIds`: the plan's step ids).
 */
export function checkResume(resume: ResumeState, planHash: string, planIds: ReadonlySet<number>): void {
  if (resume.planHash !== planHash) throw new RefError("plan-mismatch", `the previous report is of another plan (its planHash ${resume.planHash}, this plan's ${planHash}); nothing was run`);
  for (const [list, ids] of [["approve", resume.approved], ["deny", resume.denied.keys()]] as const) {
    for (const id of ids) if (!planIds.has(id)) throw new RefError("invalid-options", `option ${list} names step ${id}, which the plan does not have; nothing was run`);
  }
}

/** The answer for a step whose turn came: `false` it runs, `true` it waits, a failure, or `needsApproval`'s promise. */
type ApprovalAnswer = boolean | StepFailure | { readonly promise: PromiseLike<unknown> };

/** What the gate needs of the run whose steps it holds (the scheduler, run-plan.ts). */
export interface GatedRun extends TriesScheduler {
  readonly ledger: RunLedger;
  /** The step's arguments resolved into its snapshot, once (its try gets them as they are), or `undefined` when they cannot be (its try fails without calling the tool). */
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
  ) {}

  /** Whether a step's turn must first ask for approval: it was not approved, and a rule may hold it. */
  asks(record: StepRecord): boolean {
    const resume = this.resume;
    if (resume?.approved.has(record.id) === true) return false;
    return this.settings.needsApproval !== undefined || this.settings.approvalTools?.has(record.tool) === true || resume?.waiting.has(record.id) === true;
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
      (value) => reachTries<GatedRun>(record, (tries) => this.#decided(tries.scheduler, record, args, Boolean(value))),
      (error: unknown) => reachTries<GatedRun>(record, (tries) => this.#decided(tries.scheduler, record, args, STEP_FAILURES.approvalFailed(error))),
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
    ledger.markPending(record, args);
    return true;
  }

  /**
   * Ask about a step, its arguments resolved. `needsApproval` gets a copy of their top level, so that
   * what it does to them never reaches the tool; what it throws fails the step (`denied`).
   */
  #ask(record: StepRecord, args: Record<string, unknown>): ApprovalAnswer {
    if (this.settings.approvalTools?.has(record.tool) === true || this.resume?.waiting.has(record.id) === true) return true;
    let answer: unknown;
    let then: unknown;
    try {
      answer = this.settings.needsApproval!.call(this.options, { id: record.id, tool: record.tool, args: { ...args } });
      then = (typeof answer === "object" && answer !== null) || typeof answer === "function" ? (answer as { then?: unknown }).then : undefined;
    } catch (error) {
      return STEP_FAILURES.approvalFailed(error);
    }
    return typeof then === "function" ? { promise: answer as PromiseLike<unknown> } : Boolean(answer);
  }
}

/** Every step that waits, directly or through others, on a step waiting for approval (those are not stuck). */
export function heldByApproval(records: readonly StepRecord[]): Set<StepRecord> {
  const held = new Set<StepRecord>();
  const queue = records.filter((record) => record.state === "pending");
  for (let i = 0; i < queue.length; i++) {
    for (const dependent of queue[i]!.dependents ?? []) {
      if (dependent.state !== "waiting" || held.has(dependent)) continue;
      held.add(dependent);
      queue.push(dependent);
    }
  }
  return held;
}
