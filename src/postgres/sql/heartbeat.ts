/** A worker's heartbeat in the workers table, with the deadline it is judged by and its tools. */
import { hostname } from "node:os";
import { table, type Connection } from "../db.js";
import type { PgPool } from "../peers.js";

/** $1: the worker id, $2: its label, $3: its recovery window in milliseconds, $4: its tools. */
export function beatSql(connection: Connection): string {
  return `insert into ${table(connection, "workers")} (id, label, recovery_ms, tools) values ($1, $2, $3, $4)
     on conflict (id) do update set heartbeat_at = clock_timestamp(), recovery_ms = excluded.recovery_ms, tools = excluded.tools`;
}

/**
 * Write the worker's heartbeat: now, its own recovery window (others take it for dead once silent
 * that long) and the tools it has (`status` says when no running worker has a step's tool).
 *
 * @example
 * await beat(pool, connection, worker.id, 30_000, ["geocode"])
 */
export async function beat(
  pool: PgPool,
  connection: Connection,
  workerId: string,
  recoveryMs: number,
  tools: readonly string[],
): Promise<void> {
  await pool.query(beatSql(connection), [workerId, `${hostname()} pid ${process.pid}`, recoveryMs, tools]);
}
