/**
 * The worker's job handler: for each job it claims the step (a new attempt), runs it on the shared
 * attempt (worker-step.ts), and acts on what the shared rule `afterTry` (src/step/after-try.ts) says
 * of the outcome: done (stored, and the dependents it makes ready enqueued in one transaction,
 * `settleStep`), retried later (`retryLater`) or failed; a step it was running when it stopped is
 * released to other workers.
 */
import type { StepError } from "../step/step-error.js";
import { retryPolicyOf, tryTimeoutMs } from "../step/settings.js";
import { type WorkerSettings } from "./worker-settings.js";
import { checksInputs } from "../step/validate-input.js";
import type { StepEventType } from "../step/schedule.js";
import { RefError } from "../shared/errors.js";
import { ownData } from "../shared/own-data.js";
import { isConnectionError, type Connection } from "./db.js";
import { PostgresError } from "./errors.js";
import { Heartbeat } from "./heartbeat.js";
import { backoff, sleep } from "./job-pool.js";
import { KnownRuns, type KnownRun, type KnownRunInfo } from "./known-runs.js";
import type { PgPool } from "./peers.js";
import { claimedStep, claimStep } from "./sql/claim.js";
import { releaseJob } from "./sql/release-job.js";
import { releaseStep } from "./sql/release-step.js";
import { releaseTakenStep } from "./sql/release-taken-step.js";
import { toolFlag, toolOfTask } from "./queue.js";
import { WorkerToolLimits } from "./tool-limits.js";
import { rebuildStepError } from "./stored-error.js";
import { retryLater, settleStep, type SettleResult } from "./transitions.js";
import { afterTry, type AfterTry } from "../step/after-try.js";
import { storedStepTrace, TracedTries, type StepTrace } from "./step-trace.js";
import { asksApproval } from "../step/gated.js";
import { approvalArgs, runClaimedStep, type ClaimedStep, type FailedTry, type TryOutcome, type WorkerToolFunction } from "./worker-step.js";
import { awaitApproval } from "./sql/await-approval.js";
import { suspendedStatus, type Take } from "./sql/settle-done.js";

/** What a worker does, as it happens. */
export type WorkerEvent =
  | { readonly type: "step-start"; readonly runId: string; readonly stepId: number; readonly tool: string; readonly attempt: number }
  | {
      readonly type: "step-done";
      readonly runId: string;
      readonly stepId: number;
      readonly tool: string;
      readonly attempt: number;
      readonly durationMs: number;
    }
  | {
      readonly type: "step-failed";
      readonly runId: string;
      readonly stepId: number;
      readonly tool: string;
      readonly attempt: number;
      readonly durationMs: number;
      readonly error: StepError;
    }
  /** A try failed and the step is tried again after `delayMs` (by whichever worker takes it then): `attempt` is the try that failed, `attempts` the policy's tries. */
  | {
      readonly type: "step-retry";
      readonly runId: string;
      readonly stepId: number;
      readonly tool: string;
      readonly attempt: number;
      readonly attempts: number;
      readonly delayMs: number;
      readonly error: StepError;
    }
  /** The step's tool needs approval: it was not called, and waits (`approveStep`, `denyStep`) with its resolved arguments. */
  | {
      readonly type: "step-awaiting-approval";
      readonly runId: string;
      readonly stepId: number;
      readonly tool: string;
      readonly args: Record<string, unknown>;
    }
  | { readonly type: "step-released"; readonly runId: string; readonly stepId: number; readonly tool: string; readonly attempt: number }
  /** This attempt ended after another worker had taken the step (this one was taken for dead): its outcome was not stored. */
  | { readonly type: "step-lost"; readonly runId: string; readonly stepId: number; readonly tool: string; readonly attempt: number }
  | { readonly type: "workers-recovered"; readonly workerIds: readonly string[] };

// Every event's name is one of the executors' shared list (a new name goes there first).
const WORKER_EVENT_NAMES: Exclude<WorkerEvent["type"], StepEventType> extends never ? true : never = true;
void WORKER_EVENT_NAMES;

/** One try of a claimed step as the worker runs it: the step, its job, its span, when it started. */
interface ClaimedTry {
  readonly claimed: ClaimedStep;
  readonly helpers: import("graphile-worker").JobHelpers;
  /** A settle took the step for this worker: it has no job of its own. */
  readonly taken: boolean;
  readonly trace: StepTrace | undefined;
  /** When the try started (`performance.now()`), for the events' `durationMs`. */
  readonly t0: number;
}

/** A step this worker is running. */
interface Active {
  readonly runId: string;
  readonly stepId: number;
  readonly controller: AbortController;
}

/** The state of one worker: the steps it runs, what it knows of runs, its heartbeat, and the job handler. */
export class StepWorker {
  id = "unknown";
  nudge: (n: number) => void = () => undefined;
  readonly #active = new Set<Active>();
  readonly #runs = new KnownRuns();
  #heartbeat: Heartbeat | undefined;
  #closed = false;
  #stopping = false;
  /** What a settle may take for this worker, by run (`#take`); forgotten with the run. */
  readonly #takes = new WeakMap<KnownRunInfo, Take>();
  /** The tools this worker has, as its heartbeat publishes them (`status` says when no running worker has a step's tool). */
  readonly toolNames: string[];
  /** The worker's `toolConcurrency` (`undefined`: none). */
  readonly limits: WorkerToolLimits | undefined;

  constructor(
    readonly connection: Connection,
    readonly settings: WorkerSettings<WorkerToolFunction, WorkerEvent>,
    readonly pool: PgPool,
  ) {
    this.toolNames = [...settings.tools.keys()];
    const limits = settings.toolConcurrency;
    this.limits =
      limits === undefined || limits.size === 0 ? undefined : new WorkerToolLimits(limits, (tool) => toolFlag(connection, tool));
  }

  /** The worker stops: no step waiting for its tool's turn starts now (its job is released), and no settle takes a next step. */
  beginStop(): void {
    this.#stopping = true;
    this.limits?.sendBack();
  }

  get recoveryMs(): number {
    return this.settings.recoveryMs;
  }

  async start(): Promise<void> {
    this.#heartbeat = new Heartbeat(this.pool, this.connection, this);
    await this.#heartbeat.start();
  }

  /** Whether the worker stopped (what waits for the database gives up then). */
  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const active of this.#active) active.controller.abort(new RefError("aborted", "the worker stopped"));
    await this.#heartbeat?.stop();
  }

  recovered(workerIds: readonly string[]): void {
    this.#emit({ type: "workers-recovered", workerIds });
  }

  stopped(runId: string): void {
    for (const active of this.#active) if (active.runId === runId) active.controller.abort(new RefError("aborted", "the run was stopped"));
  }

  /** `work` again while the database is away (an outage of any length), until the worker stops; `traced` records each failed try. */
  async #retrying<T>(work: () => Promise<T>, traced?: TracedTries): Promise<T> {
    for (let tries = 0; ; tries++) {
      try {
        return await work();
      } catch (error) {
        if (this.#closed || !isConnectionError(error instanceof PostgresError && error.cause !== undefined ? error.cause : error))
          throw error;
        traced?.failed(error);
        await sleep(backoff(tries));
      }
    }
  }

  #emit(event: WorkerEvent): void {
    try {
      this.settings.onEvent?.(event);
    } catch {
      // A broken listener must not break the worker.
    }
  }

  /**
   * graphile-worker's task: one step of one run. While the database is away it waits for it (reading
   * the step, storing its outcome). It throws only when the job must not be completed: the step was
   * released (the worker is stopping; the job is already free again), or another attempt holds it.
   */
  async runJob(payload: unknown, helpers: import("graphile-worker").JobHelpers): Promise<void> {
    const runId = ownData(payload, "runId");
    const stepId = ownData(payload, "stepId");
    const jobId = helpers.job.id;
    try {
      if (typeof runId !== "string" || typeof stepId !== "number") return; // not a job of ours to run
      if (!(await this.#turn(jobId, helpers.job.task_identifier))) {
        // The worker stops while the step waited for its tool's turn: its job is free at once, the step untouched.
        await releaseJob(this.pool, jobId, this.id).catch(() => undefined);
        throw new Error(`plan-refs: step ${stepId} of run ${runId} released: the worker stopped`);
      }
      await this.#runStep(runId, stepId, helpers);
    } finally {
      this.limits?.leave(jobId);
    }
  }

  /** Whether the job may call its tool now, after waiting for its tool's turn (`toolConcurrency`). */
  async #turn(jobId: string, task: string): Promise<boolean> {
    return this.limits === undefined || (await this.limits.enter(jobId, toolOfTask(this.connection, task)));
  }

  async #runStep(runId: string, stepId: number, helpers: import("graphile-worker").JobHelpers): Promise<void> {
    // The claim's times, kept until the claim says whether the run is traced (for a run this worker
    // already knows untraced, not even that): its span is a child of the step's, which starts with it.
    const seen = this.#runs.get(runId);
    const claim = seen !== undefined && seen.options.trace === undefined ? undefined : new TracedTries();
    let claimed = await this.#retrying(() => claimStep(this.pool, this.connection, this.id, this.#runs, runId, stepId), claim);
    let taken = false;
    // A step the settle took for this worker (see sql/settle-done.ts) runs next, in this same job.
    while (claimed !== undefined) {
      claimed = await this.#runClaimed(
        claimed,
        helpers,
        taken,
        taken ? (claimed.known.options.trace === undefined ? undefined : new TracedTries()) : claim,
      );
      taken = true;
    }
  }

  /**
   * The tools whose dependents a settle may take for this worker to run next: none while it stops, or
   * when it limits its tools' calls (a taken step would bypass the turn it waits for); else those it
   * has, but for the run's serial tools (their queue runs one at a time) and tools needing approval.
   */
  #take(known: KnownRunInfo, helpers: import("graphile-worker").JobHelpers): Take | undefined {
    if (this.#stopping || this.#closed || this.limits !== undefined || helpers.abortSignal.aborted) return undefined;
    // Once per run this worker knows (a run never changes once submitted), not once per step.
    let take = this.#takes.get(known);
    if (take === undefined) {
      const serial = known.options.serialTools;
      take = {
        workerId: this.id,
        tools: this.toolNames.filter(
          (tool) => !asksApproval(known.approvalTools, tool, this.settings.tools.get(tool)) && serial?.includes(tool) !== true,
        ),
      };
      this.#takes.set(known, take);
    }
    return take;
  }

  /**
   * One try of a claimed step (`taken`: a settle took it, it has no job of its own), its outcome
   * stored as `afterTry` says (one method per answer); the dependent the settle took next, if any.
   */
  async #runClaimed(
    claimed: ClaimedStep,
    helpers: import("graphile-worker").JobHelpers,
    taken: boolean,
    claim: TracedTries | undefined,
  ): Promise<ClaimedStep | undefined> {
    const { runId, stepId, tool, attempt, known } = claimed;
    const fn = this.settings.tools.get(tool);
    // A tool marked with requireApproval always waits here: its rule may be asynchronous, and a claim does not wait on a promise.
    const waiting = fn === undefined ? undefined : approvalArgs(claimed, fn);
    if (waiting !== undefined) return void (await this.#awaitApproval(runId, stepId, tool, attempt, waiting, known));
    const trace = claim === undefined ? undefined : storedStepTrace(known.options.trace, { runId, id: stepId, tool, attempt }, claim);
    const run: ClaimedTry = { claimed, helpers, taken, trace, t0: performance.now() };
    const outcome = await this.#call(run);
    if (helpers.abortSignal.aborted && !outcome.ok) return this.#release(run);
    const failed = outcome.ok ? undefined : outcome;
    // A failed try its run's policy retries waits in the database (its job's run_at), not here.
    const after = afterTry(failed?.failure, failed === undefined ? undefined : retryPolicyOf(known.retry, tool), attempt);
    switch (after.next) {
      case "done":
        return this.#done(run, outcome);
      // Only a failed try is retried or fails (`afterTry`): `failed` is set.
      case "retry":
        return this.#retry(run, failed!, after);
      case "failed":
        return this.#failed(run, failed!);
      default:
        return after satisfies never;
    }
  }

  /** The try itself: the step's tool called on the shared attempt, aborted when the run stops or this worker is stopping. */
  async #call(run: ClaimedTry): Promise<TryOutcome> {
    const { claimed, helpers } = run;
    const { runId, stepId, tool, attempt, known } = claimed;
    const { tools } = this.settings;
    this.#emit({ type: "step-start", runId, stepId, tool, attempt });
    const controller = new AbortController();
    const active: Active = { runId, stepId, controller };
    this.#active.add(active);
    const onShutdown = (): void => controller.abort(new RefError("aborted", "the worker is stopping"));
    helpers.abortSignal.addEventListener("abort", onShutdown);
    try {
      return await runClaimedStep(claimed, {
        fn: tools.get(tool),
        toolNames: tools.keys(),
        timeoutMs: tryTimeoutMs(known.options.timeoutMs, this.settings.timeoutMs),
        controller,
        validateInputs: checksInputs(known.options.validateInputs, this.settings.validateInputs),
        trace: run.trace,
      });
    } finally {
      helpers.abortSignal.removeEventListener("abort", onShutdown);
      this.#active.delete(active);
      this.limits?.leave(helpers.job.id); // the call ended: the next step of its tool may start while this one is stored
    }
  }

  /**
   * Stopped before the step finished: the step is ready again and its job free at once, the try not
   * counted (a release is no failure); another worker runs it. A taken step gets a job; the job this
   * worker holds then is a done step's, and ends.
   */
  async #release(run: ClaimedTry): Promise<undefined> {
    const { runId, stepId, tool, attempt } = run.claimed;
    const release = run.taken
      ? this.#giveBack(run)
      : releaseStep(this.pool, this.connection, { runId, stepId, attempt, jobId: run.helpers.job.id, workerId: this.id });
    await release.catch(() => undefined);
    run.trace?.settled(undefined, "moot");
    this.#emit({ type: "step-released", runId, stepId, tool, attempt });
    if (run.taken) return undefined;
    throw new Error(`plan-refs: step ${stepId} of run ${runId} released: the worker stopped`);
  }

  /** A step a settle took for this worker given back (it has no job of its own): ready again with a job, if this attempt still holds it. */
  #giveBack(run: ClaimedTry): Promise<void> {
    const { runId, stepId, attempt } = run.claimed;
    return releaseTakenStep(this.pool, this.connection, { runId, stepId, attempt });
  }

  /** `afterTry` said done: the result stored, the dependents it makes ready queued (one may be taken to run next, here). */
  async #done(run: ClaimedTry, outcome: TryOutcome): Promise<ClaimedStep | undefined> {
    const { runId, stepId, tool, attempt, known } = run.claimed;
    const take = this.#take(known, run.helpers);
    const stored = await this.#store(run, () =>
      settleStep(this.pool, this.connection, { runId, stepId, attempt, outcome, failFast: known.options.failFast, known, take }),
    );
    if (stored === undefined) return undefined;
    this.#emit({ type: "step-done", runId, stepId, tool, attempt, durationMs: performance.now() - run.t0 });
    return stored.next === undefined ? undefined : claimedStep(runId, stored.next.stepId, stored.next, known);
  }

  /** `afterTry` said retry: the step waits in the database for its next try (its job's run_at), by whichever worker takes it then. */
  async #retry(run: ClaimedTry, outcome: FailedTry, after: Extract<AfterTry, { next: "retry" }>): Promise<undefined> {
    const { runId, stepId, tool, attempt } = run.claimed;
    const stored = await this.#store(run, async () => ({
      settled: await retryLater(this.pool, this.connection, { runId, stepId, attempt, error: outcome.error, delayMs: after.delayMs }),
    }));
    if (stored !== undefined)
      this.#emit({
        type: "step-retry",
        runId,
        stepId,
        tool,
        attempt,
        attempts: after.attempts,
        delayMs: after.delayMs,
        error: rebuildStepError(stepId, tool, outcome.error),
      });
    return undefined;
  }

  /** `afterTry` said failed: the failure stored (and the result, when it keeps one), what waits on the step skipped. */
  async #failed(run: ClaimedTry, outcome: FailedTry): Promise<undefined> {
    const { runId, stepId, tool, attempt, known } = run.claimed;
    const stored = await this.#store(run, () =>
      settleStep(this.pool, this.connection, { runId, stepId, attempt, outcome, failFast: known.options.failFast, known }),
    );
    if (stored !== undefined)
      this.#emit({
        type: "step-failed",
        runId,
        stepId,
        tool,
        attempt,
        durationMs: performance.now() - run.t0,
        error: rebuildStepError(stepId, tool, outcome.error),
      });
    return undefined;
  }

  /**
   * A try's end stored by `write` (tried again while the database is away; the settle's span when
   * traced): what was stored, or `undefined` when nothing was (`moot`: the step or its run was settled
   * otherwise; `lost`: see `#lost`). When PostgreSQL refuses it, the error is thrown: graphile-worker
   * fails the job and tries it again later, the step still running on its attempt (what `write` did
   * was rolled back, a step it took included). A step a settle took has no job of its own to try it
   * again: it is given back first, else it would stay running with no job until this worker died.
   */
  async #store(run: ClaimedTry, write: () => Promise<SettleResult>): Promise<SettleResult | undefined> {
    const settle = run.trace === undefined ? undefined : new TracedTries();
    const result = await this.#retrying(write, settle).catch(async (thrown: unknown) => {
      run.trace?.settled(settle, { thrown });
      // The settle's error is the one the job records; a step PostgreSQL will not give back either waits for recovery (requeue-orphans).
      if (run.taken) await this.#retrying(() => this.#giveBack(run)).catch(() => undefined);
      throw thrown;
    });
    run.trace?.settled(settle, result.settled);
    if (result.settled === "lost") return this.#lost(run);
    return result.settled === "stored" ? result : undefined;
  }

  /** This attempt ended after another worker had taken the step (this one was taken for dead): its outcome was not stored. */
  #lost(run: ClaimedTry): undefined {
    const { runId, stepId, tool, attempt } = run.claimed;
    this.#emit({ type: "step-lost", runId, stepId, tool, attempt });
    // A taken step's job is not this one: the job this worker holds is a done step's, and ends.
    if (run.taken) return undefined;
    // The job is the other attempt's now: throwing leaves it alone (graphile-worker fails a job only
    // while this worker holds it), completing would delete it under the other attempt. When this same
    // worker holds it for that attempt, the attempt ends the job itself.
    if ([...this.#active].some((other) => other.runId === runId && other.stepId === stepId)) return undefined;
    throw new Error(`plan-refs: step ${stepId} of run ${runId}: attempt ${attempt} lost the step to a later attempt`);
  }

  /** The claimed step waits for approval with its resolved arguments (`args`, JSON), its tool not called; its job is done. */
  async #awaitApproval(runId: string, stepId: number, tool: string, attempt: number, args: string, known: KnownRun): Promise<void> {
    const stored = await this.#retrying(() =>
      awaitApproval(this.pool, this.connection, { runId, stepId, attempt, args, suspended: suspendedStatus(known) ?? "suspended" }),
    );
    if (stored) this.#emit({ type: "step-awaiting-approval", runId, stepId, tool, args: JSON.parse(args) as Record<string, unknown> });
  }
}
