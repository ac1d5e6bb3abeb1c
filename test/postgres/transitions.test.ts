/**
 * Settling a step on a real PostgreSQL costs its dependents, not its run: the rows PostgreSQL reads to
 * settle a step with 200 and with 2,000 dependents (counted by the server's own statistics, on one
 * connection) grow with the dependents; claiming and settling one step with no dependents reads as many
 * rows in a run of 2,000 steps as in one of 200 (whatever the planner's statistics of a run just stored).
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { submitPlan } from "../../src/postgres/index.js";
import { poolFor, readConnection } from "../../src/postgres/db.js";
import { settleStep } from "../../src/postgres/transitions.js";
import { claimStep } from "../../src/postgres/sql/claim.js";
import { KnownRuns } from "../../src/postgres/known-runs.js";
import { scheduleGraph } from "../../src/step/schedule.js";
import { startWithClient, stopWithClient, type FileDatabase } from "./server.js";

let db: FileDatabase;
let client: pg.Client;

beforeAll(async () => {
  ({ db, client } = await startWithClient());
}, 60_000);

afterAll(() => stopWithClient(db, client), 60_000);

/** Rows of plan_refs.steps this connection has read so far (its statistics flushed first). */
async function rowsRead(): Promise<number> {
  await client.query("select pg_stat_force_next_flush()");
  await client.query("select pg_stat_clear_snapshot()");
  const found = await client.query(
    "select seq_tup_read + coalesce(idx_tup_fetch, 0) as n from pg_stat_user_tables where schemaname = 'plan_refs' and relname = 'steps'",
  );
  return Number(found.rows[0].n);
}

/** A fan-out stored: step 1 and `n` steps that each reference it, and its graph. */
async function submitFanOut(
  n: number,
): Promise<{ connection: ReturnType<typeof readConnection>; runId: string; graph: ReturnType<typeof scheduleGraph> }> {
  const steps = [
    { id: 1, tool: "echo", args: {} },
    ...Array.from({ length: n }, (_, i) => ({ id: i + 2, tool: "echo", args: { x: "$1" } })),
  ];
  const runId = await submitPlan({ steps }, { connectionString: db.url });
  // submitPlan's own connections report what they read lazily (at most once a second, when idle): each
  // flushes now, so that none of it lands in a window measured below on a busy machine.
  const pool = (await poolFor(readConnection({ connectionString: db.url }, "test"))) as unknown as pg.Pool;
  await Promise.all(Array.from({ length: pool.totalCount }, () => pool.query("select pg_stat_force_next_flush()")));
  const graph = scheduleGraph(steps.map((step) => ({ id: step.id, dependencies: step.id === 1 ? [] : [1] })));
  return { connection: readConnection({ connectionString: db.url }, "test"), runId, graph };
}

/** Settle step 1 of a fan-out of `n` dependents on this connection: the rows read doing it. */
async function settleFanOut(n: number): Promise<number> {
  const { connection, runId, graph } = await submitFanOut(n);
  await client.query("update plan_refs.steps set state = 'running', attempt = 1 where run_id = $1 and step_id = 1", [runId]);
  const before = await rowsRead();
  const { settled: stored } = await settleStep(client as never, connection, {
    runId,
    stepId: 1,
    attempt: 1,
    outcome: { ok: true, result: "{}" },
    failFast: false,
    known: { graph, diagnostics: [] },
  });
  const read = (await rowsRead()) - before;
  expect(stored).toBe("stored");
  const ready = await client.query("select count(*)::int as n from plan_refs.steps where run_id = $1 and state = 'ready'", [runId]);
  expect(ready.rows[0].n).toBe(n);
  await client.query("delete from graphile_worker._private_jobs"); // no worker runs here
  return read;
}

describe("settling a step", { timeout: 120_000 }, () => {
  test("costs its dependents: 10 times the dependents, at most 15 times the rows read", async () => {
    const small = await settleFanOut(200);
    const large = await settleFanOut(2_000);
    expect(large / small).toBeLessThan(15);
  });
});

/**
 * In a fan-out of `n` whose first step is done and half of whose dependents are running (so a run's
 * steps that need a job are many): the rows read claiming the last dependent, and settling the first
 * running one done.
 */
async function leafCosts(n: number): Promise<{ claim: number; settle: number }> {
  const { connection, runId, graph } = await submitFanOut(n);
  await client.query(
    "update plan_refs.steps set state = 'done', has_result = true, result = '{}', attempt = 1 where run_id = $1 and step_id = 1",
    [runId],
  );
  await client.query(
    "update plan_refs.steps set state = case when step_id <= $2 then 'running' else 'ready' end, attempt = case when step_id <= $2 then 1 else 0 end, remaining = 0 where run_id = $1 and step_id > 1",
    [runId, n / 2 + 1],
  );
  let before = await rowsRead();
  const claimed = await claimStep(client as never, connection, "test-worker", new KnownRuns(), runId, n + 1);
  const claim = (await rowsRead()) - before;
  expect(claimed?.results.get(1)).toEqual({});
  before = await rowsRead();
  expect(
    (
      await settleStep(client as never, connection, {
        runId,
        stepId: 2,
        attempt: 1,
        outcome: { ok: true, result: "{}" },
        failFast: false,
        known: { graph, diagnostics: [] },
      })
    ).settled,
  ).toBe("stored");
  const settle = (await rowsRead()) - before;
  return { claim, settle };
}

describe("a step with no dependents", { timeout: 120_000 }, () => {
  test("is claimed and settled reading as many rows in a run of 2,000 steps as in one of 200", async () => {
    const small = await leafCosts(200);
    const large = await leafCosts(2_000);
    // The claim reads the run's graph the first time a worker sees it (one row per step): beyond that, a
    // few rows. Reading the run's steps to find one would add about 1,000 rows at 2,000 steps.
    expect(large.claim - 2_000).toBeLessThan(small.claim - 200 + 50);
    expect(large.settle).toBeLessThan(small.settle + 50);
  });
});
