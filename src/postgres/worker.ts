/**
 * `startWorker`: a graphile-worker runner whose one task runs a plan-refs step. For each job it marks
 * the step running (a new attempt), reads the results of the step's dependencies, resolves its
 * arguments with the run's options (the same evaluator as `runPlan`), calls the tool, and stores the
 * outcome and enqueues the dependents it makes ready in one transaction (`settleStep`).
 *
 * Recovery: every worker writes a heartbeat row; a worker whose heartbeat is older than `recoveryMs`
 * is taken for dead by the others, which release its jobs with graphile-worker's
 * `force_unlock_workers`, so its steps run again elsewhere (tools run at least once; `ctx.attempt`
 * counts). A result is stored once: only the attempt that holds the step may write it.
 */
import { EventEmitter } from "node:events";
import { hostname } from "node:os";
import type { StepError } from "../run/step-error.js";
import { RefError } from "../shared/errors.js";
import { ownData } from "../shared/own-data.js";
import { DEFAULT_RECOVERY_MS, readWorkerSettings, type WorkerSettings } from "../run/settings.js";
import { connectClient, databaseError, isConnectionError, POOL_SIZE, poolFor, readConnection, table, type Connection, type ConnectionOptions } from "./db.js";
import { PostgresError } from "./errors.js";
import type { PgClient, PgPool } from "./peers.js";
import { loadGraphileWorker } from "./graphile.js";
import { backoff, makeJobPool, sleep } from "./job-pool.js";
import { progressChannel, stepTask, stoppedChannel, toolTask } from "./queue.js";
import { PAST_DEADLINE, releaseStep, requeueOrphans } from "./recovery.js";
import { settleStep, type StepOutcome } from "./transitions.js";
import { silentLogger } from "./worker-logger.js";
import { connectionsNeeded, WORKER_LIMITS } from "./worker-settings.js";
import { KnownRuns } from "./known-runs.js";
import { rebuildStepError } from "./stored-error.js";
import { runClaimedStep, type ClaimedStep, type WorkerToolFunction } from "./worker-step.js";

export type { WorkerToolContext, WorkerToolFunction } from "./worker-step.js";
export { DEFAULT_RECOVERY_MS } from "../run/settings.js";

/** What a worker does, as it happens. */
export type WorkerEvent =
  | { readonly type: "step-start"; readonly runId: string; readonly stepId: number; readonly tool: string; readonly attempt: number }
  | { readonly type: "step-done"; readonly runId: string; readonly stepId: number; readonly tool: string; readonly attempt: number; readonly durationMs: number }
  | { readonly type: "step-failed"; readonly runId: string; readonly stepId: number; readonly tool: string; readonly attempt: number; readonly durationMs: number; readonly error: StepError }
  | { readonly type: "step-released"; readonly runId: string; readonly stepId: number; readonly tool: string; readonly attempt: number }
  /** This attempt ended after another worker had taken the step (this one was taken for dead): its outcome was not stored. */
  | { readonly type: "step-lost"; readonly runId: string; readonly stepId: number; readonly tool: string; readonly attempt: number }
  | { readonly type: "workers-recovered"; readonly workerIds: readonly string[] };

/** Options of `startWorker`. */
export interface WorkerOptions extends ConnectionOptions {
  /** The tools this worker can run, by name (own data properties, read once). It takes only steps whose tool is here: a step whose tool no running worker has waits for one (`getRun` and `plan-refs status` say so). */
  readonly tools: Readonly<Record<string, WorkerToolFunction>>;
  /** Most steps running at once in this worker (default 8; 1 to 256, and no more than the database's `max_connections` leaves: it needs concurrency + 13 connections). */
  readonly concurrency?: number;
  /** Stop the worker (as `worker.stop()`). */
  readonly signal?: AbortSignal;
  /**
   * This worker is taken for dead once silent this long (default 30,000 ms; 1,000 to 2^31 − 1): it
   * publishes the window with each heartbeat (every quarter of it), other workers judge it by it,
   * counting only time the database has seen pass, and its steps then run elsewhere.
   */
  readonly recoveryMs?: number;
  /** Default step timeout when the run gives none (default: no limit). */
  readonly timeoutMs?: number;
  /** When stopping, how long running steps may go on before their signals are aborted and they are released, at once and without spending a try (default 5,000 ms; 1 to 2^31 − 5,001). */
  readonly graceMs?: number;
  /** Called for every event; what it throws is ignored. */
  readonly onEvent?: (event: WorkerEvent) => void;
  /** Check every step's resolved arguments against its run's stored catalog, as a run submitted with `validateInputs` asks (default `false`). */
  readonly validateInputs?: boolean;
}

/** A running worker. */
export interface Worker {
  /** graphile-worker's id of this worker's pool (what its jobs are locked by). */
  readonly id: string;
  /** Stop taking steps, let running ones finish (up to `graceMs`), release the rest; resolves when stopped. */
  stop(): Promise<void>;
  /** Settles when the worker has stopped (rejects if it stopped because of an error). */
  readonly promise: Promise<void>;
}

type Settings = WorkerSettings<WorkerToolFunction, WorkerEvent>;

/** `startWorker`'s options, read with the shared readers and the worker's bounds. */
function readSettings(options: object): Settings {
  return readWorkerSettings(options, (message) => new PostgresError("invalid-options", `startWorker: ${message}`), WORKER_LIMITS);
}

/**
 * Start a worker: it takes step jobs of any run from PostgreSQL and runs them with `tools`, until
 * `stop()` (or `signal`). Run as many as you like, in as many processes and on as many machines.
 *
 * @example
 * const worker = await startWorker({ connectionString, tools: { geocode, weather } })
 * process.on("SIGTERM", () => void worker.stop())
 */
export async function startWorker(options: WorkerOptions): Promise<Worker> {
  if (typeof options !== "object" || options === null) throw new PostgresError("invalid-options", "startWorker options must be an object");
  const connection = readConnection(options, "startWorker");
  const settings = readSettings(options);
  const graphile = await loadGraphileWorker();
  const pool = await poolFor(connection);
  const events = new EventEmitter() as import("graphile-worker").WorkerEvents;
  let workerPool: import("graphile-worker").WorkerPool | undefined;
  events.on("pool:create", ({ workerPool: made }) => {
    workerPool = made;
  });
  const worker = new StepWorker(connection, settings, pool);
  // graphile-worker's own pool, so that its clients' errors (a server restart) are handled, the job it
  // ends while the database is away is ended once it is back, and it ends with the worker.
  const jobPool = await makeJobPool({ connectionString: connection.connectionString, max: settings.concurrency + 2, connectionTimeoutMillis: 10_000 }, () => worker.closed);
  jobPool.on("error", () => undefined);
  jobPool.on("connect", (client) => client.on("error", () => undefined));
  let runner: import("graphile-worker").Runner;
  try {
    // The plan-refs tables must be there (a clear error rather than failing jobs).
    await pool.query(`select 1 from ${table(connection, "workers")} limit 0`);
    await checkConnections(pool, connection, settings.concurrency);
    runner = await graphile.run({
      pgPool: jobPool as unknown as import("graphile-worker").RunnerOptions["pgPool"],
      concurrency: settings.concurrency,
      noHandleSignals: true,
      pollInterval: Math.min(2_000, Math.max(100, Math.floor(settings.recoveryMs / 4))),
      gracefulShutdownAbortTimeout: settings.graceMs,
      logger: await silentLogger(),
      events,
      taskList: taskList(connection, settings.tools, (payload, helpers) => worker.runJob(payload, helpers)),
    });
  } catch (error) {
    await jobPool.end().catch(() => undefined);
    throw databaseError(error, connection);
  }
  const id = workerPool?.id ?? "unknown";
  worker.id = id;
  worker.nudge = (n) => workerPool?.nudge(n);
  await worker.start();
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      worker.stopping = true;
      const force = setTimeout(() => void runner.kill("plan-refs worker: grace period over").catch(() => undefined), settings.forceStopMs);
      try {
        await runner.stop("plan-refs worker stopping");
      } catch {
        // Already stopped, or stopping failed: the worker is gone either way.
      } finally {
        clearTimeout(force);
        await worker.close();
        await jobPool.end().catch(() => undefined);
      }
    })();
    return stopping;
  };
  const signal = settings.signal;
  if (signal !== undefined) {
    if (signal.aborted) void stop();
    else signal.addEventListener("abort", () => void stop(), { once: true });
  }
  const promise = runner.promise.then(
    () => stop(),
    async (error: unknown) => {
      await stop();
      throw databaseError(error, connection);
    },
  );
  promise.catch(() => undefined);
  return { id, stop, promise };
}

/**
 * One task per tool this worker has (it takes only steps it can run), and the task of jobs queued
 * before steps were routed by tool.
 */
function taskList(connection: Connection, tools: ReadonlyMap<string, WorkerToolFunction>, run: import("graphile-worker").Task): import("graphile-worker").TaskList {
  const list: Record<string, import("graphile-worker").Task> = Object.create(null) as Record<string, import("graphile-worker").Task>;
  list[stepTask(connection)] = run;
  for (const name of tools.keys()) list[toolTask(connection, name)] = run;
  return list;
}

/** Refuse a concurrency the database cannot give connections for (rather than "too many clients" later, mid-run). */
async function checkConnections(pool: PgPool, connection: Connection, concurrency: number): Promise<void> {
  const found = await pool.query("select current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int as available");
  const available = Number(found.rows[0]?.available);
  const needed = connectionsNeeded(concurrency, POOL_SIZE);
  if (Number.isFinite(available) && needed > available) {
    throw new PostgresError("invalid-options", `startWorker: concurrency ${concurrency} needs up to ${needed} connections, and PostgreSQL at ${connection.where} allows ${available} in all (max_connections): lower the concurrency`);
  }
}

/** A step this worker is running. */
interface Active {
  readonly runId: string;
  readonly stepId: number;
  readonly controller: AbortController;
}

/** The state of one worker: its heartbeat, the steps it runs, and the job handler. */
class StepWorker {
  id = "unknown";
  stopping = false;
  nudge: (n: number) => void = () => undefined;
  readonly #active = new Set<Active>();
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #listener: PgClient | undefined;
  #closed = false;
  readonly #runs = new KnownRuns();
  /** The tools this worker has, as its heartbeat publishes them (`status` says when no running worker has a step's tool). */
  readonly #toolNames: string[];

  constructor(
    readonly connection: Connection,
    readonly settings: Settings,
    readonly pool: PgPool,
  ) {
    this.#toolNames = [...settings.tools.keys()];
  }

  async start(): Promise<void> {
    await this.#beat();
    const every = Math.max(100, Math.floor(this.settings.recoveryMs / 4));
    this.#heartbeat = setInterval(() => void this.#tick(), every);
    this.#heartbeat.unref();
    await this.#listen();
  }

  /** Whether the worker stopped (what waits for the database gives up then). */
  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    for (const active of this.#active) active.controller.abort(new RefError("aborted", "the worker stopped"));
    await this.pool.query(`delete from ${table(this.connection, "workers")} where id = $1`, [this.id]).catch(() => undefined);
    await this.#listener?.end().catch(() => undefined);
    this.#listener = undefined;
  }

  /** The heartbeat, and with it the deadline others judge this worker by: silent past its own `recoveryMs`. */
  async #beat(): Promise<void> {
    await this.pool.query(
      `insert into ${table(this.connection, "workers")} (id, label, recovery_ms, tools) values ($1, $2, $3, $4)
       on conflict (id) do update set heartbeat_at = clock_timestamp(), recovery_ms = excluded.recovery_ms, tools = excluded.tools`,
      [this.id, `${hostname()} pid ${process.pid}`, this.settings.recoveryMs, this.#toolNames],
    );
  }

  /**
   * The heartbeat; the search for dead workers, whose jobs are released; and the search for steps left
   * with no job (their run goes on only if they are queued again).
   */
  async #tick(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#beat();
      const ids = await this.#recover();
      if (ids.length > 0) {
        // Said before the unlock: the steps this worker takes next are theirs.
        this.#emit({ type: "workers-recovered", workerIds: ids });
        await this.pool.query("select graphile_worker.force_unlock_workers($1::text[])", [ids]);
        this.nudge(ids.length);
      }
      const requeued = await this.pool.query(requeueOrphans(this.connection));
      const n = Number(requeued.rows[0]?.n ?? 0);
      if (n > 0) this.nudge(n);
      if (this.#listener === undefined) await this.#listen();
    } catch {
      // The database is away: the next beat tries again.
    }
  }

  /**
   * Workers taken for dead: past the deadline each published with its last heartbeat, counted only on
   * time the database has seen pass (from its start, if it restarted since: an outage is no worker's
   * death); and whoever holds plan-refs jobs without a heartbeat row, after a generous window.
   */
  async #recover(): Promise<string[]> {
    const workers = table(this.connection, "workers");
    const found = await this.pool.query(
      `with dead as (
         delete from ${workers} w where w.id <> $1 and ${PAST_DEADLINE("w")} returning id
       ), strays as (
         select distinct j.locked_by as id from graphile_worker.jobs j
         where j.locked_by is not null and j.locked_by <> $1 and left(j.task_identifier, length($3)) = $3
           and greatest(j.locked_at, pg_postmaster_start_time()) < clock_timestamp() - $2 * interval '1 millisecond'
           and j.locked_by not in (select id from ${workers})
       )
       select id from dead union select id from strays`,
      [this.id, Math.max(this.settings.recoveryMs, DEFAULT_RECOVERY_MS), stepTask(this.connection)],
    );
    return found.rows.map((row) => String(row.id));
  }

  /** `work` again while the database is away (an outage of any length), until the worker stops. */
  async #retrying<T>(work: () => Promise<T>): Promise<T> {
    for (let tries = 0; ; tries++) {
      try {
        return await work();
      } catch (error) {
        if (this.#closed || !isConnectionError(error instanceof PostgresError && error.cause !== undefined ? error.cause : error)) throw error;
        await sleep(backoff(tries));
      }
    }
  }

  /** Listen for stopped runs (their running steps' signals are aborted here). Reconnects from the heartbeat. */
  async #listen(): Promise<void> {
    if (this.#closed) return;
    let client: PgClient;
    try {
      client = await connectClient(this.connection);
    } catch {
      return;
    }
    client.on("notification", (message) => {
      const runId = message.payload;
      for (const active of this.#active) if (active.runId === runId) active.controller.abort(new RefError("aborted", "the run was stopped"));
    });
    client.on("error", () => {
      if (this.#listener === client) this.#listener = undefined;
      void client.end().catch(() => undefined);
    });
    try {
      await client.query(`listen "${stoppedChannel(this.connection)}"`);
      this.#listener = client;
    } catch {
      await client.end().catch(() => undefined);
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
    if (typeof runId !== "string" || typeof stepId !== "number") return; // not a job of ours to run
    const claimed = await this.#retrying(() => this.#begin(runId, stepId));
    if (claimed === undefined) return;
    const { tool, attempt, known } = claimed;
    const t0 = performance.now();
    this.#emit({ type: "step-start", runId, stepId, tool, attempt });
    const controller = new AbortController();
    const active: Active = { runId, stepId, controller };
    this.#active.add(active);
    const onShutdown = (): void => controller.abort(new RefError("aborted", "the worker is stopping"));
    helpers.abortSignal.addEventListener("abort", onShutdown);
    let outcome: StepOutcome;
    try {
      const { tools } = this.settings;
      outcome = await runClaimedStep(claimed, tools.get(tool), tools.keys(), known.options.timeoutMs ?? this.settings.timeoutMs, controller, known.options.validateInputs === true || this.settings.validateInputs);
    } finally {
      helpers.abortSignal.removeEventListener("abort", onShutdown);
      this.#active.delete(active);
    }
    if (helpers.abortSignal.aborted && !outcome.ok) {
      // Stopped before the step finished: the step is ready again and its job free at once, the try not
      // counted (a release is no failure); another worker runs it.
      await this.pool.query(releaseStep(this.connection), [runId, stepId, attempt, helpers.job.id, this.id]).catch(() => undefined);
      this.#emit({ type: "step-released", runId, stepId, tool, attempt });
      throw new Error(`plan-refs: step ${stepId} of run ${runId} released: the worker stopped`);
    }
    const stored = await this.#retrying(() => settleStep(this.pool, this.connection, runId, stepId, attempt, outcome, known.options.failFast, known));
    if (stored === "lost") {
      this.#emit({ type: "step-lost", runId, stepId, tool, attempt });
      // The job is the other attempt's now: throwing leaves it alone (graphile-worker fails a job only
      // while this worker holds it), completing would delete it under the other attempt. When this same
      // worker holds it for that attempt, the attempt ends the job itself.
      if ([...this.#active].some((other) => other.runId === runId && other.stepId === stepId)) return;
      throw new Error(`plan-refs: step ${stepId} of run ${runId}: attempt ${attempt} lost the step to a later attempt`);
    }
    if (stored !== "stored") return;
    const durationMs = performance.now() - t0;
    if (outcome.ok) this.#emit({ type: "step-done", runId, stepId, tool, attempt, durationMs });
    else this.#emit({ type: "step-failed", runId, stepId, tool, attempt, durationMs, error: rebuildStepError(stepId, tool, outcome.error) });
  }

  /**
   * Mark the step running (a new attempt) and read what it needs, in one prepared statement: its tool,
   * arguments and dependencies' results, and the run (options, catalog, diagnostics, graph) the first
   * time this worker sees it; `undefined` when it is not to run (settled, or its run stopped).
   */
  async #begin(runId: string, stepId: number): Promise<ClaimedStep | undefined> {
    const steps = table(this.connection, "steps");
    const runs = table(this.connection, "runs");
    let known = this.#runs.get(runId);
    const found = await this.pool.query({
      name: `plan_refs.claim.${this.connection.schema}`,
      text: `with run as (select watched, case when $5 then options end as options, case when $5 then catalog end as catalog, case when $5 then diagnostics end as diagnostics
                          from ${runs} where id = $1 and status = 'running'),
            marked as (
              update ${steps} set state = 'running', attempt = attempt + 1, started_at = clock_timestamp(), worker = $3
              where run_id = $1 and step_id = $2 and state in ('ready', 'running') and exists (select 1 from run)
              returning tool, args, dependencies, attempt),
            told as (select pg_notify($4, $1) from marked, run where run.watched)
       select m.tool, m.args, m.attempt, r.options, r.catalog, r.diagnostics, (select count(*) from told) as told,
              case when $5 then (select json_agg(json_build_array(g.step_id, g.dependencies) order by g.ordinal) from ${steps} g where g.run_id = $1) end as graph,
              (select json_agg(json_build_array(d.step_id, d.result, d.result is null)) from ${steps} d
               where d.run_id = $1 and d.state = 'done' and d.step_id in (select json_array_elements_text(m.dependencies)::bigint)) as results
       from marked m, run r`,
      values: [runId, stepId, this.id, progressChannel(this.connection), known === undefined],
    });
    const row = found.rows[0];
    if (row === undefined) return undefined;
    known ??= this.#runs.add(runId, row);
    const results = new Map<number, unknown>();
    // The third item: no result text (the tool returned undefined), as opposed to a JSON null.
    for (const [id, value, none] of (row.results ?? []) as [number, unknown, boolean][]) results.set(Number(id), none ? undefined : value);
    return { runId, stepId, tool: String(row.tool), args: row.args as Record<string, unknown>, attempt: Number(row.attempt), results, known };
  }
}
