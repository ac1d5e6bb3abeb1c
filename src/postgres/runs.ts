/**
 * Reading runs back: `getRun` (the snapshot now), `waitForRun` (the final report, woken by
 * LISTEN/NOTIFY, never a tight polling loop) and `cancelRun`.
 */
import type { PendingStep, RunReport, StepTiming } from "../step/report.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import type { StepError } from "../step/step-error.js";
import { ownData } from "../shared/own-data.js";
import { normalizeOptions } from "../shared/options.js";
import { resolveOutput } from "../step/plan-output.js";
import {
  connectClient,
  databaseError,
  inTransaction,
  isConnectionError,
  poolFor,
  readConnection,
  type Connection,
  type ConnectionOptions,
} from "./db.js";
import { PostgresError } from "./errors.js";
import { storedRetry } from "./known-runs.js";
import { retryPolicyOf, type RetryOptionValues } from "../step/settings.js";
import type { StoredRunOptions } from "./submit.js";
import type { PgClient, PgQueryable } from "./peers.js";
import { finishedChannel, progressChannel } from "./queue.js";
import { listenOn } from "./sql/listen.js";
import { lockRun } from "./sql/lock-run.js";
import { readRunRow } from "./sql/read-run.js";
import { readStepRows } from "./sql/read-step-rows.js";
import { watchRun } from "./sql/watch-run.js";
import { stopSteps } from "./transitions.js";
import { rebuildStepError } from "./stored-error.js";
import { AWAITING_APPROVAL, RETRYING, RUNNING_RUN, type StoredRunStatus, type StoredState } from "./stored-states.js";
import { cutText } from "../shared/text.js";

/** One step of a run as it stands. Times are milliseconds since the run was submitted. */
export interface StepSnapshot {
  readonly tool: string;
  /** `retrying`: a try failed and the step waits to be tried again (at `retryAtMs`; `lastError` says why). `awaiting-approval`: its tool needs approval and was not called (the run's `pending` has its resolved arguments). */
  readonly state: StoredState;
  /** How many times a worker started it (more than 1 after a worker died or stopped while it ran). */
  readonly attempt: number;
  readonly startMs?: number;
  readonly endMs?: number;
  /** For a skipped step: the step whose failure (or skip) blocked it (none when the run stopped). */
  readonly blockedBy?: number;
  /** When a retrying step is tried next. */
  readonly retryAtMs?: number;
  /** How long until a retrying step is tried next, by the database's clock when the snapshot was read (0: due). */
  readonly retryInMs?: number;
  /** A retrying step's tries in all, as its run's policy for its tool allows. */
  readonly attempts?: number;
  /** A retrying step's last try's error. */
  readonly lastError?: StepError;
  /** `true` for a ready step whose tool no running worker has: it waits until a worker with that tool starts. */
  readonly noWorkerHasTool?: true;
}

/** A run as it stands: `status` is `running` until every step has settled (or `suspended`: steps wait for approval, nothing else can run), then the report's own. */
export interface RunSnapshot extends Omit<RunReport, "status"> {
  readonly runId: string;
  readonly status: StoredRunStatus;
  /** Every step, in plan order. */
  readonly steps: ReadonlyMap<number, StepSnapshot>;
}

/** Options of `waitForRun`. */
export interface WaitOptions extends ConnectionOptions {
  /** Stop waiting (the promise rejects with `wait-aborted`; the run goes on). */
  readonly signal?: AbortSignal;
  /** Stop waiting after this long (rejects with `wait-timeout`; the run goes on). Default: no limit. */
  readonly timeoutMs?: number;
  /** Called with a fresh snapshot when the run progresses (a step started or settled); what it throws is ignored. */
  readonly onProgress?: (snapshot: RunSnapshot) => void;
}

/** What a snapshot says of a retrying step: its last try's error, when it is tried next and how many tries it has in all. */
function retryingOf(row: Record<string, unknown>, id: number, retry: RetryOptionValues): Partial<StepSnapshot> {
  const tool = String(row.tool);
  return {
    lastError: rebuildStepError(id, tool, row.error),
    ...(row.retry_ms === null ? {} : { retryAtMs: Number(row.retry_ms), retryInMs: Math.max(0, Number(row.retry_in_ms)) }),
    attempts: retryPolicyOf(retry, tool)?.attempts ?? 1,
  };
}

async function readSnapshot(client: PgQueryable, connection: Connection, runId: string): Promise<RunSnapshot> {
  const run = await readRunRow(client, connection, runId);
  if (run === undefined) throw new PostgresError("unknown-run", `no run ${JSON.stringify(cutText(runId, 200))} in ${connection.where}`);
  const steps = await readStepRows(client, connection, runId);
  const results = new Map<number, unknown>();
  const errors = new Map<number, StepError>();
  const skipped: number[] = [];
  const timings = new Map<number, StepTiming>();
  const pending = new Map<number, PendingStep>();
  // Every start counts, also one after a worker died, as runPlan counts every try.
  const attempts = new Map<number, number>();
  const byOrdinal: [number, number, StepSnapshot][] = [];
  const retry = storedRetry((run.options ?? {}) as StoredRunOptions);
  for (const row of steps) {
    const id = Number(row.step_id);
    byOrdinal.push([
      Number(row.ordinal),
      id,
      {
        tool: String(row.tool),
        state: row.state as StoredState,
        attempt: Number(row.attempt),
        ...(row.start_ms === null ? {} : { startMs: Number(row.start_ms) }),
        ...(row.end_ms === null ? {} : { endMs: Number(row.end_ms) }),
        ...(row.blocked_by === null ? {} : { blockedBy: Number(row.blocked_by) }),
        ...(row.unserved === true ? { noWorkerHasTool: true as const } : {}),
        ...(row.state === RETRYING ? retryingOf(row, id, retry) : {}),
      },
    ]);
    if (Number(row.attempt) > 0) attempts.set(id, Number(row.attempt));
    if (row.has_result === true) results.set(id, row.no_result === true ? undefined : row.result);
    if (row.state === "failed") errors.set(id, rebuildStepError(id, String(row.tool), row.error));
    if (row.state === "skipped") skipped.push(id);
    if (row.state === AWAITING_APPROVAL) {
      pending.set(id, { tool: String(row.tool), args: (row.approval_args ?? {}) as Record<string, unknown> });
      // As runPlan times it: from its turn to now (or to the run's end), the time it waited.
      if (row.start_ms !== null)
        timings.set(id, {
          startMs: Number(row.start_ms),
          endMs: Number(run.total_ms),
          durationMs: Number(run.total_ms) - Number(row.start_ms),
        });
    }
    if (row.start_ms !== null && row.end_ms !== null && (row.state === "done" || row.state === "failed")) {
      const startMs = Number(row.start_ms);
      const endMs = Number(row.end_ms);
      timings.set(id, { startMs, endMs, durationMs: endMs - startMs });
    }
  }
  const status = run.status as RunSnapshot["status"];
  // The output is the run's when it has ended (as runPlan resolves it then), from the same rule.
  const ended = status !== RUNNING_RUN && status !== "invalid";
  const output =
    ended && run.output !== null && typeof run.output === "object"
      ? resolveOutput(run.output as Record<string, unknown>, results, errors, skipped, normalizeOptions(run.language ?? undefined))
      : {};
  return {
    runId,
    status,
    ...(typeof run.plan_hash === "string" ? { planHash: run.plan_hash } : {}),
    ...output,
    results,
    errors,
    skipped,
    diagnostics: run.diagnostics as Diagnostic[],
    timings: { totalMs: Number(run.total_ms), steps: timings },
    attempts,
    pending,
    steps: new Map(byOrdinal.sort((a, b) => a[0] - b[0]).map(([, id, step]) => [id, step])),
  };
}

function readRunId(runId: unknown, what: string): string {
  if (typeof runId !== "string" || runId === "")
    throw new PostgresError("invalid-options", `${what}: the run id must be a non-empty string`);
  return runId;
}

/**
 * The run as it stands now. Rejects with `unknown-run` for a run id that does not exist.
 *
 * @example
 * const { status, results } = await getRun(runId, { connectionString })
 */
export async function getRun(runId: string, options: ConnectionOptions = {}): Promise<RunSnapshot> {
  const connection = readConnection(options, "getRun");
  const id = readRunId(runId, "getRun");
  const pool = await poolFor(connection);
  try {
    return await readSnapshot(pool, connection, id);
  } catch (error) {
    throw databaseError(error, connection);
  }
}

/**
 * Wait for a run to finish, or to be suspended (steps wait for approval and nothing else can run:
 * `report.pending` lists them with their resolved arguments), and get its report: the same shape as `runPlan`'s. Woken by PostgreSQL's
 * LISTEN/NOTIFY (and a slow check every few seconds, in case a notification was missed); when the
 * database goes away after the first connection, it reconnects until `timeoutMs`.
 *
 * @example
 * const report = await waitForRun(runId, { connectionString, timeoutMs: 60_000 })
 * report.status // "ok"
 */
export async function waitForRun(runId: string, options: WaitOptions = {}): Promise<RunReport & { readonly runId: string }> {
  const connection = readConnection(options, "waitForRun");
  const id = readRunId(runId, "waitForRun");
  const signal = ownData(options, "signal");
  const timeoutMs = ownData(options, "timeoutMs");
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new PostgresError("invalid-options", "waitForRun: signal must be an AbortSignal");
  if (timeoutMs !== undefined && (typeof timeoutMs !== "number" || !(timeoutMs > 0)))
    throw new PostgresError("invalid-options", "waitForRun: timeoutMs must be a positive number");
  const onProgress = ownData(options, "onProgress");
  if (onProgress !== undefined && typeof onProgress !== "function")
    throw new PostgresError("invalid-options", "waitForRun: onProgress must be a function");
  const deadline = timeoutMs === undefined ? Infinity : performance.now() + timeoutMs;
  const pool = await poolFor(connection);
  let client: PgClient | undefined;
  let wake: (() => void) | undefined;
  const onAbort = (): void => wake?.();
  signal?.addEventListener("abort", onAbort);
  let connectedOnce = false;
  try {
    for (;;) {
      if (signal?.aborted === true)
        throw new PostgresError(
          "wait-aborted",
          `stopped waiting for run ${JSON.stringify(cutText(id, 200))}: the signal was aborted (the run goes on)`,
        );
      if (performance.now() >= deadline)
        throw new PostgresError(
          "wait-timeout",
          `run ${JSON.stringify(cutText(id, 200))} did not finish within ${String(timeoutMs)} ms (it goes on)`,
        );
      let notified: Promise<void> = Promise.resolve();
      try {
        if (client === undefined) {
          const made = await connectClient(connection);
          made.on("notification", (message) => {
            if (message.payload === id) wake?.();
          });
          made.on("error", () => {
            if (client === made) client = undefined;
            wake?.();
          });
          await listenOn(made, finishedChannel(connection));
          if (onProgress !== undefined) {
            await listenOn(made, progressChannel(connection));
            // Workers announce a run's steps only while someone follows it (after this, before the snapshot below).
            await watchRun(made, connection, id);
          }
          client = made;
        }
        notified = new Promise((resolve) => {
          wake = resolve;
        });
        const snapshot = await readSnapshot(pool, connection, id);
        connectedOnce = true;
        if (onProgress !== undefined) {
          try {
            (onProgress as (snapshot: RunSnapshot) => void)(snapshot);
          } catch {
            // A broken listener must not stop the wait.
          }
        }
        if (snapshot.status !== RUNNING_RUN) {
          const { status, ...rest } = snapshot;
          return { ...rest, status };
        }
      } catch (error) {
        const failed = error instanceof PostgresError ? error : databaseError(error, connection);
        if (!connectedOnce || (failed.code !== "database-unreachable" && !isConnectionError(error))) throw failed;
        await client?.end().catch(() => undefined);
        client = undefined;
        notified = new Promise((resolve) => {
          wake = resolve;
          setTimeout(resolve, 500);
        });
      }
      // Woken by the run's notification, a lost connection, the signal, or a slow re-check.
      const wait = Math.min(5_000, Math.max(0, deadline - performance.now()));
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([notified, new Promise<void>((resolve) => (timer = setTimeout(resolve, wait)))]);
      clearTimeout(timer);
      wake = undefined;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    await client?.end().catch(() => undefined);
  }
}

/**
 * Abort a run: running steps fail with code `aborted` and their signals are aborted on their workers,
 * steps not started are skipped, steps waiting for approval keep waiting (so the report still says
 * what they wait for; a suspended run is aborted too), and the run's status becomes `aborted`. `false`
 * when the run had already finished. Rejects with `unknown-run` for a run id that does not exist.
 *
 * @example
 * await cancelRun(runId, { connectionString }) // true
 */
export async function cancelRun(runId: string, options: ConnectionOptions = {}): Promise<boolean> {
  const connection = readConnection(options, "cancelRun");
  const id = readRunId(runId, "cancelRun");
  const pool = await poolFor(connection);
  try {
    return await inTransaction(pool, async (client) => {
      const run = await lockRun(client, connection, id);
      if (run === undefined) throw new PostgresError("unknown-run", `no run ${JSON.stringify(cutText(id, 200))} in ${connection.where}`);
      // A suspended run has not ended: its steps waiting for approval keep waiting, the rest stop.
      if (run.status !== RUNNING_RUN && run.status !== "suspended") return false;
      await stopSteps(client, connection, id, "aborted");
      return true;
    });
  } catch (error) {
    throw databaseError(error, connection);
  }
}
