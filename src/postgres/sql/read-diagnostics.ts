/** A run's diagnostics (its final status depends on them). */
import type { Diagnostic } from "../../shared/diagnostic.js";
import { table, type Connection } from "../db.js";
import type { PgQueryable } from "../peers.js";

/** $1: the run id. */
export function readDiagnosticsSql(connection: Connection): string {
  return `select diagnostics from ${table(connection, "runs")} where id = $1`;
}

/**
 * The run's diagnostics (none when there is no such run).
 *
 * @example
 * const diagnostics = await readDiagnostics(client, connection, runId)
 */
export async function readDiagnostics(client: PgQueryable, connection: Connection, runId: string): Promise<Diagnostic[]> {
  const found = await client.query(readDiagnosticsSql(connection), [runId]);
  return (found.rows[0]?.diagnostics as Diagnostic[] | undefined) ?? [];
}
