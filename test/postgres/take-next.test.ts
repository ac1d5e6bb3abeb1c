/**
 * A worker that settles a step runs a dependent it made ready itself, claimed in the settle's own
 * transaction (no job, no trip through the queue): on a real PostgreSQL, which dependent is taken and
 * which are queued, a settle repeated after its answer was lost (stored once, the same step next, no
 * count twice), and, with a worker, which tools are never taken (a run's serial tools, a worker that
 * limits its tools' calls, a worker that stops).
 */
import { describe, expect, test } from "vitest";
import { startWorker, submitPlan, waitForRun } from "../../src/postgres/index.js";
import { readConnection } from "../../src/postgres/db.js";
import { settleStep } from "../../src/postgres/transitions.js";
import { scheduleGraph } from "../../src/step/schedule.js";
import { databaseAndClient } from "./server.js";

const shared = databaseAndClient();

/** Step 1, then steps 2, 3 and 4 that reference it, with tools a, b and a; step 1 running (attempt 1). */
async function fanOutOfThree(): Promise<{
  runId: string;
  settle: (take?: { workerId: string; tools: string[] }) => ReturnType<typeof settleStep>;
}> {
  const steps = [
    { id: 1, tool: "a", args: {} },
    { id: 2, tool: "a", args: { x: "$1.n" } },
    { id: 3, tool: "b", args: { x: "$1.n" } },
    { id: 4, tool: "a", args: { x: "$1.n" } },
  ];
  const runId = await submitPlan({ steps }, { connectionString: shared.db.url });
  await shared.client.query("delete from graphile_worker._private_jobs"); // no worker runs here
  await shared.client.query("update plan_refs.steps set state = 'running', attempt = 1, worker = 'w' where run_id = $1 and step_id = 1", [
    runId,
  ]);
  const graph = scheduleGraph(steps.map((step) => ({ id: step.id, dependencies: step.id === 1 ? [] : [1] })));
  const connection = readConnection({ connectionString: shared.db.url }, "test");
  return {
    runId,
    settle: (take) =>
      settleStep(shared.client as never, connection, {
        runId,
        stepId: 1,
        attempt: 1,
        outcome: { ok: true, result: '{"n":7}' },
        failFast: false,
        known: { graph, diagnostics: [] },
        take,
      }),
  };
}

async function stateOf(
  runId: string,
): Promise<{ steps: { id: number; state: string; worker: string | null; attempt: number; job: boolean }[]; unsettled: number }> {
  const steps = await shared.client.query(
    `select s.step_id::int as id, s.state, s.worker, s.attempt, exists (select 1 from graphile_worker._private_jobs j where j.key = s.run_id || ':' || s.step_id::text) as job
     from plan_refs.steps s where s.run_id = $1 order by s.step_id`,
    [runId],
  );
  const run = await shared.client.query("select unsettled from plan_refs.runs where id = $1", [runId]);
  return { steps: steps.rows, unsettled: run.rows[0].unsettled };
}

describe("a settle that takes the next step", { timeout: 60_000 }, () => {
  test("takes the first ready dependent whose tool the worker may run, with its dependencies' results; queues the others", async () => {
    const { runId, settle } = await fanOutOfThree();
    const { settled, next } = await settle({ workerId: "w", tools: ["a"] });
    expect(settled).toBe("stored");
    expect(next).toEqual({ stepId: 2, tool: "a", args: { x: "$1.n" }, attempt: 1, approved: false, results: [[1, { n: 7 }, false]] });
    expect(await stateOf(runId)).toEqual({
      steps: [
        { id: 1, state: "done", worker: "w", attempt: 1, job: false },
        { id: 2, state: "running", worker: "w", attempt: 1, job: false },
        { id: 3, state: "ready", worker: null, attempt: 0, job: true },
        { id: 4, state: "ready", worker: null, attempt: 0, job: true },
      ],
      unsettled: 3,
    });
  });

  test("the same settle again, its answer lost: stored, the same step next, nothing counted or queued twice", async () => {
    const { runId, settle } = await fanOutOfThree();
    const first = await settle({ workerId: "w", tools: ["b"] });
    const after = await stateOf(runId);
    const again = await settle({ workerId: "w", tools: ["b"] });
    expect(first.next?.stepId).toBe(3);
    expect(again).toEqual(first);
    expect(await stateOf(runId)).toEqual(after);
    // Another worker's settle of the same try finds nothing of its own.
    expect(await settle({ workerId: "x", tools: ["b"] })).toEqual({ settled: "stored" });
  });

  test("without a take, or with none of the ready dependents' tools, every ready dependent is queued", async () => {
    for (const take of [undefined, { workerId: "w", tools: ["c"] }, { workerId: "w", tools: [] }]) {
      const { runId, settle } = await fanOutOfThree();
      expect(await settle(take)).toEqual({ settled: "stored" });
      const { steps } = await stateOf(runId);
      expect(steps.slice(1).map((step) => [step.state, step.job])).toEqual([
        ["ready", true],
        ["ready", true],
        ["ready", true],
      ]);
    }
  });
});

describe("a worker that takes the next step", { timeout: 60_000 }, () => {
  /** A chain of three `probe` steps on a worker: for each step, whether it had a job of its own while it ran. */
  async function jobsWhileRunning(options: object, workerOptions: object): Promise<boolean[]> {
    const had: boolean[] = [];
    const probe = async (_args: unknown, context: { runId: string; stepId: number }) => {
      const found = await shared.client.query("select count(*)::int as n from graphile_worker._private_jobs where key = $1", [
        `${context.runId}:${context.stepId}`,
      ]);
      had[context.stepId - 1] = found.rows[0].n > 0;
      return { n: context.stepId };
    };
    const worker = await startWorker({ connectionString: shared.db.url, tools: { probe }, ...workerOptions });
    try {
      const plan = {
        steps: [
          { id: 1, tool: "probe", args: {} },
          { id: 2, tool: "probe", args: { a: "$1.n" } },
          { id: 3, tool: "probe", args: { b: "$2.n" } },
        ],
      };
      const runId = await submitPlan(plan, { connectionString: shared.db.url, ...options });
      const report = await waitForRun(runId, { connectionString: shared.db.url, timeoutMs: 30_000 });
      expect([report.status, report.results.get(3)]).toEqual(["ok", { n: 3 }]);
      return had;
    } finally {
      await worker.stop();
    }
  }

  test("runs a chain's later steps with no job of their own", async () => {
    expect(await jobsWhileRunning({}, {})).toEqual([true, false, false]);
  });

  test("never takes a run's serial tool, nor a step of a worker that limits its tools' calls: each waits in the queue", async () => {
    expect(await jobsWhileRunning({ options: { serialTools: ["probe"] } }, {})).toEqual([true, true, true]);
    expect(await jobsWhileRunning({}, { toolConcurrency: { probe: 2 } })).toEqual([true, true, true]);
  });

  test("a worker that stops takes no next step: the step it finishes in its grace period queues its dependent for another", async () => {
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const echo = (args: Record<string, unknown>) => args;
    // One slot, busy with step 1: no other slot of this worker can fetch step 2's job while it stops.
    const worker = await startWorker({
      connectionString: shared.db.url,
      concurrency: 1,
      graceMs: 20_000,
      tools: { gate: async () => (started(), await gate, { n: 1 }), echo },
    });
    const runId = await submitPlan(
      {
        steps: [
          { id: 1, tool: "gate", args: {} },
          { id: 2, tool: "echo", args: { a: "$1.n" } },
        ],
      },
      { connectionString: shared.db.url },
    );
    await running;
    const stopped = worker.stop();
    open();
    await stopped;
    const { steps } = await stateOf(runId);
    expect(steps.map((step) => [step.id, step.state, step.job])).toEqual([
      [1, "done", false],
      [2, "ready", true],
    ]);
    const other = await startWorker({ connectionString: shared.db.url, tools: { echo } });
    try {
      const report = await waitForRun(runId, { connectionString: shared.db.url, timeoutMs: 30_000 });
      expect([report.status, report.results.get(2)]).toEqual(["ok", { a: 1 }]);
    } finally {
      await other.stop();
    }
  });
});
