/**
 * `migrate`: creates or upgrades plan-refs' tables and graphile-worker's schema. Idempotent, and safe
 * from several processes at once (they take turns on an advisory lock).
 */
import { SETTLED_STATES } from "../step/schedule.js";
import { connectClient, databaseError, literal, readConnection, table, type Connection, type ConnectionOptions } from "./db.js";
import { loadGraphileWorker } from "./graphile.js";
import { graphileSchemaProblem, graphileVersionProblem, installedGraphileWorkerVersion, refuseGraphileWorker } from "./graphile-version.js";
import { graphileSchemaMigration } from "./sql/graphile-schema-migration.js";
import { migrateLock } from "./sql/migrate-lock.js";
import { migrateUnlock } from "./sql/migrate-unlock.js";
import { DROPPED_SETTLE_DONE_ARGS, settleDoneFunctionSql } from "./sql/settle-done-function.js";
import { previousSettleDoneFunctionSql } from "./sql/previous-settle-done-function.js";
import { settleFailedFunctionSql } from "./sql/settle-failed-function.js";
import { retryStepFunctionSql } from "./sql/retry-step-function.js";
import { awaitApprovalFunctionSql } from "./sql/await-approval-function.js";
import { CLAIMABLE_STATES, STATE_SQL, statesSql } from "./stored-states.js";
import { migrateSchemaProblem, readSchemaVersion, recordSchemaVersion, refuseSchema, schemaVersionTable } from "./schema-version.js";
import { silentLogger } from "./worker-logger.js";

/**
 * The plan-refs schema, version 1 (each statement idempotent). The tables' statements are the
 * migration's own, kept here as a migration is (graphile-worker keeps its migrations apart from its
 * `src/sql/` too); the PL/pgSQL functions, which the workers' statements call, are one a file in sql/.
 * Exported for test/postgres/sql-states.test.ts, which reads the states they compare.
 *
 * @example
 * for (const statement of migrationStatements(connection)) await client.query(statement)
 */
export function migrationStatements(connection: Connection): string[] {
  const runs = table(connection, "runs");
  return [
    `create schema if not exists "${connection.schema}"`,
    `create table if not exists ${runs} (
      id text primary key,
      status text not null,
      options json not null,
      catalog json,
      diagnostics json not null,
      steps_total integer not null,
      created_at timestamptz not null default clock_timestamp(),
      finished_at timestamptz
    )`,
    // Someone follows the run's progress (waitForRun with onProgress): only then do workers announce each step.
    `alter table ${runs} add column if not exists watched boolean not null default false`,
    // The plan's hash (RunReport.planHash, as runPlan's): what a resume checks a plan against.
    `alter table ${runs} add column if not exists plan_hash text`,
    // The plan's output (its snapshot, as runPlan keeps it), resolved against the results when the run is read.
    `alter table ${runs} add column if not exists output json`,
    `create table if not exists ${table(connection, "steps")} (
      run_id text not null references ${runs} (id) on delete cascade,
      step_id bigint not null,
      ordinal integer not null,
      tool text not null,
      args json not null,
      dependencies json not null,
      state text not null,
      attempt integer not null default 0,
      has_result boolean not null default false,
      result json,
      error json,
      blocked_by bigint,
      started_at timestamptz,
      ended_at timestamptz,
      worker text,
      primary key (run_id, step_id)
    )`,
    `create table if not exists ${table(connection, "workers")} (
      id text primary key,
      label text not null,
      heartbeat_at timestamptz not null default clock_timestamp(),
      started_at timestamptz not null default clock_timestamp()
    )`,
    // The deadline a worker is judged by: its heartbeat plus its own recovery window (workers of older versions: the default).
    `alter table ${table(connection, "workers")} add column if not exists recovery_ms integer not null default 30000`,
    // The tools a worker has (it takes only their steps): what status reads to say a step waits for a tool no running worker has.
    `alter table ${table(connection, "workers")} add column if not exists tools text[] not null default '{}'`,
    // When a step waiting to be tried again (state retrying) is tried next.
    `alter table ${table(connection, "steps")} add column if not exists retry_at timestamptz`,
    // The steps that need a job (ready, running, retrying): what the search for steps left with no job reads.
    // Keyed like the primary key: keyed by the run alone, the planner (its statistics of a run just stored
    // say the partial index is small) took it for one step's lookup and read every such step of the run.
    `create index if not exists steps_to_run_by_step on ${table(connection, "steps")} (run_id, step_id) where state in (${statesSql(CLAIMABLE_STATES)})`,
    `drop index if exists "${connection.schema}".steps_to_run`,
    `drop index if exists "${connection.schema}".steps_active`,
    ...counters(connection),
    // A step waiting for approval: its resolved arguments (what a person approves), and whether it was approved (its claim does not ask again).
    `alter table ${table(connection, "steps")} add column if not exists approval_args json`,
    `alter table ${table(connection, "steps")} add column if not exists approved boolean not null default false`,
    // Signatures older than the previous release's only: see DROPPED_SETTLE_DONE_ARGS (sql/settle-done-function.ts).
    ...DROPPED_SETTLE_DONE_ARGS.map((args) => `drop function if exists "${connection.schema}".settle_done(${args})`),
    settleDoneFunctionSql(connection),
    previousSettleDoneFunctionSql(connection),
    settleFailedFunctionSql(connection),
    retryStepFunctionSql(connection),
    awaitApprovalFunctionSql(connection),
    // Last: the version record's table (migrate then records this release's version in it).
    schemaVersionTable(connection),
  ];
}

/**
 * Version 2: each step counts its dependencies not yet done, each run its steps not yet settled, so
 * that settling a step costs its dependents, not its run. Tables of version 1 get the columns, filled
 * from what their steps are now.
 */
function counters(connection: Connection): string[] {
  const steps = table(connection, "steps");
  const runs = table(connection, "runs");
  const has = (name: string, column: string): string =>
    `exists (select 1 from information_schema.columns where table_schema = ${literal(connection.schema)} and table_name = ${literal(name)} and column_name = ${literal(column)})`;
  return [
    `do $upgrade$ begin
       if not ${has("steps", "remaining")} then
         alter table ${steps} add column remaining integer;
         update ${steps} s set remaining = (select count(*) from json_array_elements_text(s.dependencies) d
           where not exists (select 1 from ${steps} x where x.run_id = s.run_id and x.step_id = d::bigint and x.state = ${STATE_SQL.done}));
         alter table ${steps} alter column remaining set not null;
       end if;
       if not ${has("runs", "unsettled")} then
         alter table ${runs} add column unsettled integer;
         update ${runs} r set unsettled = (select count(*) from ${steps} s where s.run_id = r.id and s.state not in (${statesSql(SETTLED_STATES)}));
         alter table ${runs} alter column unsettled set not null;
       end if;
     end $upgrade$`,
  ];
}

/**
 * Create or upgrade the plan-refs tables (schema `plan_refs` unless `schema` says otherwise) and
 * graphile-worker's schema. Run it once before submitting plans or starting workers; running it again
 * changes nothing.
 *
 * @example
 * await migrate({ connectionString: "postgres://localhost/agents" })
 */
export async function migrate(options: ConnectionOptions = {}): Promise<void> {
  const connection = readConnection(options, "migrate");
  const { runMigrations } = await loadGraphileWorker();
  refuseGraphileWorker(graphileVersionProblem(installedGraphileWorkerVersion()));
  const client = await connectClient(connection);
  try {
    await migrateLock(client);
    await runMigrations({ connectionString: connection.connectionString, logger: await silentLogger() });
    refuseGraphileWorker(graphileSchemaProblem(await graphileSchemaMigration(client)));
    // An older release's migrate would put its functions back under workers already upgraded.
    refuseSchema(migrateSchemaProblem(await readSchemaVersion(client, connection)), connection);
    await client.query("begin");
    for (const statement of migrationStatements(connection)) await client.query(statement);
    // Last, in the same transaction: a worker that reads the version finds everything it names.
    await recordSchemaVersion(client, connection);
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw databaseError(error, connection);
  } finally {
    await migrateUnlock(client).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
