/**
 * Workers under faults, on real worker processes and a real PostgreSQL stopped and started: an outage
 * as a step ends is survived (also by an application that embeds startWorker: no unhandled
 * rejection); a worker that lost its step leaves the step's job alone; a step left running with no job
 * is queued again; workers are judged by the deadline they publish, on time the database has seen
 * pass; a step released on SIGTERM is free again at once, its try not counted.
 */
import pg from "pg";
import { beforeAll, describe, expect, test } from "vitest";
import { getRun, startWorker, submitPlan, waitForRun } from "../../src/postgres/index.js";
import { databaseWithWorkers, type WorkerChild } from "./children.js";
import type { TestDatabase } from "./server.js";

const fleet = databaseWithWorkers({ ownServer: true }); // two tests stop and start the server
const spawned = fleet.spawned;
let db: TestDatabase;
beforeAll(() => {
  db = fleet.db();
});

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function sql(text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: db.url });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function stopped(worker: WorkerChild): Promise<number | NodeJS.Signals | null> {
  worker.child.kill("SIGTERM");
  return worker.exited;
}

/** A quick stand-in for the `slow` tool, in this process: what attempt ran it. */
function quickSlow(attempts: number[], name = "slow"): Record<string, (args: unknown, ctx: { attempt: number }) => string> {
  return { [name]: (_args, ctx) => (attempts.push(ctx.attempt), `attempt ${ctx.attempt}`) };
}

describe("worker recovery", { timeout: 120_000 }, () => {
  test("the database stops as a step ends and starts 5 s later: the embedding process lives on, the step is stored once", async () => {
    const worker = spawned(db.url, 3_000);
    await worker.ready;
    const runId = await submitPlan(
      {
        steps: [
          { id: 1, tool: "slow", args: { ms: 2_000, value: "kept" } },
          { id: 2, tool: "echo", args: { x: "$1" } },
        ],
      },
      { connectionString: db.url },
    );
    await worker.called("slow");
    await pause(700);
    await db.stop();
    await pause(5_000);
    await db.start();
    const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
    expect(report.status).toBe("ok");
    expect(report.results.get(2)).toEqual({ x: "kept" });
    expect(worker.child.exitCode).toBeNull();
    expect(worker.calls.map((call) => [call.tool, call.attempt])).toEqual([
      ["slow", 1],
      ["echo", 1],
    ]);
    expect(await stopped(worker)).toBe(0);
    expect(worker.stderr()).toBe("");
  });

  test("a worker taken for dead finishes late: the later attempt's job stays; when that worker is killed, a third runs the step", async () => {
    const first = spawned(db.url, 1_000);
    const second = spawned(db.url, 1_000);
    await Promise.all([first.ready, second.ready]);
    const runId = await submitPlan({ steps: [{ id: 1, tool: "slowFirst", args: { ms: 3_000 } }] }, { connectionString: db.url });
    const taker = await Promise.race([first.called("slowFirst").then(() => first), second.called("slowFirst").then(() => second)]);
    const other = taker === first ? second : first;
    taker.child.kill("SIGSTOP");
    expect(await other.called("slowFirst")).toMatchObject({ runId, stepId: 1, attempt: 2 });
    taker.child.kill("SIGCONT");
    expect(await taker.event("step-lost")).toMatchObject({ runId, stepId: 1, attempt: 1 });
    expect(await stopped(taker)).toBe(0);
    other.child.kill("SIGKILL");
    await other.exited;
    expect(await sql("select count(*)::int as n from graphile_worker.jobs where key = $1", [`${runId}:1`])).toEqual([{ n: 1 }]);
    const attempts: number[] = [];
    const third = await startWorker({ connectionString: db.url, recoveryMs: 1_000, tools: quickSlow(attempts, "slowFirst") });
    try {
      const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 30_000 });
      expect(report.status).toBe("ok");
      expect(attempts).toEqual([3]);
    } finally {
      await third.stop();
    }
  });

  test("a step running with no job and no live worker is queued again", async () => {
    const doomed = spawned(db.url, 1_000);
    await doomed.ready;
    const runId = await submitPlan({ steps: [{ id: 1, tool: "slow", args: { ms: 60_000 } }] }, { connectionString: db.url });
    await doomed.called("slow");
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    await sql("delete from graphile_worker._private_jobs where key = $1", [`${runId}:1`]);
    expect((await getRun(runId, { connectionString: db.url })).steps.get(1)?.state).toBe("running");
    const attempts: number[] = [];
    const rescuer = await startWorker({ connectionString: db.url, recoveryMs: 1_000, tools: quickSlow(attempts) });
    try {
      const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 30_000 });
      expect(report.status).toBe("ok");
      expect(attempts).toEqual([2]);
    } finally {
      await rescuer.stop();
    }
  });

  test("a worker with a short --recovery-ms judges a default worker by the default worker's own deadline", async () => {
    const patient = spawned(db.url, 30_000);
    await patient.ready;
    const runId = await submitPlan({ steps: [{ id: 1, tool: "slow", args: { ms: 4_000, value: "once" } }] }, { connectionString: db.url });
    await patient.called("slow");
    const hasty = spawned(db.url, 1_000);
    await hasty.ready;
    const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 30_000 });
    expect(report.results.get(1)).toBe("once");
    expect(hasty.calls).toEqual([]);
    expect(await Promise.all([stopped(patient), stopped(hasty)])).toEqual([0, 0]);
  });

  test("a database outage longer than --recovery-ms is no worker's death, nor a heartbeat late after it: the step runs once", async () => {
    const a = spawned(db.url, 3_000);
    await a.ready;
    const runId = await submitPlan({ steps: [{ id: 1, tool: "slow", args: { ms: 12_000, value: "once" } }] }, { connectionString: db.url });
    await a.called("slow");
    const b = spawned(db.url, 3_000);
    await b.ready;
    await db.stop();
    await pause(4_000);
    await db.start();
    // The first heartbeat after the outage comes late (within the window counted from the restart).
    a.child.kill("SIGSTOP");
    await pause(1_500);
    a.child.kill("SIGCONT");
    const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
    expect(report.results.get(1)).toBe("once");
    expect([...a.calls, ...b.calls].map((call) => call.attempt)).toEqual([1]);
    expect(b.events.filter((event) => event.type === "workers-recovered")).toEqual([]);
    expect(await Promise.all([stopped(a), stopped(b)])).toEqual([0, 0]);
  });

  test("SIGTERM past --grace-ms: the step is ready again and its job free at once, the try not counted", async () => {
    const worker = spawned(db.url, 3_000, 8, 300);
    await worker.ready;
    const runId = await submitPlan({ steps: [{ id: 1, tool: "slow", args: { ms: 60_000 } }] }, { connectionString: db.url });
    await worker.called("slow");
    expect(await stopped(worker)).toBe(0);
    expect(await worker.event("step-released")).toMatchObject({ runId, stepId: 1, attempt: 1 });
    const [job] = await sql("select attempts, locked_by, run_at <= now() as now_due from graphile_worker.jobs where key = $1", [
      `${runId}:1`,
    ]);
    expect(job).toEqual({ attempts: 0, locked_by: null, now_due: true });
    expect((await getRun(runId, { connectionString: db.url })).steps.get(1)?.state).toBe("ready");
  });
});
