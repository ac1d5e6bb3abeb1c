/**
 * Limits on the workers, with real worker processes: `toolConcurrency` holds a tool to N calls at once
 * in one worker while its other tools' steps go on; a run's `serialTools` hold a tool to one call at a
 * time across every worker (graphile-worker's named queues), on every path that queues a step (submit,
 * a settled dependency, a retry, a redrive). Each tool call logs when it began and ended.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { redriveRun, submitPlan, waitForRun } from "../../src/postgres/index.js";
import { tempFolder } from "../helpers/temp.js";
import { databaseWithWorkers, mostAtOnce, type WorkerChild } from "./children.js";
import type { FileDatabase } from "./server.js";

const fleet = databaseWithWorkers();
const started: WorkerChild[] = [];
/** A worker process of this test: killed when the test ends, so that a failed test leaves none to take the next one's steps. */
const spawned = (...args: Parameters<typeof fleet.spawned>): WorkerChild => {
  const worker = fleet.spawned(...args);
  started.push(worker);
  return worker;
};
afterEach(() => {
  for (const { child } of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});
const scratch = tempFolder("pg-limits");
let db: FileDatabase;
beforeAll(() => {
  db = fleet.db();
});

/** A file that does not exist yet: `hold` calls given it end once it is written. */
function gate(name: string): { path: string; open(): void } {
  const path = join(scratch, name);
  expect(existsSync(path)).toBe(false);
  return { path, open: () => writeFileSync(path, "open") };
}

describe("toolConcurrency on a worker", { timeout: 120_000 }, () => {
  test("at most 2 calls of hold at once in a worker of concurrency 8, and its echo step runs while 2 holds wait", async () => {
    const worker = spawned(db.url, 3_000, 8, 3_000, { toolConcurrency: { hold: 2 } });
    await worker.ready;
    const open = gate("two-at-once");
    const holds = Array.from({ length: 5 }, (_, i) => ({ id: i + 1, tool: "hold", args: { path: open.path, value: i + 1 } }));
    const runId = await submitPlan({ steps: [...holds, { id: 6, tool: "echo", args: { quick: true } }] }, { connectionString: db.url });
    // The echo step is done while no hold can have ended (the gate is shut): the holds at their limit kept no slot from it.
    await worker.until(() => worker.events.some((event) => event.type === "step-done" && event.runId === runId && event.stepId === 6));
    await worker.until(() => worker.calls.filter((call) => call.tool === "hold").length >= 2);
    expect(worker.intervals.filter((interval) => interval.tool === "hold")).toEqual([]);
    open.open();
    const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
    expect(report.status).toBe("ok");
    expect(report.results).toEqual(
      new Map<number, unknown>([
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 4],
        [5, 5],
        [6, { quick: true }],
      ]),
    );
    expect(worker.intervals.filter((interval) => interval.tool === "hold").length).toBe(5);
    expect(mostAtOnce(worker.intervals, "hold")).toBe(2);
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  });
});

describe("serialTools across workers", { timeout: 120_000 }, () => {
  test("3 workers: the serial tool never has two calls at once, queued by submit, by a settled dependency and by a retry; a tool not named still runs in parallel", async () => {
    // Two calls at once per worker: the four holds, which end only once all four are under way, are
    // spread over more than one worker whatever the load (six slots: the holds, a slowFirst, a flaky).
    const workers = [0, 1, 2].map(() => spawned(db.url, 3_000, 2, 3_000));
    await Promise.all(workers.map((worker) => worker.ready));
    const intervals = () => workers.flatMap((worker) => worker.intervals);
    const open = gate("in-parallel");
    // slowFirst (serial): 6 ready at once, 2 queued when their dependency settles, 2 after a retry.
    const serial = [
      ...Array.from({ length: 6 }, (_, i) => ({ id: i + 1, tool: "slowFirst", args: { ms: 150, value: i + 1 } })),
      { id: 7, tool: "slowFirst", args: { ms: 150, value: "$1" } },
      { id: 8, tool: "slowFirst", args: { ms: 150, value: "$2" } },
      { id: 9, tool: "flaky", args: { fails: 1, value: 9 } },
      { id: 10, tool: "flaky", args: { fails: 1, value: 10 } },
    ];
    // hold (not serial): 4 calls that end only together, once all 4 are under way.
    const parallel = Array.from({ length: 4 }, (_, i) => ({ id: 11 + i, tool: "hold", args: { path: open.path, value: 11 + i } }));
    const runId = await submitPlan(
      { steps: [...serial, ...parallel] },
      {
        connectionString: db.url,
        options: { serialTools: ["slowFirst", "flaky"], retryByTool: { flaky: { attempts: 2, initialDelayMs: 0, jitter: "none" } } },
      },
    );
    // The worker that prints the fourth call sees the count reach 4.
    await Promise.race(
      workers.map((worker) =>
        worker.until(() => workers.reduce((n, w) => n + w.calls.filter((call) => call.tool === "hold").length, 0) >= 4),
      ),
    );
    open.open();
    const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 100_000 });
    expect(report.status).toBe("ok");
    expect(report.attempts?.get(9)).toBe(2);
    expect(mostAtOnce(intervals(), "hold")).toBe(4);
    expect(workers.filter((worker) => worker.calls.length > 0).length).toBeGreaterThan(1);
    // Both serial tools share no queue: each is one at a time on its own.
    expect(mostAtOnce(intervals(), "slowFirst")).toBe(1);
    expect(mostAtOnce(intervals(), "flaky")).toBe(1);
    expect(intervals().filter((interval) => interval.tool === "slowFirst").length).toBe(8);
    for (const worker of workers) worker.child.kill("SIGTERM");
    expect(await Promise.all(workers.map((worker) => worker.exited))).toEqual([0, 0, 0]);
  });

  test("a redriven run's serial steps are queued by the same rule", async () => {
    const workers = [0, 1].map(() => spawned(db.url, 3_000, 8, 3_000));
    await Promise.all(workers.map((worker) => worker.ready));
    const steps = Array.from({ length: 4 }, (_, i) => ({ id: i + 1, tool: "failThenSlow", args: { ms: 150, value: i + 1 } }));
    const runId = await submitPlan({ steps }, { connectionString: db.url, options: { serialTools: ["failThenSlow"] } });
    expect((await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 })).status).toBe("failed");
    await redriveRun(runId, { connectionString: db.url });
    const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
    expect(report.status).toBe("ok");
    const intervals = workers.flatMap((worker) => worker.intervals).filter((interval) => interval.runId === runId);
    expect(intervals.length).toBe(8);
    expect(mostAtOnce(intervals, "failThenSlow")).toBe(1);
    for (const worker of workers) worker.child.kill("SIGTERM");
    expect(await Promise.all(workers.map((worker) => worker.exited))).toEqual([0, 0]);
  });

  test("a serial step released by a worker that stops frees the tool's queue: another worker runs it", async () => {
    const stopping = spawned(db.url, 3_000, 8, 300);
    await stopping.ready;
    const runId = await submitPlan(
      { steps: [{ id: 1, tool: "slowFirst", args: { ms: 60_000, value: "never" } }] },
      { connectionString: db.url, options: { serialTools: ["slowFirst"] } },
    );
    await stopping.called("slowFirst");
    stopping.child.kill("SIGTERM");
    expect(await stopping.exited).toBe(0);
    const other = spawned(db.url, 3_000, 8, 300);
    await other.ready;
    // slowFirst takes a minute on later attempts: end it as soon as it is called again elsewhere.
    expect(await other.called("slowFirst")).toMatchObject({ runId, stepId: 1, attempt: 2 });
    other.child.kill("SIGTERM");
    expect(await other.exited).toBe(0);
  });
});
