/**
 * `migrate` upgrades the tables of an earlier version in place: a run stored before steps counted their
 * dependencies gets its counters from what its steps are, and completes on a worker of this version.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { READY_FROM_STATES } from "../../src/step/schedule.js";
import { migrate, startWorker, submitPlan, waitForRun } from "../../src/postgres/index.js";
import { startWithClient, stopWithClient, type FileDatabase } from "./server.js";

let db: FileDatabase;
let client: pg.Client;

beforeAll(async () => {
  ({ db, client } = await startWithClient({ migrated: false }));
}, 60_000);

afterAll(() => stopWithClient(db, client), 60_000);

/** The tables of version 1 (as migrate made them before the counters), and a run half done in them. */
const VERSION_1 = `
  create schema old;
  create table old.runs (id text primary key, status text not null, options json not null, catalog json, diagnostics json not null,
    steps_total integer not null, created_at timestamptz not null default clock_timestamp(), finished_at timestamptz,
    watched boolean not null default false);
  create table old.steps (run_id text not null references old.runs (id) on delete cascade, step_id bigint not null, ordinal integer not null,
    tool text not null, args json not null, dependencies json not null, state text not null, attempt integer not null default 0,
    has_result boolean not null default false, result json, error json, blocked_by bigint, started_at timestamptz, ended_at timestamptz,
    worker text, primary key (run_id, step_id));
  create table old.workers (id text primary key, label text not null, heartbeat_at timestamptz not null default clock_timestamp(),
    started_at timestamptz not null default clock_timestamp());
  create function old.settle_done(p_run text, p_step bigint, p_attempt integer, p_result json, p_candidates bigint[],
    p_ready_from text[], p_lets_start text[], p_settled text[], p_clean text, p_with_failures text) returns boolean language sql as 'select false';
  insert into old.runs (id, status, options, diagnostics, steps_total) values
    ('half', 'running', '{"failFast":false,"timeoutMs":null,"validateOutputs":false,"language":{"syntax":"seed","templates":true,"deep":true}}', '[]', 3);
  insert into old.steps (run_id, step_id, ordinal, tool, args, dependencies, state, attempt, has_result, result) values
    ('half', 1, 0, 'echo', '{"n":1}', '[]', 'done', 1, true, '{"n":1}'),
    ('half', 2, 1, 'echo', '{"m":"$1.n"}', '[1]', 'ready', 0, false, null),
    ('half', 3, 2, 'echo', '{"k":"$2.m"}', '[2, 1]', 'waiting', 0, false, null);
`;

describe("migrate", { timeout: 120_000 }, () => {
  test("upgrades version 1 in place: the counters of a run in flight, from its steps; the run completes", async () => {
    await migrate({ connectionString: db.url }); // graphile-worker's schema, and plan-refs' own elsewhere
    await client.query(VERSION_1);
    await client.query(
      "select graphile_worker.add_job('old.step', json_build_object('runId', 'half', 'stepId', 2), job_key := 'half:2', job_key_mode := 'unsafe_dedupe')",
    );
    await migrate({ connectionString: db.url, schema: "old" });
    await migrate({ connectionString: db.url, schema: "old" });
    const counted = await client.query("select step_id::int as id, remaining from old.steps order by step_id");
    expect(counted.rows).toEqual([
      { id: 1, remaining: 0 },
      { id: 2, remaining: 0 },
      { id: 3, remaining: 1 },
    ]);
    expect((await client.query("select unsettled from old.runs")).rows).toEqual([{ unsettled: 2 }]);
    // A step settles done, failed or to be retried through functions migrate makes (no value is put into SQL text).
    const functions = await client.query(
      "select p.proname as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'old' order by 1",
    );
    expect(functions.rows).toEqual([
      { name: "await_approval" },
      { name: "retry_step" },
      { name: "settle_done" },
      { name: "settle_done" },
      { name: "settle_failed" },
    ]);
    const overloads = await client.query(
      "select count(*)::int as n from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'old' and p.proname = 'settle_done'",
    );
    expect(overloads.rows[0].n).toBe(2); // the current signature and the previous release's (its thin wrapper)
    const worker = await startWorker({ connectionString: db.url, schema: "old", tools: { echo: (args) => args } });
    try {
      const report = await waitForRun("half", { connectionString: db.url, schema: "old", timeoutMs: 30_000 });
      expect([report.status, [...report.errors.values()].map((error) => error.message)]).toEqual(["ok", []]);
      expect(report.results.get(3)).toEqual({ k: 1 });
    } finally {
      await worker.stop();
    }
  });

  // A fleet is upgraded one worker at a time after migrate: a worker of the previous release settles through the signature it knows.
  test("the previous release's settle_done (nine arguments, returning whether it stored) still settles a step after migrate; a current worker finishes the run", async () => {
    await migrate({ connectionString: db.url, schema: "prev" });
    const runId = await submitPlan(
      {
        steps: [
          { id: 1, tool: "echo", args: { n: 1 } },
          { id: 2, tool: "echo", args: { m: "$1.n" } },
        ],
      },
      { connectionString: db.url, schema: "prev" },
    );
    // Claimed by a worker of the previous release (its claim only reads and marks the step), which then settles it as that release did.
    await client.query(
      "update prev.steps set state = 'running', attempt = attempt + 1, started_at = clock_timestamp() where run_id = $1 and step_id = 1",
      [runId],
    );
    const settle = "select prev.settle_done($1, $2, $3, $4, $5, $6, $7, $8, $9) as stored";
    const args = [runId, 1, 1, JSON.stringify({ n: 1 }), [2], READY_FROM_STATES, "ok", "failed", null];
    expect((await client.query(settle, args)).rows).toEqual([{ stored: true }]);
    expect((await client.query(settle, args)).rows).toEqual([{ stored: false }]); // stored once, as before
    const steps = await client.query("select step_id::int as id, state, result from prev.steps where run_id = $1 order by step_id", [
      runId,
    ]);
    expect(steps.rows).toEqual([
      { id: 1, state: "done", result: { n: 1 } },
      { id: 2, state: "ready", result: null },
    ]);
    // Its dependent was queued (the previous release took none for itself), and a worker of this release runs it.
    expect((await client.query("select count(*)::int as n from graphile_worker.jobs where key = $1", [`${runId}:2`])).rows).toEqual([
      { n: 1 },
    ]);
    const worker = await startWorker({ connectionString: db.url, schema: "prev", tools: { echo: (input) => input } });
    try {
      const report = await waitForRun(runId, { connectionString: db.url, schema: "prev", timeoutMs: 30_000 });
      expect([report.status, report.results.get(2)]).toEqual(["ok", { m: 1 }]);
    } finally {
      await worker.stop();
    }
  });
});
