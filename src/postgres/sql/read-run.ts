/**
 * A run and its steps as stored, for `getRun` and `waitForRun`. Times are milliseconds since the run
 * was created, as PostgreSQL measures them (one clock for every worker).
 */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";
import { PAST_DEADLINE } from "./recover-dead-workers.js";

/** Milliseconds since the run was created. */
const SINCE = (column: string): string => `extract(epoch from (${column} - r.created_at)) * 1000`;

/** The run's row, or `undefined` when there is no such run. */
export interface StoredRunRow {
  readonly status: string;
  readonly diagnostics: unknown;
  readonly plan_hash: string | null;
  readonly output: unknown;
  readonly language: unknown;
  /** The run's stored options (`StoredRunOptions`). */
  readonly options: unknown;
  readonly total_ms: number | string;
}

/**
 * @example
 * const run = await readRunRow(client, connection, runId) // undefined: no such run
 */
export async function readRunRow(client: PgQueryable, connection: Connection, runId: string): Promise<StoredRunRow | undefined> {
  const runs = await client.query(
    `select r.status, r.diagnostics, r.plan_hash, r.output, r.options -> 'language' as language, r.options, ${SINCE("coalesce(r.finished_at, clock_timestamp())")} as total_ms from ${table(connection, "runs")} r where r.id = $1`,
    [runId],
  );
  return runs.rows[0] as StoredRunRow | undefined;
}

/**
 * Every step of the run with its state, result, error and times, settled ones in the order they ended
 * (then plan order); `unserved` says that a ready step's tool is on no live worker, `retry_in_ms` how
 * long a retrying step still waits by the database's clock.
 *
 * @example
 * const rows = await readStepRows(client, connection, runId)
 */
export async function readStepRows(client: PgQueryable, connection: Connection, runId: string): Promise<Record<string, unknown>[]> {
  const steps = await client.query(
    `select s.step_id, s.tool, s.state, s.attempt, s.approval_args, s.blocked_by, s.has_result, s.result, s.result is null as no_result, s.error, ${SINCE("s.started_at")} as start_ms, ${SINCE("s.ended_at")} as end_ms, ${SINCE("s.retry_at")} as retry_ms, extract(epoch from (s.retry_at - clock_timestamp())) * 1000 as retry_in_ms, s.ordinal,
            s.state = 'ready' and not exists (select 1 from ${table(connection, "workers")} w where s.tool = any(w.tools) and not (${PAST_DEADLINE("w")})) as unserved
     from ${table(connection, "steps")} s join ${table(connection, "runs")} r on r.id = s.run_id
     where s.run_id = $1 order by s.ended_at nulls last, s.ordinal`,
    [runId],
  );
  return steps.rows;
}
