/**
 * PostgreSQL for a test file. Most files take a database of their own on the run's one server
 * (`fileDatabase`: test/postgres/global-setup.ts starts it and migrates a template once; a database
 * is copied from it in a fraction of a second, where a server of its own costs a data folder and
 * initdb). A test that stops the server (an outage) starts one of its own (`startDatabase`:
 * src/postgres/embedded.ts, a fresh data folder the `postgres` user can write, a free port).
 */
export { freePort, type EmbeddedDatabase as TestDatabase } from "../../src/postgres/embedded.js";

import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { migrate } from "../../src/postgres/index.js";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../src/postgres/embedded.js";
import { MIGRATED_TEMPLATE, SHARED_SERVER, withDatabase } from "./shared-server.js";

/**
 * A server of the file's own, for tests that stop and start it; from the files of the run's shared
 * server when there is one (so no copy of its own).
 *
 * @example
 * const db = await startDatabase(); // then db.stop(), db.start(), finally db.remove()
 */
export function startDatabase(): Promise<EmbeddedDatabase> {
  const shared = inject(SHARED_SERVER);
  return startEmbeddedPostgres(shared === undefined ? {} : { serverModule: shared.serverModule });
}

/** A database of this file's own: its URL, the server's port, and `remove()` to drop it. */
export interface FileDatabase {
  readonly url: string;
  readonly port: number;
  remove(): Promise<void>;
}

/**
 * A fresh database, migrated unless `migrated: false` (then as `createdb` makes it), on the run's
 * shared server, or on a server of its own when the run has no global set-up (one file run with a
 * config that lacks it); `remove()` drops it (and stops that server).
 *
 * @example
 * const db = await fileDatabase(); // then submitPlan(plan, { connectionString: db.url }); finally db.remove()
 */
export async function fileDatabase(options: { readonly migrated?: boolean } = {}): Promise<FileDatabase> {
  const shared = inject(SHARED_SERVER);
  if (shared === undefined) {
    const own = await startEmbeddedPostgres();
    try {
      if (options.migrated !== false) await migrate({ connectionString: own.url });
    } catch (error) {
      await own.remove();
      throw error;
    }
    return { url: own.url, port: own.port, remove: () => own.remove() };
  }
  // Unquoted lower-case letters and digits: a name that needs no quoting anywhere.
  const name = `file_${randomUUID().replaceAll("-", "")}`;
  const template = options.migrated === false ? "" : ` template ${MIGRATED_TEMPLATE}`;
  await adminQuery(shared.url, `create database ${name}${template}`);
  return {
    url: withDatabase(shared.url, name),
    port: shared.port,
    // `force` ends the sessions a test left open (a worker child killed a moment ago, a pool not ended).
    remove: () => adminQuery(shared.url, `drop database if exists ${name} with (force)`),
  };
}

async function adminQuery(url: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/**
 * A database of the file's own (migrated unless `migrated: false`) and one connected client for
 * statements of the test's own; `stopWithClient` ends both. A connection error is the test's to see in
 * its queries.
 */
export async function startWithClient(options: { readonly migrated?: boolean } = {}): Promise<{ db: FileDatabase; client: pg.Client }> {
  const db = await fileDatabase(options);
  const client = new pg.Client({ connectionString: db.url });
  client.on("error", () => undefined);
  await client.connect();
  return { db, client };
}

export async function stopWithClient(db: FileDatabase | undefined, client: pg.Client | undefined): Promise<void> {
  await client?.end();
  await db?.remove();
}

/**
 * `startWithClient` before the file's tests and `stopWithClient` after them: the returned object's
 * `db` and `client` are set once the database exists.
 *
 * @example
 * const shared = databaseAndClient(); // then, in a test: await shared.client.query("select 1")
 */
export function databaseAndClient(): { db: FileDatabase; client: pg.Client } {
  const shared = {} as { db: FileDatabase; client: pg.Client };
  beforeAll(async () => Object.assign(shared, await startWithClient()), 60_000);
  afterAll(() => stopWithClient(shared.db, shared.client), 60_000);
  return shared;
}
