/**
 * Limits on the workers, with real worker processes: `toolConcurrency` holds a tool to N calls at once
 * in one worker while its other tools' steps go on. Each tool call logs when it began and ended.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { submitPlan, waitForRun } from "../../src/postgres/index.js";
import { tempFolder } from "../helpers/temp.js";
import { databaseWithWorkers, mostAtOnce } from "./children.js";
import type { TestDatabase } from "./server.js";

const fleet = databaseWithWorkers();
const spawned = fleet.spawned;
const scratch = tempFolder("pg-limits");
let db: TestDatabase;
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
    expect(report.results).toEqual(new Map<number, unknown>([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [6, { quick: true }]]));
    expect(worker.intervals.filter((interval) => interval.tool === "hold").length).toBe(5);
    expect(mostAtOnce(worker.intervals, "hold")).toBe(2);
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  });
});
