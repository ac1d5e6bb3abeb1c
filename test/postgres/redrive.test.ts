/**
 * `redriveRun` on a real PostgreSQL with a real worker: a failed run goes on under the same id, the
 * steps that succeeded are not called again (call counts) and their results are kept; a run that is
 * running (also one just redriven), that succeeded or is invalid is refused and nothing changes.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getRun, redriveRun, startWorker, submitPlan, waitForRun, type WorkerToolContext } from "../../src/postgres/index.js";
import { runPlan } from "../../src/run/index.js";
import { spawnWorker, type WorkerChild } from "./children.js";
import { refusal } from "./refusal.js";
import { fileDatabase, type FileDatabase } from "./server.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
let db: FileDatabase;

beforeAll(async () => {
  db = await fileDatabase();
}, 60_000);

const children: WorkerChild[] = [];

afterAll(async () => {
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await db?.remove();
}, 60_000);

/** Resolves when the worker has made a call that `matches` (as its output arrives: no clock). */
function callOf(worker: WorkerChild, matches: (call: WorkerChild["calls"][number]) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (!worker.calls.some(matches)) return;
      worker.child.stdout!.off("data", later);
      resolve();
    };
    const later = (): void => void setImmediate(check); // after the fixture's own reader has parsed the line
    worker.child.stdout!.on("data", later);
    check();
  });
}

const plan = {
  steps: [
    { id: 1, tool: "lookup", args: { who: "ada" } },
    { id: 2, tool: "pay", args: { to: "$1.who" } },
    { id: 3, tool: "mail", args: { receipt: "$2.receipt" } },
    { id: 4, tool: "lookup", args: { who: "bob" } },
  ],
};

/** Tools counting calls by step; `down` says whether pay fails now; a pay that succeeds answers once `held` has settled. */
function tools(calls: Map<number, number>, down: () => boolean, held: Promise<void> = Promise.resolve()) {
  const count = (context: WorkerToolContext): void => void calls.set(context.stepId, (calls.get(context.stepId) ?? 0) + 1);
  return {
    lookup: (args: Record<string, unknown>, context: WorkerToolContext) => (count(context), { who: args.who }),
    pay: async (args: Record<string, unknown>, context: WorkerToolContext) => {
      count(context);
      if (down()) throw new Error("the payment service is down");
      await held;
      return { receipt: `R-${String(args.to)}` };
    },
    mail: (_args: Record<string, unknown>, context: WorkerToolContext) => (count(context), "sent"),
  };
}

describe("redriveRun", { timeout: 120_000 }, () => {
  test("a failed run goes on under its id: only the failed and skipped steps run; the results are kept; twice is refused", async () => {
    const calls = new Map<number, number>();
    let down = true;
    // The redriven pay answers only once the second redrive has been refused: the run is running then, whatever the load.
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const connectionString = db.url;
    const worker = await startWorker({ connectionString, tools: tools(calls, () => down, held) });
    try {
      const runId = await submitPlan(plan, { connectionString });
      const failed = await waitForRun(runId, { connectionString, timeoutMs: 60_000 });
      expect(failed.status).toBe("failed");
      expect(failed.skipped).toEqual([3]);
      expect(Object.fromEntries(calls)).toEqual({ 1: 1, 2: 1, 4: 1 });
      // The plan's hash is runPlan's: a report of either executor is of the same plan.
      expect(failed.planHash).toBe((await runPlan(plan, {})).planHash);
      expect(failed.planHash).toMatch(/^[0-9a-f]{64}$/);

      down = false;
      const redrive = await redriveRun(runId, { connectionString });
      expect(redrive).toEqual({ runId, steps: 2, queued: 1 });
      // At once, before any worker settles it: running, and a second redrive is refused, changing nothing.
      const again = await refusal(redriveRun(runId, { connectionString }));
      expect(again.code).toBe("not-redrivable");
      expect(again.message).toMatch(/is still running \(or was redriven already\).*; nothing was changed$/);
      answer();

      const done = await waitForRun(runId, { connectionString, timeoutMs: 60_000 });
      expect(done.status).toBe("ok");
      expect(done.runId).toBe(runId);
      expect(Object.fromEntries(calls)).toEqual({ 1: 1, 2: 2, 3: 1, 4: 1 });
      expect(done.results.get(1)).toEqual(failed.results.get(1));
      expect(done.results.get(3)).toBe("sent");
      expect(done.errors.size).toBe(0);
      expect(done.skipped).toEqual([]);
      expect(done.attempts?.get(2)).toBe(2); // the try of the first round and the redriven one

      const succeeded = await refusal(redriveRun(runId, { connectionString }));
      expect(succeeded.code).toBe("not-redrivable");
      expect(succeeded.message).toContain("succeeded");
      expect((await getRun(runId, { connectionString })).status).toBe("ok");
      expect(Object.fromEntries(calls)).toEqual({ 1: 1, 2: 2, 3: 1, 4: 1 });
    } finally {
      await worker.stop();
    }
  });

  test("a worker SIGKILLed mid-redrive: the step it held runs again elsewhere; no step that had a result is called again", async () => {
    const connectionString = db.url;
    const first = spawnWorker(connectionString, 1_000);
    children.push(first);
    await first.ready;
    const runId = await submitPlan(
      {
        steps: [
          { id: 1, tool: "echo", args: { v: 1 } },
          { id: 2, tool: "failThenSlow", args: { ms: 60_000, value: "paid" } },
          { id: 3, tool: "echo", args: { receipt: "$2" } },
          { id: 4, tool: "echo", args: { v: 4 } },
        ],
      },
      { connectionString },
    );
    expect((await waitForRun(runId, { connectionString, timeoutMs: 60_000 })).status).toBe("failed");
    await redriveRun(runId, { connectionString });
    await callOf(first, (call) => call.stepId === 2 && call.attempt === 2);
    first.child.kill("SIGKILL");
    await first.exited;
    const second = spawnWorker(connectionString, 1_000);
    children.push(second);
    await second.ready;
    const done = await waitForRun(runId, { connectionString, timeoutMs: 60_000 });
    expect(done.status).toBe("ok");
    expect(done.results.get(3)).toEqual({ receipt: "paid" });
    const calls = [...first.calls, ...second.calls].filter((call) => call.runId === runId);
    const count = (id: number): number => calls.filter((call) => call.stepId === id).length;
    expect([count(1), count(2), count(3), count(4)]).toEqual([1, 3, 1, 1]);
    expect(
      second.calls
        .filter((call) => call.runId === runId)
        .map((call) => call.stepId)
        .sort(),
    ).toEqual([2, 3]);
    second.child.kill("SIGTERM");
    await second.exited;
  });

  test("an invalid run, an unknown run and a bad id are refused", async () => {
    const connectionString = db.url;
    const invalid = await submitPlan({ steps: [{ id: 1, tool: "t", args: { x: "$9" } }] }, { connectionString });
    expect((await getRun(invalid, { connectionString })).status).toBe("invalid");
    expect((await refusal(redriveRun(invalid, { connectionString }))).message).toContain("invalid (lint errors)");
    expect((await refusal(redriveRun("no-such-run", { connectionString }))).code).toBe("unknown-run");
    expect((await refusal(redriveRun("", { connectionString }))).code).toBe("invalid-options");
  });

  test("plan-refs redrive RUN_ID: the steps queued again on stdout, exit 0; a refusal is one line, exit 2", async () => {
    const calls = new Map<number, number>();
    const connectionString = db.url;
    let down = true;
    const worker = await startWorker({ connectionString, tools: tools(calls, () => down) });
    try {
      const runId = await submitPlan(plan, { connectionString });
      expect((await waitForRun(runId, { connectionString, timeoutMs: 60_000 })).status).toBe("failed");
      down = false;
      const cli = (args: string[]) =>
        spawnSync(process.execPath, ["dist/cli/main.js", "redrive", ...args], { cwd: root, encoding: "utf8", input: "" });
      const ok = cli([runId, "--database", connectionString]);
      expect(ok.stderr).toBe("");
      // The hint names the database, never its password (the test server's is "plan-refs").
      expect(connectionString).toContain(":plan-refs@");
      expect(ok.stdout).toBe(
        `run ${runId}: 2 steps to run again (1 queued now, 1 waiting for them); plan-refs status ${runId} --database '${connectionString.replace(":plan-refs@", ":***@")}' to follow it; *** stands for the password of --database, which is not printed\n`,
      );
      expect(ok.status).toBe(0);
      expect((await waitForRun(runId, { connectionString, timeoutMs: 60_000 })).status).toBe("ok");
      const refused = cli([runId, "--database", connectionString]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(
        /^plan-refs: run ".*" succeeded: every step has its result, there is nothing to run again; nothing was changed\n$/,
      );
      expect(cli(["--database", connectionString]).status).toBe(2);
    } finally {
      await worker.stop();
    }
  });
});
