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
import { readWorkerSettings, type WorkerSettings } from "./worker-settings.js";
import { databaseError, POOL_SIZE, poolFor, readConnection, type Connection, type ConnectionOptions } from "./db.js";
import { PostgresError } from "./errors.js";
import type { PgPool } from "./peers.js";
import { loadGraphileWorker } from "./graphile.js";
import { graphileSchemaProblem, graphileVersionProblem, installedGraphileWorkerVersion, refuseGraphileWorker } from "./graphile-version.js";
import { makeJobPool } from "./job-pool.js";
import { readSchemaVersion, refuseSchema, workerSchemaProblem } from "./schema-version.js";
import { availableConnections } from "./sql/available-connections.js";
import { checkTables } from "./sql/check-tables.js";
import { graphileSchemaMigration } from "./sql/graphile-schema-migration.js";
import { byTaskOrder, stepTask, toolOfTask, toolTask } from "./queue.js";
import { StepWorker, type WorkerEvent } from "./step-worker.js";
import { silentLogger } from "./worker-logger.js";
import { connectionsNeeded, WORKER_LIMITS } from "./worker-settings.js";
import type { WorkerToolFunction } from "./worker-step.js";

export type { WorkerEvent } from "./step-worker.js";
export type { WorkerToolContext, WorkerToolFunction } from "./worker-step.js";
export { DEFAULT_RECOVERY_MS } from "./worker-settings.js";

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
  /**
   * At most this many calls of a tool at once in this worker, on top of `concurrency` (each 1 to 256).
   * This worker takes no step of a tool at its limit (it stays queued, for another worker), so its free
   * slots go to other tools' steps; the tool's steps are taken in the order of their jobs.
   */
  readonly toolConcurrency?: Readonly<Record<string, number>>;
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
  refuseGraphileWorker(graphileVersionProblem(installedGraphileWorkerVersion()));
  const pool = await poolFor(connection);
  const events = new EventEmitter() as import("graphile-worker").WorkerEvents;
  let workerPool: import("graphile-worker").WorkerPool | undefined;
  events.on("pool:create", ({ workerPool: made }) => {
    workerPool = made;
  });
  const worker = new StepWorker(connection, settings, pool);
  const limits = worker.limits;
  if (limits !== undefined) {
    // Every fetch ends with one of these: the counts of forbiddenFlags stay exact.
    events.on("job:start", ({ job }) => limits.fetched({ id: job.id, tool: toolOfTask(connection, job.task_identifier) }));
    events.on("worker:getJob:empty", () => limits.fetched());
    events.on("worker:getJob:error", () => limits.fetched());
  }
  // graphile-worker's own pool, so that its clients' errors (a server restart) are handled, the job it
  // ends while the database is away is ended once it is back, and it ends with the worker.
  const jobPool = await makeJobPool(
    { connectionString: connection.connectionString, max: settings.concurrency + 2, connectionTimeoutMillis: 10_000 },
    () => worker.closed,
  );
  jobPool.on("error", () => undefined);
  jobPool.on("connect", (client) => client.on("error", () => undefined));
  let runner: import("graphile-worker").Runner;
  try {
    // The plan-refs tables must be there (a clear error rather than failing jobs).
    await checkTables(pool, connection);
    // Within the schema's compatibility window (a rolling upgrade), else one line naming both versions.
    refuseSchema(workerSchemaProblem(await readSchemaVersion(pool, connection)), connection);
    refuseGraphileWorker(graphileSchemaProblem(await graphileSchemaMigration(pool)));
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
      ...(limits === undefined ? {} : { forbiddenFlags: () => limits.forbidden() }),
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
      worker.beginStop();
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
 * before steps were routed by tool; in `byTaskOrder`, as graphile-worker registers them in one
 * statement, creating the new ones in the order every statement that queues steps creates them.
 */
function taskList(
  connection: Connection,
  tools: ReadonlyMap<string, WorkerToolFunction>,
  run: import("graphile-worker").Task,
): import("graphile-worker").TaskList {
  const list: Record<string, import("graphile-worker").Task> = Object.create(null) as Record<string, import("graphile-worker").Task>;
  list[stepTask(connection)] = run;
  for (const task of [...tools.keys()].map((name) => toolTask(connection, name)).sort(byTaskOrder)) list[task] = run;
  return list;
}

/** Refuse a concurrency the database cannot give connections for (rather than "too many clients" later, mid-run). */
async function checkConnections(pool: PgPool, connection: Connection, concurrency: number): Promise<void> {
  const available = await availableConnections(pool);
  const needed = connectionsNeeded(concurrency, POOL_SIZE);
  if (Number.isFinite(available) && needed > available) {
    throw new PostgresError(
      "invalid-options",
      `startWorker: concurrency ${concurrency} needs up to ${needed} connections, and PostgreSQL at ${connection.where} allows ${available} in all (max_connections): lower the concurrency`,
    );
  }
}
