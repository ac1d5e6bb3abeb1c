/**
 * Worker processes: three of them share 200 plans of 10 steps (every run ok, each tool called once
 * per step, every worker took work); a worker killed with SIGKILL mid-step has its step run again by
 * another (attempt 2, one result); a worker stopped with SIGTERM finishes its step and exits 0, or
 * releases a step longer than its grace period to another worker. The same two faults on a step the
 * worker took from the step it settled (it has no job of its own) end the same way.
 */
import pg from "pg";
import { beforeAll, describe, expect, test } from "vitest";
import { getRun, startWorker, submitPlan, waitForRun } from "../../src/postgres/index.js";
import type { ToolFunctions } from "../../src/run/run-plan.js";
// @ts-expect-error: a plain ES module without types
import { tools as fixtureTools } from "../fixtures/pg-tools.mjs";
import { databaseWithWorkers } from "./children.js";
import type { FileDatabase } from "./server.js";

const tools = fixtureTools as ToolFunctions;
const fleet = databaseWithWorkers();
const spawned = fleet.spawned;
let db: FileDatabase;
beforeAll(() => {
  db = fleet.db();
});

/** A plan of 10 steps: a chain (even n) or two diamonds and a tail (odd n). */
function tenSteps(n: number): unknown {
  if (n % 2 === 0)
    return { steps: Array.from({ length: 10 }, (_, i) => ({ id: i + 1, tool: "echo", args: i === 0 ? { n } : { prev: `$${i}` } })) };
  return {
    steps: [
      { id: 1, tool: "echo", args: { n } },
      { id: 2, tool: "echo", args: { a: "$1.n" } },
      { id: 3, tool: "echo", args: { b: "$1.n" } },
      { id: 4, tool: "echo", args: { a: "$2.a", b: "$3.b" } },
      { id: 5, tool: "echo", args: { c: "$4.a" } },
      { id: 6, tool: "echo", args: { d: "$4.b" } },
      { id: 7, tool: "echo", args: { c: "$5", d: "$6" } },
      { id: 8, tool: "echo", args: { e: "$7" } },
      { id: 9, tool: "echo", args: { f: "$8" } },
      { id: 10, tool: "echo", args: { g: "$9", h: "$1" } },
    ],
  };
}

/** Whether step `stepId` of the run has a job (graphile-worker's, by the step's key). */
async function hasJob(runId: string, stepId: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (
      (await client.query("select exists (select 1 from graphile_worker._private_jobs where key = $1) as found", [`${runId}:${stepId}`]))
        .rows[0].found === true
    );
  } finally {
    await client.end();
  }
}

/** Step 1, then a slow step 2 that references it: the worker that settles step 1 takes step 2. */
const slowSecond = (ms: number): unknown => ({
  steps: [
    { id: 1, tool: "echo", args: { n: 1 } },
    { id: 2, tool: "slow", args: { ms, value: "$1.n" } },
  ],
});

describe("worker processes", { timeout: 120_000 }, () => {
  test("three workers, 200 plans of 10 steps: every run ok, each tool called once per step, every worker took work", async () => {
    const workers = [spawned(db.url), spawned(db.url), spawned(db.url)];
    await Promise.all(workers.map((worker) => worker.ready));
    const runIds = await Promise.all(Array.from({ length: 200 }, (_, n) => submitPlan(tenSteps(n), { connectionString: db.url })));
    const reports = await Promise.all(runIds.map((runId) => waitForRun(runId, { connectionString: db.url, timeoutMs: 100_000 })));
    expect(reports.filter((report) => report.status === "ok").length).toBe(200);
    expect(reports.reduce((sum, report) => sum + report.results.size, 0)).toBe(2_000);
    const calls = workers.flatMap((worker) => worker.calls);
    expect(calls.length).toBe(2_000);
    expect(new Set(calls.map((call) => `${call.runId}:${call.stepId}`)).size).toBe(2_000);
    expect(calls.every((call) => call.attempt === 1)).toBe(true);
    expect(workers.map((worker) => worker.calls.length).filter((count) => count > 0).length).toBe(3);
    for (const worker of workers) worker.child.kill("SIGTERM");
    expect(await Promise.all(workers.map((worker) => worker.exited))).toEqual([0, 0, 0]);
  });

  test("a worker killed with SIGKILL mid-step: another runs the step again (attempt 2), the run completes, one result", async () => {
    const doomed = spawned(db.url, 2_000);
    await doomed.ready;
    const runId = await submitPlan(
      {
        steps: [
          { id: 1, tool: "slow", args: { ms: 60_000, value: "never" } },
          { id: 2, tool: "echo", args: { after: "$1" } },
        ],
      },
      { connectionString: db.url },
    );
    const first = await doomed.called("slow");
    expect(first).toMatchObject({ runId, stepId: 1, attempt: 1 });
    doomed.child.kill("SIGKILL");
    expect(await doomed.exited).toBe("SIGKILL");
    const attempts: number[] = [];
    const rescuer = await startWorker({
      connectionString: db.url,
      recoveryMs: 2_000,
      tools: {
        ...tools,
        slow: (_args: unknown, ctx: { attempt: number }) => (attempts.push(ctx.attempt), `done on attempt ${ctx.attempt}`),
      },
    });
    try {
      const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
      expect(report.status).toBe("ok");
      expect(attempts).toEqual([2]);
      expect(report.results.get(1)).toBe("done on attempt 2");
      expect(report.results.get(2)).toEqual({ after: "done on attempt 2" });
    } finally {
      await rescuer.stop();
    }
  });

  test("SIGTERM: the running step finishes, the worker exits 0, the run completes", async () => {
    const worker = spawned(db.url, 3_000, 8, 5_000);
    await worker.ready;
    const runId = await submitPlan(
      { steps: [{ id: 1, tool: "slow", args: { ms: 800, value: "finished" } }] },
      { connectionString: db.url },
    );
    await worker.called("slow");
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 30_000 });
    expect(report.status).toBe("ok");
    expect(report.results.get(1)).toBe("finished");
  });

  test("SIGTERM with a step longer than the grace period: released, another worker runs it, the first exits 0", async () => {
    const worker = spawned(db.url, 3_000, 8, 300);
    await worker.ready;
    const runId = await submitPlan({ steps: [{ id: 1, tool: "slow", args: { ms: 60_000 } }] }, { connectionString: db.url });
    await worker.called("slow");
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect((await getRun(runId, { connectionString: db.url })).status).toBe("running");
    const attempts: number[] = [];
    const other = await startWorker({
      connectionString: db.url,
      tools: { slow: (_args: unknown, ctx: { attempt: number }) => (attempts.push(ctx.attempt), "elsewhere") },
    });
    try {
      const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
      expect(report.status).toBe("ok");
      expect(report.results.get(1)).toBe("elsewhere");
      expect(attempts).toEqual([2]);
    } finally {
      await other.stop();
    }
  });

  test("a worker killed with SIGKILL in a step it took (no job of its own): another runs the step again (attempt 2), the run completes", async () => {
    const doomed = spawned(db.url, 2_000);
    await doomed.ready;
    const runId = await submitPlan(slowSecond(60_000), { connectionString: db.url });
    expect(await doomed.called("slow")).toMatchObject({ runId, stepId: 2, attempt: 1 });
    expect(await hasJob(runId, 2)).toBe(false);
    doomed.child.kill("SIGKILL");
    expect(await doomed.exited).toBe("SIGKILL");
    const attempts: number[] = [];
    const rescuer = await startWorker({
      connectionString: db.url,
      recoveryMs: 2_000,
      tools: { ...tools, slow: (args: Record<string, unknown>, ctx: { attempt: number }) => (attempts.push(ctx.attempt), args.value) },
    });
    try {
      const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
      expect([report.status, report.results.get(2), attempts]).toEqual(["ok", 1, [2]]);
    } finally {
      await rescuer.stop();
    }
  });

  test("SIGTERM in a step it took, longer than the grace period: released with a job of its own, another worker runs it, the first exits 0", async () => {
    const worker = spawned(db.url, 3_000, 8, 300);
    await worker.ready;
    const runId = await submitPlan(slowSecond(60_000), { connectionString: db.url });
    expect(await worker.called("slow")).toMatchObject({ runId, stepId: 2, attempt: 1 });
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect([(await getRun(runId, { connectionString: db.url })).status, await hasJob(runId, 2)]).toEqual(["running", true]);
    const attempts: number[] = [];
    const other = await startWorker({
      connectionString: db.url,
      tools: { slow: (_args: unknown, ctx: { attempt: number }) => (attempts.push(ctx.attempt), "elsewhere") },
    });
    try {
      const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
      expect([report.status, report.results.get(2), attempts]).toEqual(["ok", "elsewhere", [2]]);
    } finally {
      await other.stop();
    }
  });
});
