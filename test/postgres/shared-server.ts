/**
 * What the run's one PostgreSQL (test/postgres/global-setup.ts) hands the test files: where it
 * listens and the name of its migrated template database. Kept apart from the set-up so that test
 * files read it without loading the server's code, and the set-up without loading vitest's hooks.
 */

/** The key under which the global set-up provides the server (`inject(SHARED_SERVER)`). */
export const SHARED_SERVER = "planRefsPostgres";

/** A database migrated once by the global set-up: each file's migrated database is a copy of it. */
export const MIGRATED_TEMPLATE = "plan_refs_migrated";

export interface SharedServer {
  /** A URL of the server's maintenance database `postgres`, as its superuser. */
  readonly url: string;
  readonly port: number;
  /** Where its server's code runs from: a file's own server runs from the same files (no copy of its own). */
  readonly serverModule: string;
}

declare module "vitest" {
  interface ProvidedContext {
    // Absent when the run has no such global set-up: each file then starts a server of its own.
    [SHARED_SERVER]?: SharedServer;
  }
}

/**
 * `url` with its database replaced by `database`.
 *
 * @example
 * withDatabase("postgres://u:p@127.0.0.1:5432/postgres", "t1") // "postgres://u:p@127.0.0.1:5432/t1"
 */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.href;
}
