/** A notification on one of plan-refs' channels (a run finished, stopped, or made progress), in the caller's transaction. */
import type { PgQueryable } from "../peers.js";

/** $1: the channel, $2: the payload (a run id). */
export const notifySql = "select pg_notify($1, $2)";

/**
 * Send `runId` on `channel` (delivered when the caller's transaction commits).
 *
 * @example
 * await notify(client, finishedChannel(connection), runId)
 */
export async function notify(client: PgQueryable, channel: string, runId: string): Promise<void> {
  await client.query(notifySql, [channel, runId]);
}
