/**
 * The version of plan-refs' own schema (its tables and the functions `migrate` makes), recorded in the
 * database by `migrate`, and the compatibility window of a rolling upgrade. A fleet is upgraded by
 * running `migrate` once, then restarting its workers one by one, so for a while workers of the
 * previous release run on a schema migrated by this one: `migrate` keeps what they call (the previous
 * signatures as thin wrappers, sql/settle-done.ts; columns only added, with defaults) and records how
 * old a worker the schema still serves. A worker checks that record at start-up: one older than the
 * window refuses (`worker-too-old`) instead of calling functions that are gone; one newer than the
 * schema asks for `migrate` (`not-migrated`). The previous release recorded nothing: its workers never
 * check, and a database it migrated has no record (older than every recorded version).
 *
 * The versions: 1, the tables; 2, each step counts its dependencies not yet done and each run its
 * steps not yet settled; 3, runs suspended while steps wait for approval (`settle_done` with
 * `p_suspended`: the previous release); 4, a settle takes the next step (`settle_done` with
 * `p_worker` and `p_take`; version 3's kept as a wrapper), and the version recorded.
 */
import { table, type Connection } from "./db.js";
import { PostgresError } from "./errors.js";
import type { PgQueryable } from "./peers.js";
import { readRecordedSchema } from "./sql/read-schema-version.js";
import { recordVersion } from "./sql/record-schema-version.js";
import { schemaVersionPresent } from "./sql/schema-version-present.js";

/**
 * The schema version this release's `migrate` makes and its workers call.
 *
 * @example
 * SCHEMA_VERSION // 4
 */
export const SCHEMA_VERSION = 4;

/**
 * How many versions older than the schema a worker may be: the previous release's workers keep
 * working on a schema this release migrated (what they call is kept), older ones do not (it is dropped).
 *
 * @example
 * SCHEMA_VERSION - COMPATIBILITY_WINDOW // 3: the oldest workers a schema of this release serves
 */
export const COMPATIBILITY_WINDOW = 1;

/** What `migrate` recorded: the schema's version and the oldest version of worker code it serves. */
export interface RecordedSchema {
  readonly version: number;
  readonly oldestWorker: number;
}

/**
 * What this release's `migrate` records.
 *
 * @example
 * THIS_SCHEMA // { version: 4, oldestWorker: 3 }
 */
export const THIS_SCHEMA: RecordedSchema = Object.freeze({ version: SCHEMA_VERSION, oldestWorker: SCHEMA_VERSION - COMPATIBILITY_WINDOW });

/** A refusal: its code and its one line. */
export interface SchemaProblem {
  readonly code: "worker-too-old" | "not-migrated";
  readonly message: string;
}

/**
 * Why a worker whose code is at version `code` may not run on a schema that recorded `recorded`
 * (`undefined`: nothing recorded, a database migrated before versions were), or `undefined` when it may.
 *
 * @example
 * workerSchemaProblem({ version: 6, oldestWorker: 5 }, 4)?.code // "worker-too-old"
 */
export function workerSchemaProblem(recorded: RecordedSchema | undefined, code: number = SCHEMA_VERSION): SchemaProblem | undefined {
  if (recorded === undefined || recorded.version < code) {
    const found = recorded === undefined ? "of no recorded version (an older plan-refs migrated it)" : `version ${recorded.version}`;
    return {
      code: "not-migrated",
      message: `database schema ${found}; this worker needs version ${code}: run migrate() or plan-refs db migrate with this release first`,
    };
  }
  if (recorded.oldestWorker > code) {
    return {
      code: "worker-too-old",
      message: `database schema version ${recorded.version} (for workers of version ${recorded.oldestWorker} or later); this worker supports up to version ${code}: upgrade plan-refs on this machine`,
    };
  }
  return undefined;
}

/**
 * Why `migrate` of code at version `code` may not run on a schema that recorded `recorded`, or
 * `undefined`: an older release's `migrate` would put its own functions back over a newer schema's,
 * under the workers already upgraded.
 *
 * @example
 * migrateSchemaProblem({ version: 5, oldestWorker: 4 }, 4)?.code // "worker-too-old"
 */
export function migrateSchemaProblem(recorded: RecordedSchema | undefined, code: number = SCHEMA_VERSION): SchemaProblem | undefined {
  if (recorded === undefined || recorded.version <= code) return undefined;
  return {
    code: "worker-too-old",
    message: `database schema version ${recorded.version}; this plan-refs migrates up to version ${code}: upgrade plan-refs on this machine`,
  };
}

/**
 * Throw the problem found above as a `PostgresError`, naming where the schema is.
 *
 * @example
 * refuseSchema(workerSchemaProblem(await readSchemaVersion(pool, connection)), connection)
 */
export function refuseSchema(problem: SchemaProblem | undefined, connection: Connection): void {
  if (problem !== undefined) throw new PostgresError(problem.code, `${connection.where} (schema ${connection.schema}): ${problem.message}`);
}

/** The one-row table of the record (`migrate` makes it). */
function recordTable(connection: Connection): string {
  return table(connection, "schema_version");
}

/**
 * The statement that makes the record's table (idempotent; one row at most): the last of
 * `migrationStatements`, so that a worker that reads the version finds everything it names.
 *
 * @example
 * migrationStatements(connection).at(-1) === schemaVersionTable(connection) // true
 */
export function schemaVersionTable(connection: Connection): string {
  return `create table if not exists ${recordTable(connection)} (
      one boolean primary key default true check (one),
      version integer not null,
      oldest_worker integer not null,
      migrated_at timestamptz not null default clock_timestamp()
    )`;
}

/**
 * What the database recorded, or `undefined` when nothing was (no table: a database migrated before
 * versions were recorded, or not at all).
 *
 * @example
 * const recorded = await readSchemaVersion(pool, connection)
 */
export async function readSchemaVersion(client: PgQueryable, connection: Connection): Promise<RecordedSchema | undefined> {
  if (!(await schemaVersionPresent(client, recordTable(connection)))) return undefined;
  return readRecordedSchema(client, recordTable(connection));
}

/**
 * Record `recorded` (by default this release's) as the schema's version: `migrate`'s last statement.
 *
 * @example
 * await recordSchemaVersion(client, connection)
 */
export async function recordSchemaVersion(
  client: PgQueryable,
  connection: Connection,
  recorded: RecordedSchema = THIS_SCHEMA,
): Promise<void> {
  await recordVersion(client, recordTable(connection), recorded.version, recorded.oldestWorker);
}
