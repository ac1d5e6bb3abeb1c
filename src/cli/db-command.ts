/**
 * `plan-refs db migrate [--database URL]`: create or upgrade the plan-refs tables in PostgreSQL. Also
 * the PostgreSQL side of `plan-refs run --database URL`: submit, follow, report.
 */
import type { RunEvent, RunReport } from "../run/run-plan.js";
import { printable, quoted } from "../shared/text.js";
import { didYouMean } from "../lint/did-you-mean.js";
import { FlagError, parseFlags } from "./flags.js";
import { dbStartCommand, dbStartHelp, dbStartUsage } from "./db-start-command.js";
import { asCliError, loadPostgres } from "./on-postgres.js";

export { asCliError, loadPostgres };
import { connectionProblem } from "../postgres/db.js";
import { CliError } from "./input.js";
import { ownData } from "../shared/own-data.js";
import { redactConnectionString } from "../shared/redact.js";
import { startRunTrace, type RunTrace } from "../step/tracing.js";
import { interruptedExitCode, type CommandIo } from "./io.js";

export const dbMigrateUsage = "usage: plan-refs db migrate [--database URL]";

export const dbMigrateHelp = `${dbMigrateUsage}

Create or upgrade plan-refs' tables (schema plan_refs) and graphile-worker's schema in PostgreSQL, for
plan-refs run --database and plan-refs worker. Running it again changes nothing; several at once are safe.
Needs the optional packages pg and graphile-worker (npm install pg graphile-worker).

options:
  --database URL   the PostgreSQL connection string (default: the DATABASE_URL environment variable)
  -h, --help       show this help

exit codes:
  0    the tables are there
  2    usage errors, no database given, PostgreSQL cannot be reached, or pg / graphile-worker missing

example:
  plan-refs db migrate --database postgres://localhost/agents
`;

/** The subcommands of `plan-refs db`, each with its usage and help (`plan-refs db <sub> --help`). */
export const DB_SUBCOMMANDS = {
  migrate: { usage: dbMigrateUsage, help: dbMigrateHelp },
  start: { usage: dbStartUsage, help: dbStartHelp },
} as const;

export const dbUsage = "usage: plan-refs db (migrate [--database URL] | start [--data DIR] [--port N])";

export const dbHelp = `${dbUsage}

PostgreSQL for plan-refs run --database and plan-refs worker:

  plan-refs db migrate   create or upgrade plan-refs' tables in a PostgreSQL you have
  plan-refs db start     start a development PostgreSQL on this machine, migrated, until Ctrl-C

options:
  -h, --help     show this help (plan-refs db <subcommand> --help: the subcommand's options and defaults)

exit codes:
  the subcommand's: 0 when it did its work (db start: when a signal stopped it), 2 for usage errors

example:
  plan-refs db start
  plan-refs db migrate --database postgres://localhost/agents
`;

/** The one run id a command takes (not empty); else a usage error with the command's usage line. */
export function oneRunId(positionals: readonly string[], usage: string): string {
  const [runId, ...extra] = positionals;
  if (runId === undefined || runId === "" || extra.length > 0)
    throw new CliError(`expected exactly one run id (not empty)\n${usage}`, "usage");
  return runId;
}

/** A call of plan-refs/postgres, its PostgresError the command line's one-line error (exit 2). */
export async function onDatabase<T>(call: (postgres: Awaited<ReturnType<typeof loadPostgres>>) => Promise<T>): Promise<T> {
  const postgres = await loadPostgres();
  try {
    return await call(postgres);
  } catch (error) {
    throw await asCliError(error);
  }
}

/** `--database`, or `DATABASE_URL` (the library's default), as the options of the postgres functions; a value that is no PostgreSQL URL is a usage error naming what is wrong. */
export function databaseOptions(database: string | undefined): { connectionString?: string } {
  if (database === undefined) return {};
  const problem = connectionProblem(database);
  if (problem !== undefined) throw new CliError(`--database ${problem}`, "usage");
  return { connectionString: database };
}

/**
 * The help of `plan-refs db …` asked with `--help`: the subcommand's when one is named, else the
 * overview.
 *
 * @example
 * dbHelpFor(["start", "--help"]) // dbStartHelp
 */
export function dbHelpFor(argv: readonly string[]): string {
  const sub = argv[0];
  return sub !== undefined && Object.hasOwn(DB_SUBCOMMANDS, sub) ? DB_SUBCOMMANDS[sub as keyof typeof DB_SUBCOMMANDS].help : dbHelp;
}

/**
 * Run `plan-refs db migrate …` or `plan-refs db start …`; an unknown subcommand is a usage error with
 * a did-you-mean.
 *
 * @example
 * await dbCommand(["migrate", "--database", "postgres://localhost/agents"], io) // 0
 */
export async function dbCommand(argv: string[], io: CommandIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "start") return dbStartCommand(rest, io);
  if (sub !== "migrate") {
    const names = Object.keys(DB_SUBCOMMANDS);
    const suggestion = sub === undefined || sub.startsWith("-") ? undefined : didYouMean(sub, names);
    const said = sub === undefined || sub.startsWith("-") ? "missing the subcommand" : `unknown subcommand ${quoted(sub, 40)}`;
    throw new FlagError(
      `${said}${suggestion === undefined ? "" : `; did you mean ${suggestion}?`} (plan-refs db has ${names.join(" and ")})`,
    );
  }
  const { values } = parseFlags(rest, { database: { type: "string" } }, { positionals: false });
  const postgres = await loadPostgres();
  try {
    await postgres.migrate(databaseOptions(values.database));
  } catch (error) {
    throw await asCliError(error);
  }
  io.stderr(`plan-refs: the plan-refs tables are ready (schema ${postgres.DEFAULT_SCHEMA})\n`);
  return 0;
}

/** What `plan-refs run --database` needs from the run command. */
export interface RemoteRun {
  readonly planValue: unknown;
  readonly database: string | undefined;
  readonly detach: boolean;
  readonly options: import("../postgres/submit.js").SubmitRunOptions;
  readonly onEvent: (event: RunEvent) => void;
}

/**
 * Submit a plan to PostgreSQL and follow it: progress as the run's own events (made from the run's
 * snapshots as it progresses), then its report. `undefined` with `--detach` (the run id is printed).
 */
export async function runOnDatabase(io: CommandIo, remote: RemoteRun): Promise<RunReport | undefined> {
  const postgres = await loadPostgres();
  const connection = databaseOptions(remote.database);
  const interrupted = (): CliError =>
    new CliError("interrupted before the plan was submitted: nothing was submitted", "interrupted", interruptedExitCode(io.signal));
  // A function: the signal changes while we wait.
  const aborted = (): boolean => io.signal?.aborted === true;
  try {
    if (aborted()) throw interrupted();
    // The run span is the submitter's (with --trace-file or an OTEL exporter): the plan is submitted
    // inside it, so the workers' step spans, in their own processes, are its children.
    const runId = globalThis.crypto.randomUUID();
    const trace = startRunTrace({ tracer: undefined, recordContent: false }, runId);
    const steps = stepCount(remote.planValue);
    const submit = () => postgres.submitPlan(remote.planValue, { ...connection, options: remote.options, runId });
    let submitted: string;
    try {
      submitted = await (trace === undefined ? submit() : trace.active(submit));
    } catch (error) {
      trace?.end("not-submitted", steps, spanMessage(error));
      throw error;
    }
    return await followRun(io, remote, { postgres, connection, runId: submitted, trace, steps });
  } catch (error) {
    throw await asCliError(error);
  }
}

/** The steps of a plan value, for the run span (0 when it has no step array: the submission refuses it). */
function stepCount(plan: unknown): number {
  const steps = Array.isArray(plan) ? plan : ownData(plan, "steps");
  return Array.isArray(steps) ? steps.length : 0;
}

/** A run submitted by `runOnDatabase`: where, its id, and its run span (with how many steps the plan has) when traced. */
interface SubmittedRun {
  readonly postgres: typeof import("../postgres/index.js");
  readonly connection: { connectionString?: string };
  readonly runId: string;
  readonly trace: RunTrace | undefined;
  readonly steps: number;
}

/** After the plan was submitted: the run id printed (`--detach`), or the run followed to its report. */
async function followRun(io: CommandIo, remote: RemoteRun, submitted: SubmittedRun): Promise<RunReport | undefined> {
  const { postgres, connection, runId, trace, steps } = submitted;
  const aborted = (): boolean => io.signal?.aborted === true;
  const onAbort = (): void => void postgres.cancelRun(runId, connection).catch(() => undefined);
  try {
    // A signal while the plan was being submitted: the run is cancelled, and reported aborted.
    const signalled = aborted();
    if (signalled) await postgres.cancelRun(runId, connection);
    if (remote.detach && !signalled) {
      trace?.endDetached(steps);
      io.stdout(`${runId}\n`);
      return undefined;
    }
    io.stderr(
      `plan-refs: run ${printable(runId)} ${signalled ? "submitted as the signal came: cancelled" : "submitted; waiting for workers"}\n`,
    );
    const follow = eventsFrom(remote.onEvent, remote.options.retry?.attempts ?? 1);
    io.signal?.addEventListener("abort", onAbort, { once: true });
    const report = await postgres.waitForRun(runId, { ...connection, onProgress: follow });
    follow(report as unknown as import("../postgres/index.js").RunSnapshot);
    trace?.end(report.status, steps);
    return report;
  } catch (error) {
    trace?.end("not-followed", steps, spanMessage(error));
    throw error;
  } finally {
    io.signal?.removeEventListener("abort", onAbort);
  }
}

/** What the run span says of an error that ended it (a connection string's password never). */
function spanMessage(error: unknown): string | undefined {
  return error instanceof Error ? redactConnectionString(error.message) : undefined;
}

/** Turn successive snapshots into the events `runPlan` would have sent (each once); `attempts`: the retry policy's tries. */
function eventsFrom(onEvent: (event: RunEvent) => void, attempts: number): (snapshot: import("../postgres/index.js").RunSnapshot) => void {
  const started = new Set<number>();
  const settled = new Set<number>();
  /** The steps told as waiting for approval (each once a wait: an approved step may wait again after a redrive). */
  const waiting = new Set<number>();
  /** The last failed try told of each retrying step. */
  const retried = new Map<number, number>();
  return (snapshot) => {
    if (snapshot.steps === undefined) return;
    // Events of one snapshot in the order they happened (one step may have started and ended since the last).
    const events: [number, RunEvent][] = [];
    const emit = (at: number, event: RunEvent): void => void events.push([at, event]);
    for (const [id, step] of snapshot.steps) {
      const pending = snapshot.pending?.get(id);
      if (pending !== undefined) {
        if (!waiting.has(id))
          emit(step.startMs ?? 0, {
            type: "step-awaiting-approval",
            stepId: id,
            tool: step.tool,
            args: pending.args,
            atMs: step.startMs ?? 0,
          });
        waiting.add(id);
        continue;
      }
      waiting.delete(id);
      if (step.startMs !== undefined && !started.has(id) && step.state !== "skipped") {
        started.add(id);
        emit(step.startMs, { type: "step-start", stepId: id, tool: step.tool, startMs: step.startMs });
      }
      if (settled.has(id)) continue;
      const endMs = step.endMs ?? 0;
      const startMs = step.startMs ?? endMs;
      if (step.state === "done") {
        settled.add(id);
        emit(endMs, { type: "step-done", stepId: id, tool: step.tool, startMs, endMs, durationMs: endMs - startMs });
      } else if (step.state === "failed") {
        const error = snapshot.errors.get(id);
        if (error === undefined) continue;
        settled.add(id);
        emit(endMs, { type: "step-failed", stepId: id, tool: step.tool, error, startMs, endMs, durationMs: endMs - startMs });
      } else if (step.state === "retrying" && step.lastError !== undefined && retried.get(id) !== step.attempt) {
        retried.set(id, step.attempt);
        const delayMs = Math.max(0, (step.retryAtMs ?? endMs) - endMs);
        emit(endMs, {
          type: "step-retry",
          stepId: id,
          tool: step.tool,
          attempt: step.attempt,
          attempts: step.attempts ?? attempts,
          delayMs,
          error: step.lastError,
          atMs: endMs,
        });
      } else if (step.state === "skipped") {
        settled.add(id);
        if (step.blockedBy !== undefined)
          emit(endMs, { type: "step-skipped", stepId: id, tool: step.tool, blockedBy: step.blockedBy, atMs: endMs });
      }
    }
    events.sort((a, b) => a[0] - b[0]);
    for (const [, event] of events) onEvent(event);
  };
}
