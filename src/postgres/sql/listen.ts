/**
 * Listening on a channel of this database's plan-refs schema. `listen` takes an identifier, never a
 * parameter: the channel is a name plan-refs made (from the schema, itself a checked identifier), quoted.
 */
import type { PgQueryable } from "../peers.js";

/** The channel, quoted as an identifier. */
export function listenSql(channel: string): string {
  return `listen "${channel.replaceAll('"', '""')}"`;
}

/**
 * Listen on a channel (`finishedChannel`, `stoppedChannel`, `progressChannel` of ../queue.ts).
 *
 * @example
 * await listenOn(client, finishedChannel(connection))
 */
export async function listenOn(client: PgQueryable, channel: string): Promise<void> {
  await client.query(listenSql(channel));
}
