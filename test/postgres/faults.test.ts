/**
 * Faults and bad input: PostgreSQL restarted mid-run, a plan submitted with no worker running,
 * results JSON cannot store, an invalid plan, an unknown tool, an unreachable database, a run id that
 * does not exist, cancelRun, idempotent submission, two migrations at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cancelRun, getRun, migrate, PostgresError, startWorker, submitPlan, waitForRun, type Worker } from "../../src/postgres/index.js";
import { StepError } from "../../src/step/step-error.js";
import type { ToolFunctions } from "../../src/run/run-plan.js";
// @ts-expect-error: a plain ES module without types
import { tools as fixtureTools } from "../fixtures/pg-tools.mjs";
import { freePort, startDatabase, type TestDatabase } from "./server.js";

const tools = fixtureTools as ToolFunctions;
let db: TestDatabase;
let url: string;

beforeAll(async () => {
  db = await startDatabase();
  url = db.url;
  // Two migrations at once, then a third: idempotent and safe to race.
  await Promise.all([migrate({ connectionString: url }), migrate({ connectionString: url })]);
  await migrate({ connectionString: url });
}, 60_000);

afterAll(async () => {
  await db?.remove();
}, 60_000);

async function withWorker<T>(work: (worker: Worker) => Promise<T>, extra: ToolFunctions = {}): Promise<T> {
  const worker = await startWorker({ connectionString: url, tools: { ...tools, ...extra }, recoveryMs: 3_000 });
  try {
    return await work(worker);
  } finally {
    await worker.stop();
  }
}

async function jobsQueued(): Promise<number> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query("select count(*)::int as n from graphile_worker.jobs")).rows[0].n);
  } finally {
    await client.end();
  }
}

describe("faults", { timeout: 90_000 }, () => {
  test("a plan submitted while no worker runs completes once a worker starts (the run is durable)", async () => {
    const runId = await submitPlan(
      {
        steps: [
          { id: 1, tool: "add", args: { a: 40, b: 2 } },
          { id: 2, tool: "add", args: { a: "$1", b: 1 } },
        ],
      },
      { connectionString: url },
    );
    expect((await getRun(runId, { connectionString: url })).status).toBe("running");
    expect(await jobsQueued()).toBe(1);
    const report = await withWorker(() => waitForRun(runId, { connectionString: url, timeoutMs: 30_000 }));
    expect(report.status).toBe("ok");
    expect(report.results.get(2)).toBe(43);
  });

  test("PostgreSQL restarted while runs are in flight: workers and waitForRun reconnect, the runs complete", async () => {
    // Each run's first step is under way through the whole outage: its tool says it began, and
    // returns only once the server is back, so its outcome is stored on a new connection.
    const began: string[] = [];
    let allBegan: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => (allBegan = resolve));
    let serverBack: () => void = () => undefined;
    const back = new Promise<void>((resolve) => (serverBack = resolve));
    const held = async (args: unknown, ctx: { readonly idempotencyKey?: string }): Promise<number> => {
      began.push(ctx.idempotencyKey ?? "");
      if (began.length === 3) allBegan();
      await back;
      return (args as { value: number }).value;
    };
    await withWorker(
      async () => {
        const plan = {
          steps: [
            { id: 1, tool: "held", args: { value: 1 } },
            { id: 2, tool: "add", args: { a: "$1", b: 1 } },
          ],
        };
        const runIds = await Promise.all([1, 2, 3].map(() => submitPlan(plan, { connectionString: url })));
        // Each wait follows its run (its first snapshot read) before the outage: reconnecting is what it is to show.
        const following: Promise<void>[] = [];
        const waiting = runIds.map((runId) => {
          let followed: () => void = () => undefined;
          following.push(new Promise<void>((resolve) => (followed = resolve)));
          return waitForRun(runId, { connectionString: url, timeoutMs: 60_000, onProgress: () => followed() });
        });
        await Promise.all([inFlight, ...following]);
        await db.stop();
        await db.start();
        serverBack();
        const reports = await Promise.all(waiting);
        expect([...began].sort()).toEqual(runIds.map((runId) => `${runId}:1`).sort()); // each run's step was in flight when the server stopped, and ran once
        expect(reports.map((report) => report.status)).toEqual(["ok", "ok", "ok"]);
        expect(reports.map((report) => report.results.get(2))).toEqual([2, 2, 2]);
      },
      { held },
    );
  });

  test.each([
    ["big", "it contains a BigInt"],
    ["cyclic", "it contains a cycle"],
    ["fn", "it contains a function"],
    ["map", "it contains a Map (JSON writes {})"],
    ["set", "it contains a Set (JSON writes {})"],
    ["nan", "it contains NaN (JSON writes null)"],
    ["infinity", "it contains Infinity (JSON writes null)"],
    ["date", "it contains a Date (JSON writes a string)"],
    ["inside", "it contains undefined in an array (JSON writes null)"],
    ["holes", "it contains an array hole"],
  ])("a result JSON cannot store (%s) fails that step with unserializable, nothing half-written", async (tool, reason) => {
    const runId = await submitPlan(
      {
        steps: [
          { id: 1, tool, args: {} },
          { id: 2, tool: "echo", args: { x: "$1" } },
          { id: 3, tool: "echo", args: { fine: 1 } },
        ],
      },
      { connectionString: url },
    );
    const report = await withWorker(() => waitForRun(runId, { connectionString: url, timeoutMs: 30_000 }));
    expect(report.status).toBe("failed");
    const error = report.errors.get(1)!;
    expect(error).toBeInstanceOf(StepError);
    expect(error.code).toBe("unserializable");
    expect(error.message).toContain(reason);
    expect([...report.results.keys()]).toEqual([3]);
    expect(report.skipped).toEqual([2]);
  });

  test("a result of undefined stays undefined and a null stays null, in the report and for dependents", async () => {
    const runId = await submitPlan(
      {
        steps: [
          { id: 1, tool: "nothing", args: {} },
          { id: 2, tool: "nil", args: {} },
          { id: 3, tool: "echo", args: { u: "$1", n: "$2" } },
        ],
      },
      { connectionString: url },
    );
    const report = await withWorker(() => waitForRun(runId, { connectionString: url, timeoutMs: 30_000 }));
    expect(report.status).toBe("ok");
    expect(report.results.has(1)).toBe(true);
    expect(report.results.get(1)).toBeUndefined();
    expect(report.results.get(2)).toBeNull();
    expect(report.results.get(3)).toEqual({ n: null });
  });

  test("an invalid plan is stored as invalid with its diagnostics, and nothing is enqueued", async () => {
    const before = await jobsQueued();
    const runId = await submitPlan({ steps: [{ id: 1, tool: "echo", args: { x: "$9.city" } }] }, { connectionString: url });
    const report = await waitForRun(runId, { connectionString: url, timeoutMs: 5_000 });
    expect(report.status).toBe("invalid");
    expect(report.diagnostics.map((d) => d.code)).toContain("unknown-step");
    expect(report.results.size + report.errors.size + report.skipped.length).toBe(0);
    expect(await jobsQueued()).toBe(before);
  });

  test.each([
    ["a lone surrogate", "geo\ud800code", "a lone surrogate (half of a UTF-16 pair)", '"geo\\ud800code"'],
    ["a NUL", "geo\u0000code", "a NUL character", '"geo\\u0000code"'],
  ])("a tool name with %s: the run is stored invalid with a diagnostic at the name, nothing enqueued", async (_what, tool, what, shown) => {
    const before = await jobsQueued();
    const runId = await submitPlan(
      {
        steps: [
          { id: 1, tool: "echo", args: {} },
          { id: 2, tool, args: {} },
        ],
      },
      { connectionString: url },
    );
    const report = await waitForRun(runId, { connectionString: url, timeoutMs: 5_000 });
    expect(report.status).toBe("invalid");
    expect(report.diagnostics).toEqual([
      {
        code: "invalid-plan",
        severity: "error",
        step: 2,
        pointer: "/steps/1/tool",
        message: `step 2: the tool name ${shown} contains ${what}, which PostgreSQL cannot store: rename the tool`,
      },
    ]);
    expect(await jobsQueued()).toBe(before);
  });

  test("workers route by tool: a step waits for a worker with its tool (getRun says so), then runs there", async () => {
    const ran: string[] = [];
    const web = await startWorker({ connectionString: url, recoveryMs: 3_000, tools: { fetch: () => (ran.push("web"), "page") } });
    let gpu: Worker | undefined;
    try {
      const heavy = await submitPlan(
        {
          steps: [
            { id: 1, tool: "render", args: {} },
            { id: 2, tool: "fetch", args: { frame: "$1" } },
          ],
        },
        { connectionString: url },
      );
      const light = await submitPlan({ steps: [{ id: 1, tool: "fetch", args: {} }] }, { connectionString: url });
      // The web worker ran the later run's step, and left the earlier one's render step alone.
      expect((await waitForRun(light, { connectionString: url, timeoutMs: 30_000 })).status).toBe("ok");
      const waiting = await getRun(heavy, { connectionString: url });
      expect(waiting.steps.get(1)).toMatchObject({ state: "ready", attempt: 0, noWorkerHasTool: true });
      expect(waiting.steps.get(2)?.noWorkerHasTool).toBeUndefined();
      gpu = await startWorker({ connectionString: url, recoveryMs: 3_000, tools: { render: () => (ran.push("gpu"), "frame") } });
      const report = await waitForRun(heavy, { connectionString: url, timeoutMs: 30_000 });
      expect(report.status).toBe("ok");
      expect(report.results.get(2)).toBe("page");
      expect(ran).toEqual(["web", "gpu", "web"]);
    } finally {
      await web.stop();
      await gpu?.stop();
    }
  });

  test("a job queued before steps were routed by tool still runs; its tool missing on this worker fails the step with unknown-tool", async () => {
    const runIds = [
      await submitPlan({ steps: [{ id: 1, tool: "add", args: { a: 1, b: 2 } }] }, { connectionString: url }),
      await submitPlan({ steps: [{ id: 1, tool: "teleport", args: {} }] }, { connectionString: url }),
    ];
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("insert into graphile_worker._private_tasks (identifier) values ('plan_refs.step') on conflict do nothing");
      await client.query(
        "update graphile_worker._private_jobs set task_id = (select id from graphile_worker._private_tasks where identifier = 'plan_refs.step') where key = any($1::text[])",
        [runIds.map((id) => `${id}:1`)],
      );
    } finally {
      await client.end();
    }
    const [added, teleported] = await withWorker(() =>
      Promise.all(runIds.map((runId) => waitForRun(runId, { connectionString: url, timeoutMs: 30_000 }))),
    );
    expect(added!.results.get(1)).toBe(3);
    expect(teleported!.errors.get(1)?.code).toBe("unknown-tool");
    expect(teleported!.errors.get(1)?.message).toBe('step 1 (teleport): no function for tool "teleport" on this worker');
  });

  test("a database that cannot be reached: one line naming host and port", async () => {
    const port = await freePort();
    const nowhere = `postgres://postgres:x@127.0.0.1:${port}/postgres`;
    for (const call of [
      () => submitPlan({ steps: [] }, { connectionString: nowhere }),
      () => getRun("x", { connectionString: nowhere }),
      () => migrate({ connectionString: nowhere }),
    ]) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(PostgresError);
      expect((error as PostgresError).code).toBe("database-unreachable");
      expect((error as PostgresError).message).toMatch(new RegExp(`^cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}: [^\\n]+$`));
    }
  });

  test("a run id that does not exist: unknown-run from getRun, waitForRun and cancelRun", async () => {
    for (const call of [
      () => getRun("no-such-run", { connectionString: url }),
      () => waitForRun("no-such-run", { connectionString: url }),
      () => cancelRun("no-such-run", { connectionString: url }),
    ]) {
      await expect(call()).rejects.toMatchObject({ name: "PostgresError", code: "unknown-run" });
    }
  });

  test("no connection string and no DATABASE_URL: invalid-connection", async () => {
    const saved = process.env.DATABASE_URL;
    delete process.env.DATABASE_URL;
    try {
      await expect(getRun("x")).rejects.toMatchObject({ code: "invalid-connection" });
    } finally {
      if (saved !== undefined) process.env.DATABASE_URL = saved;
    }
  });

  test("DATABASE_URL is the default connection string", async () => {
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = url;
    try {
      const runId = await submitPlan({ steps: [] });
      expect((await getRun(runId)).status).toBe("ok");
    } finally {
      if (saved === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = saved;
    }
  });

  test("a caller-given run id makes submission idempotent", async () => {
    const plan = { steps: [{ id: 1, tool: "add", args: { a: 1, b: 1 } }] };
    const before = await jobsQueued();
    expect(await submitPlan(plan, { connectionString: url, runId: "same-run" })).toBe("same-run");
    expect(await submitPlan(plan, { connectionString: url, runId: "same-run" })).toBe("same-run");
    expect(await jobsQueued()).toBe(before + 1);
    const calls: number[] = [];
    const report = await withWorker(() => waitForRun("same-run", { connectionString: url, timeoutMs: 30_000 }), {
      add: ({ a, b }: Record<string, unknown>) => (calls.push(1), (a as number) + (b as number)),
    });
    expect(report.results.get(1)).toBe(2);
    expect(calls.length).toBe(1);
  });

  test("cancelRun: the running step's signal is aborted, the rest skipped, the run aborted", async () => {
    const runId = await submitPlan(
      {
        steps: [
          { id: 1, tool: "slow", args: { ms: 60_000 } },
          { id: 2, tool: "echo", args: { x: "$1" } },
        ],
      },
      { connectionString: url },
    );
    let aborted: unknown;
    let started: () => void = () => undefined;
    let heard: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const stopHeard = new Promise<void>((resolve) => (heard = resolve));
    const slow = (_args: unknown, ctx: { signal: AbortSignal }): Promise<never> =>
      new Promise((_resolve, reject) => {
        started();
        ctx.signal.addEventListener("abort", () => {
          aborted = ctx.signal.reason;
          heard();
          reject(ctx.signal.reason);
        });
      });
    const report = await withWorker(
      async () => {
        await running;
        expect(await cancelRun(runId, { connectionString: url })).toBe(true);
        const final = await waitForRun(runId, { connectionString: url, timeoutMs: 30_000 });
        // The worker hears the stop over LISTEN/NOTIFY, however long that takes on a loaded machine.
        await stopHeard;
        return final;
      },
      { slow },
    );
    expect(report.status).toBe("aborted");
    expect(report.errors.get(1)?.code).toBe("aborted");
    expect(report.skipped).toEqual([2]);
    expect(aborted).toBeDefined();
    expect(await cancelRun(runId, { connectionString: url })).toBe(false);
  });

  test("a step timeout from the run's options fails the step with timeout", async () => {
    const runId = await submitPlan(
      { steps: [{ id: 1, tool: "slow", args: { ms: 30_000 } }] },
      { connectionString: url, options: { timeoutMs: 200 } },
    );
    const report = await withWorker(() => waitForRun(runId, { connectionString: url, timeoutMs: 30_000 }));
    expect(report.errors.get(1)?.code).toBe("timeout");
    expect(report.errors.get(1)?.message).toBe("step 1 (slow): timed out after 200 ms");
  });

  test("waitForRun gives up after its timeoutMs with wait-timeout (the run goes on)", async () => {
    const runId = await submitPlan({ steps: [{ id: 1, tool: "echo", args: {} }] }, { connectionString: url });
    await expect(waitForRun(runId, { connectionString: url, timeoutMs: 100 })).rejects.toMatchObject({ code: "wait-timeout" });
    await withWorker(() => waitForRun(runId, { connectionString: url, timeoutMs: 30_000 }));
  });
});
