/**
 * A run as stored, for `getRun` and `waitForRun` (its steps: read-step-rows.ts). Times are milliseconds
 * since the run was created, as PostgreSQL measures them (one clock for every worker).
 */
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";

/** SQL: milliseconds since the run (`r`) was created. */
export const SINCE = (column: string): string => `extract(epoch from (${column} - r.created_at)) * 1000`;

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

/** $1: the run id. */
export function readRunSql(connection: Connection): string {
  return `select r.status, r.diagnostics, r.plan_hash, r.output, r.options -> 'language' as language, r.options, ${SINCE("coalesce(r.finished_at, clock_timestamp())")} as total_ms from ${table(connection, "runs")} r where r.id = $1`;
}

/**
 * @example
 * const run = await readRunRow(client, connection, runId) // undefined: no such run
 */
export async function readRunRow(client: PgQueryable, connection: Connection, runId: string): Promise<StoredRunRow | undefined> {
  const runs = await client.query(readRunSql(connection), [runId]);
  return runs.rows[0] as StoredRunRow | undefined;
}
