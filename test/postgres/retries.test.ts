/**
 * Retries on the PostgreSQL workers: the run's policy is stored with it, and a failed try it retries
 * waits in the database (state `retrying`, its job queued for later with graphile-worker's run_at),
 * never in a worker, so a worker killed during the wait loses nothing and another takes the next try.
 * A failure the policy does not retry (its code not in retryOn, a tool's retryable: false) fails the
 * step on its first try.
 */
import pg from "pg";
import { beforeAll, describe, expect, test } from "vitest";
import { getRun, submitPlan, waitForRun } from "../../src/postgres/index.js";
import { databaseWithWorkers } from "./children.js";
import type { FileDatabase } from "./server.js";

const fleet = databaseWithWorkers();
const spawned = fleet.spawned;
let db: FileDatabase;
beforeAll(() => {
  db = fleet.db();
});

/**
 * The retry wait of step `stepId` over now: its time and its job's come due, as if the wait had passed.
 * The test's waits are longer than any test runs, so nothing happens before the test has seen what it
 * checks, however slow the machine; this is where the test lets the wait end.
 */
async function waitOver(runId: string, stepId: number): Promise<void> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query(
      "update plan_refs.steps set retry_at = clock_timestamp() where run_id = $1 and step_id = $2 and state = 'retrying'",
      [runId, stepId],
    );
    const due = await client.query("update graphile_worker._private_jobs set run_at = now() where key = $1", [`${runId}:${stepId}`]);
    expect(due.rowCount).toBe(1);
  } finally {
    await client.end();
  }
}

describe("retries on the workers", { timeout: 120_000 }, () => {
  test("a tool that fails twice then succeeds: the first worker is killed while the step waits, a second worker takes tries 2 and 3", async () => {
    const first = spawned(db.url);
    await first.ready;
    const runId = await submitPlan(
      {
        steps: [
          { id: 1, tool: "flaky", args: { fails: 2, value: "up" } },
          { id: 2, tool: "echo", args: { after: "$1" } },
        ],
      },
      // Waits of ten minutes: each ends when the test says so (waitOver), never before.
      {
        connectionString: db.url,
        options: { retryByTool: { flaky: { attempts: 3, initialDelayMs: 600_000, factor: 1, jitter: "none" } } },
      },
    );
    expect(await first.event("step-retry")).toMatchObject({ runId, stepId: 1, attempt: 1 });
    first.child.kill("SIGKILL");
    await first.exited;
    // The wait is in the database: the step says so, with its next time and why.
    const waiting = (await getRun(runId, { connectionString: db.url })).steps.get(1)!;
    expect(waiting).toMatchObject({ state: "retrying", attempt: 1 });
    expect(waiting.retryAtMs).toBeGreaterThan(waiting.endMs!);
    // Counted from the database's now: no longer than the whole wait; and the tries the tool's policy allows.
    expect(waiting.retryInMs).toBeGreaterThanOrEqual(0);
    expect(waiting.retryInMs).toBeLessThanOrEqual(600_000);
    expect(waiting.attempts).toBe(3);
    expect(waiting.lastError?.message).toBe("step 1 (flaky): the tool threw: down on try 1");
    const second = spawned(db.url);
    await second.ready;
    await waitOver(runId, 1);
    expect(await second.event("step-retry")).toMatchObject({ runId, stepId: 1, attempt: 2 });
    await waitOver(runId, 1);
    const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 100_000 });
    expect(report.status).toBe("ok");
    expect(report.results.get(1)).toBe("up");
    expect(report.attempts?.get(1)).toBe(3);
    const flaky = [...first.calls, ...second.calls].filter((call) => call.tool === "flaky");
    expect(flaky.map((call) => call.attempt)).toEqual([1, 2, 3]);
    expect(new Set(flaky.map((call) => call.key))).toEqual(new Set([`${runId}:1`]));
    expect(first.calls.filter((call) => call.tool === "flaky").map((call) => call.attempt)).toEqual([1]);
    expect(second.calls.filter((call) => call.tool === "flaky").at(-1)?.attempt).toBe(3);
    expect(second.events.filter((event) => event.type === "step-retry" && event.runId === runId).length).toBeGreaterThanOrEqual(1);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  test("a code the policy does not retry, and a tool's retryable: false, fail on the first try", async () => {
    const worker = spawned(db.url);
    await worker.ready;
    const runId = await submitPlan(
      {
        steps: [
          { id: 1, tool: "fail", args: { message: "no retry for tool errors" } },
          { id: 2, tool: "refuse", args: {} },
          { id: 3, tool: "flaky", args: { fails: 1 } },
        ],
      },
      {
        connectionString: db.url,
        options: {
          retry: { attempts: 5, initialDelayMs: 0, retryOn: ["timeout"] },
          retryByTool: { refuse: { attempts: 5, initialDelayMs: 0 }, flaky: { attempts: 2, initialDelayMs: 0 } },
        },
      },
    );
    const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 100_000 });
    expect(report.status).toBe("failed");
    expect([...report.errors].map(([id, error]) => [id, error.code, error.message])).toEqual(
      expect.arrayContaining([
        [1, "tool-error", "step 1 (fail): the tool threw: no retry for tool errors"],
        [2, "tool-error", "step 2 (refuse): the tool threw: no such city"],
      ]),
    );
    expect(report.results.get(3)).toBe(2);
    const calls = (tool: string) => worker.calls.filter((call) => call.runId === runId && call.tool === tool).length;
    expect({ fail: calls("fail"), refuse: calls("refuse"), flaky: calls("flaky") }).toEqual({ fail: 1, refuse: 1, flaky: 2 });
    expect(report.attempts).toEqual(
      new Map([
        [1, 1],
        [2, 1],
        [3, 2],
      ]),
    );
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  });

  test("a policy whose factor overflows (initialDelayMs 0, factor 1e200): each wait is 0 ms, stored by retry_step and announced", async () => {
    const worker = spawned(db.url);
    await worker.ready;
    const runId = await submitPlan(
      { steps: [{ id: 1, tool: "flaky", args: { fails: 3, value: "up" } }] },
      { connectionString: db.url, options: { retry: { attempts: 4, initialDelayMs: 0, factor: 1e200 } } },
    );
    const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 100_000 });
    expect([report.status, report.results.get(1), report.attempts?.get(1)]).toEqual(["ok", "up", 4]);
    const waits = worker.events
      .filter((event) => event.type === "step-retry" && event.runId === runId)
      .map((event) => (event as { delayMs?: unknown }).delayMs);
    expect(waits).toEqual([0, 0, 0]);
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  });
});
