/**
 * Starts nothing of its own: it runs on the run's one PostgreSQL (a database of this file's own,
 * test/postgres/server.ts) with several sessions of its own, to cross transactions on purpose.
 *
 * Two transactions that queue steps of tools new to the database create the tools' graphile-worker
 * task rows; the second to insert a row waits for the first to end. Crossed in opposite orders they
 * deadlock (40P01), as a submit and a worker's settle once did. Here the crossing is made happen, step
 * by step: a gate session holds a new serial queue's row so that a statement stops right after
 * creating its first task, and each next move waits until PostgreSQL shows the session it means
 * blocked by the one it means (`pg_blocking_pids`). `deadlock_timeout` per session chooses the victim:
 * PostgreSQL checks for a deadlock after a session has waited that long, and the session that finds
 * one is rolled back.
 * - Every statement that queues several steps creates their tasks in one order (`stepJobOrder`): a
 *   submit and a settle crossed either way both succeed, and each statement creates new tasks in
 *   byte order of their names, the order a worker registers its tasks in (`byTaskOrder`).
 * - A transaction PostgreSQL rolls back for a deadlock all the same (crossed by a session that takes
 *   tasks in the other order) is made again (`retryingConflicts`): submitPlan returns the run, stored
 *   once, and a worker's settle stores the step once with its dependents queued.
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { startWorker, submitPlan } from "../../src/postgres/index.js";
import { MAX_CONFLICT_TRIES, readConnection, retryingConflicts } from "../../src/postgres/db.js";
import { PostgresError } from "../../src/postgres/errors.js";
import { byTaskOrder, toolTask } from "../../src/postgres/queue.js";
import { redriveSteps } from "../../src/postgres/sql/redrive-steps.js";
import { requeueOrphans } from "../../src/postgres/sql/requeue-orphans.js";
import { settleDone } from "../../src/postgres/sql/settle-done.js";
import { storeRun, type NewRun } from "../../src/postgres/sql/store-run.js";
import { settleStep } from "../../src/postgres/transitions.js";
import { describeThrown } from "../../src/shared/errors.js";
import { scheduleGraph } from "../../src/step/schedule.js";
import { databaseAndClient } from "./server.js";

const shared = databaseAndClient();
const sessions: pg.Client[] = [];

afterAll(async () => {
  await Promise.all(sessions.map((session) => session.end().catch(() => undefined)));
});

/** The shortest wait before a session looks for a deadlock (it is the victim), and one no test reaches. */
const FINDS_DEADLOCK = "10ms";
const NEVER_LOOKS = "10min";

/** A session of the test's own, with its `deadlock_timeout`, and its backend's pid. */
async function session(deadlockTimeout: string): Promise<{ client: pg.Client; pid: number }> {
  const client = new pg.Client({ connectionString: shared.db.url });
  client.on("error", () => undefined);
  sessions.push(client);
  await client.connect();
  await client.query(`set deadlock_timeout = '${deadlockTimeout}'`);
  const found = await client.query("select pg_backend_pid() as pid");
  return { client, pid: Number(found.rows[0].pid) };
}

function connection() {
  return readConnection({ connectionString: shared.db.url }, "test");
}

/** Tool names no test used before (so their tasks are new to the database). */
let made = 0;
function freshTools(...letters: readonly string[]): string[] {
  made++;
  return letters.map((letter) => `t${made}-${letter}`);
}

/**
 * The pid of the backend that waits for a lock `holder` holds, once there is one (asked again and again:
 * the event is the wait itself). Fails if one of `pending` settles first: what should wait did not.
 */
async function blockedBy(holder: number, pending: readonly Promise<unknown>[]): Promise<number> {
  let settled: string | undefined;
  for (const promise of pending)
    promise.then(
      () => (settled ??= "resolved"),
      (error: unknown) => (settled ??= describeThrown(error)),
    );
  for (let polls = 0; polls < 200_000; polls++) {
    if (settled !== undefined) throw new Error(`a statement that should wait for pid ${holder} ended first: ${settled}`);
    const found = await shared.client.query("select pid from pg_stat_activity where $1::int = any(pg_blocking_pids(pid))", [holder]);
    if (found.rows.length > 0) return Number(found.rows[0].pid);
  }
  throw new Error(`no backend waited for pid ${holder}`);
}

/**
 * A gate: a session that holds the new row of `tool`'s serial queue (uncommitted), so that a statement
 * queueing a step of `tool` for a run with `serialTools: [tool]` stops right after creating its task.
 */
async function gate(tool: string): Promise<{ pid: number; open: () => Promise<unknown> }> {
  const { client, pid } = await session(NEVER_LOOKS);
  await client.query("begin");
  await client.query("select graphile_worker.add_job('plan_refs.gate', queue_name := $1)", [`plan_refs.serial/${tool}`]);
  return { pid, open: () => client.query("rollback") };
}

/** A new run's row as storeRun takes it, whose steps depend on nothing (`tools`, in this order). */
function newRun(tools: readonly string[]): NewRun {
  return {
    runId: randomUUID(),
    status: "running",
    options: JSON.stringify({ failFast: false, timeoutMs: null, validateOutputs: false, language: {} }),
    catalog: null,
    diagnostics: "[]",
    stepsTotal: tools.length,
    settled: false,
    steps: tools.map((tool, i) => ({ id: i + 1, tool, args: "{}", dependencies: [] })),
    planHash: "0".repeat(64),
    output: null,
  };
}

/**
 * A stored run whose step 1 runs (attempt 1) and whose next steps (`dependents`, in step order) each
 * reference it; its tool `serial`, if given, is a serial tool of the run. Its known graph, for a settle.
 */
async function runWithDependents(dependents: readonly string[], serial?: string) {
  const steps = [{ id: 1, tool: "first", args: {} }, ...dependents.map((tool, i) => ({ id: i + 2, tool, args: { x: "$1" } }))];
  const runId = await submitPlan(
    { steps },
    { connectionString: shared.db.url, options: serial === undefined ? {} : { serialTools: [serial] } },
  );
  await shared.client.query("update plan_refs.steps set state = 'running', attempt = 1, worker = 'w' where run_id = $1 and step_id = 1", [
    runId,
  ]);
  const graph = scheduleGraph(steps.map((step) => ({ id: step.id, dependencies: step.id === 1 ? [] : [1] })));
  return { runId, known: { graph, diagnostics: [] } };
}

/** The keys of the run's jobs, sorted. */
async function jobKeys(runId: string): Promise<string[]> {
  const found = await shared.client.query("select key from graphile_worker.jobs where key like $1 || ':%' order by key", [runId]);
  return found.rows.map((row) => String(row.key));
}

/** Which of these tools' tasks exist, in the order they were created. */
async function tasksCreated(tools: readonly string[]): Promise<string[]> {
  const found = await shared.client.query("select identifier from graphile_worker._private_tasks where identifier = any($1) order by id", [
    tools.map((tool) => toolTask(connection(), tool)),
  ]);
  return found.rows.map((row) => String(row.identifier));
}

describe("a submit and a settle that create the same new tasks", { timeout: 60_000 }, () => {
  // `submitted`: the tools of the new run's first steps, in plan order; `dependents`: the tools of the
  // settled step's dependents, in step order. Each row crossed the two in opposite orders before.
  test.each([
    { name: "a submit's first steps in plan order, against a settle", submitted: ["b", "a"], dependents: ["a", "b"] },
    { name: "a settle's dependents in step order, against a submit", submitted: ["a", "b"], dependents: ["b", "a"] },
  ])("$name: crossed, both succeed", async ({ submitted, dependents }) => {
    const [a, b] = freshTools("a", "b") as [string, string];
    const tool = (letter: string): string => (letter === "a" ? a : b);
    // The settle's first tool is gated: the settle stops holding its new task, or both once sorted.
    const settled = await runWithDependents(dependents.map(tool), tool(dependents[0]!));
    const run = newRun(submitted.map(tool));
    const storing = await session(NEVER_LOOKS);
    const settling = await session(FINDS_DEADLOCK);
    const door = await gate(tool(dependents[0]!));

    const settle = settleDone(settling.client as never, connection(), {
      runId: settled.runId,
      stepId: 1,
      attempt: 1,
      result: "{}",
      known: settled.known,
    });
    await blockedBy(door.pid, [settle]);
    const store = storeRun(storing.client, connection(), run);
    await blockedBy(settling.pid, [store, settle]);
    await door.open();

    // Crossed in opposite orders, the settle (the session that looks first) was rolled back for a deadlock.
    await expect(Promise.all([store, settle])).resolves.toEqual([undefined, { stored: true, next: undefined }]);
    expect(await jobKeys(run.runId)).toEqual([`${run.runId}:1`, `${run.runId}:2`]);
    expect(await jobKeys(settled.runId)).toEqual([`${settled.runId}:1`, `${settled.runId}:2`, `${settled.runId}:3`]);
  });
});

describe("each statement that queues several steps", { timeout: 60_000 }, () => {
  // Tools z and a, in that order in the plan: their tasks, new, must be created a first.
  test.each([
    {
      name: "storing a run (its first steps)",
      queue: async ([z, a]: readonly string[]) => void (await storeRun(shared.client, connection(), newRun([z!, a!]))),
    },
    {
      name: "settling a step (its dependents)",
      queue: async (tools: readonly string[]) => {
        const { runId, known } = await runWithDependents(tools);
        await settleDone(shared.client as never, connection(), { runId, stepId: 1, attempt: 1, result: "{}", known });
      },
    },
    {
      name: "a redrive (its steps without a result)",
      queue: async (tools: readonly string[]) => {
        const runId = await withoutTasks(tools);
        await shared.client.query("update plan_refs.runs set status = 'failed' where id = $1", [runId]);
        await shared.client.query("update plan_refs.steps set state = 'failed' where run_id = $1", [runId]);
        await redriveSteps(shared.client, connection(), runId);
      },
    },
    {
      name: "requeueing orphans (steps ready with no job)",
      queue: async (tools: readonly string[]) => {
        await withoutTasks(tools);
        await requeueOrphans(shared.client as never, connection());
      },
    },
    {
      name: "a worker starting (its tools, registered by graphile-worker at its first fetch)",
      queue: async (tools: readonly string[]) => {
        const worker = await startWorker({
          connectionString: shared.db.url,
          tools: Object.fromEntries(tools.map((tool) => [tool, () => 1])),
        });
        try {
          // Registered once the worker asks for its first job: the rows appearing are the event.
          for (let polls = 0; (await tasksCreated(tools)).length < tools.length; polls++)
            if (polls > 200_000) throw new Error("the worker registered no task");
        } finally {
          await worker.stop();
        }
      },
    },
  ])("$name creates new tasks in byte order of their names", async ({ queue }) => {
    const tools = freshTools("z", "a");
    await queue(tools);
    expect(await tasksCreated(tools)).toEqual(tools.map((tool) => toolTask(connection(), tool)).sort(byTaskOrder));
  });

  test('byte order is the same in JavaScript (byTaskOrder) as in the database (collate "C")', async () => {
    const name = fc.string({ unit: "binary", maxLength: 8 }).filter((text) => !text.includes("\u0000") && !/\p{Cs}/u.test(text));
    await fc.assert(
      fc.asyncProperty(fc.array(name, { maxLength: 8 }), async (names) => {
        const found = await shared.client.query(
          `select coalesce(array_agg(t order by t collate "C"), '{}') as sorted from unnest($1::text[]) as u(t)`,
          [names],
        );
        expect(found.rows[0].sorted).toEqual([...names].sort(byTaskOrder));
      }),
      { numRuns: 100 },
    );
  });
});

/** A stored run of independent steps of `tools`, left ready with neither jobs nor the tools' tasks. */
async function withoutTasks(tools: readonly string[]): Promise<string> {
  const runId = await submitPlan({ steps: tools.map((tool, i) => ({ id: i + 1, tool, args: {} })) }, { connectionString: shared.db.url });
  const tasks = tools.map((tool) => toolTask(connection(), tool));
  await shared.client.query(
    "delete from graphile_worker._private_jobs where task_id in (select id from graphile_worker._private_tasks where identifier = any($1))",
    [tasks],
  );
  await shared.client.query("delete from graphile_worker._private_tasks where identifier = any($1)", [tasks]);
  return runId;
}

/**
 * A session that takes the two tools' tasks in the other order (b, then a) crosses `victim`, which
 * creates a's task, then stops at the gate (a's serial queue), then needs b's. The victim is the
 * session that looks for the deadlock first; the crossing session's second statement ends only once
 * PostgreSQL rolled the victim back. What `victim` returns, once the crossing committed.
 */
async function crossed<T>(a: string, b: string, victim: () => Promise<T>): Promise<T> {
  const door = await gate(a);
  const crossing = await session(NEVER_LOOKS);
  const result = victim();
  const pid = await blockedBy(door.pid, [result]);
  await crossing.client.query("begin");
  await crossing.client.query("select graphile_worker.add_job($1)", [toolTask(connection(), b)]);
  const second = crossing.client.query("select graphile_worker.add_job($1)", [toolTask(connection(), a)]);
  await blockedBy(pid, [second, result]);
  await door.open();
  await second; // the victim was rolled back: nothing else let it through
  await crossing.client.query("commit");
  return result;
}

describe("a transaction rolled back for a deadlock", { timeout: 60_000 }, () => {
  test("submitPlan's: it is stored again, once, and submitPlan returns its id", async () => {
    const [a, b] = freshTools("a", "b") as [string, string];
    const url = new URL(shared.db.url);
    // submitPlan's own sessions look for a deadlock first: the victim is its.
    url.searchParams.set("options", `-c deadlock_timeout=${FINDS_DEADLOCK}`);
    const runId = randomUUID();
    const plan = {
      steps: [
        { id: 1, tool: a, args: {} },
        { id: 2, tool: b, args: {} },
      ],
    };
    await expect(crossed(a, b, () => submitPlan(plan, { connectionString: url.href, runId, options: { serialTools: [a] } }))).resolves.toBe(
      runId,
    );
    expect(await jobKeys(runId)).toEqual([`${runId}:1`, `${runId}:2`]);
    const steps = await shared.client.query("select count(*)::int as n from plan_refs.steps where run_id = $1", [runId]);
    expect(steps.rows[0].n).toBe(2);
  });

  test("a worker's settle: the step is stored once, its dependents ready and queued once", async () => {
    const [a, b] = freshTools("a", "b") as [string, string];
    const { runId, known } = await runWithDependents([a, b], a);
    const settling = await session(FINDS_DEADLOCK);
    const settle = () =>
      settleStep(settling.client as never, connection(), {
        runId,
        stepId: 1,
        attempt: 1,
        outcome: { ok: true, result: "{}" },
        failFast: false,
        known,
      });
    await expect(crossed(a, b, settle)).resolves.toEqual({ settled: "stored" });
    const steps = await shared.client.query("select step_id, state, attempt from plan_refs.steps where run_id = $1 order by step_id", [
      runId,
    ]);
    expect(steps.rows).toEqual([
      { step_id: "1", state: "done", attempt: 1 },
      { step_id: "2", state: "ready", attempt: 0 },
      { step_id: "3", state: "ready", attempt: 0 },
    ]);
    expect(await jobKeys(runId)).toEqual([`${runId}:1`, `${runId}:2`, `${runId}:3`]);
  });
});

describe("retryingConflicts", () => {
  const conflict = (code: string) => Object.assign(new Error("rolled back"), { code });
  // `fails`: what each try throws, in turn (then it succeeds); `tries`: how many are made; `ends`: what it comes to.
  test.each([
    { name: "a deadlock, twice, then success", fails: [conflict("40P01"), conflict("40P01")], tries: 3, ends: "ok" },
    { name: "a serialization failure, then success", fails: [conflict("40001")], tries: 2, ends: "ok" },
    {
      name: "a deadlock inside a PostgresError (its cause)",
      fails: [new PostgresError("database-error", "failed", { cause: conflict("40P01") })],
      tries: 2,
      ends: "ok",
    },
    {
      name: "deadlocks every time: at most MAX_CONFLICT_TRIES",
      fails: Array.from({ length: 99 }, () => conflict("40P01")),
      tries: MAX_CONFLICT_TRIES,
      ends: "rolled back",
    },
    { name: "any other error: never again", fails: [conflict("23505")], tries: 1, ends: "rolled back" },
  ])("$name", async ({ fails, tries, ends }) => {
    let made = 0;
    const outcome = await retryingConflicts(async () => {
      const thrown = fails[made++];
      if (thrown !== undefined) throw thrown;
      return "ok";
    }).catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    expect({ made, outcome }).toEqual({ made: tries, outcome: ends });
  });
});
