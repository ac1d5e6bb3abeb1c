/**
 * Approval on PostgreSQL, with real worker processes and a real PostgreSQL stopped and started: a step
 * whose tool needs approval is stored `awaiting-approval` with its resolved arguments and never called
 * without an approval (call counts); the run is `suspended` once nothing else can run, survives a
 * database restart and every worker's exit, and goes on after `approveStep` with a new worker;
 * `denyStep` fails a step `denied` and skips its dependents; a second decision is refused.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { tempFolder } from "../helpers/temp.js";
import { approveStep, cancelRun, denyStep, getRun, redriveRun, startWorker, submitPlan, waitForRun } from "../../src/postgres/index.js";
import { approvalPlan } from "./approval-plan.js";
import { refusal } from "./refusal.js";
import { databaseWithWorkers } from "./children.js";

const { db, spawned } = databaseWithWorkers({ ownServer: true }); // its first test restarts the server
const root = fileURLToPath(new URL("../..", import.meta.url));
const tmp = tempFolder("pg-approval");

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ["dist/cli/main.js", ...args], { cwd: root, encoding: "utf8", input: "", timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const plan = approvalPlan;

describe("approval on PostgreSQL", { timeout: 120_000 }, () => {
  test("a suspended run survives a database restart and every worker's exit; approved, it completes with a new worker; denied, its step fails and its dependents are skipped", async () => {
    const connectionString = db().url;
    const first = spawned(connectionString, 1_000);
    await first.ready;
    const runId = await submitPlan(plan, { connectionString, options: { approvalTools: ["add"] } });
    const suspended = await waitForRun(runId, { connectionString, timeoutMs: 60_000 });
    expect(suspended.status).toBe("suspended");
    expect([...(suspended.pending ?? [])]).toEqual([
      [2, { tool: "add", args: { a: 40, b: 2 } }],
      [5, { tool: "add", args: { a: 1, b: 1 } }],
    ]);
    expect([...suspended.results.keys()].sort()).toEqual([1, 4]);

    first.child.kill("SIGTERM");
    await first.exited;
    // Read once the worker has exited: all it printed has arrived (a line may come after the commit that suspended the run).
    expect(first.calls.filter((call) => call.tool === "add")).toEqual([]);
    expect(
      first.events
        .filter((event) => event.type === "step-awaiting-approval")
        .map((event) => event.stepId)
        .sort(),
    ).toEqual([2, 5]);
    await db().stop();
    await db().start();
    const after = await getRun(runId, { connectionString });
    expect(after.status).toBe("suspended");
    expect([2, 5].map((id) => after.steps.get(id)?.state)).toEqual(["awaiting-approval", "awaiting-approval"]);
    expect(after.steps.get(3)?.state).toBe("waiting");
    expect(after.attempts?.has(2)).toBe(false); // waiting is no try

    await approveStep(runId, 2, { connectionString });
    // Approving twice runs it once: the second is refused, and changes nothing.
    const twice = await refusal(approveStep(runId, 2, { connectionString }));
    expect(twice.code).toBe("not-awaiting-approval");
    expect(twice.message).toMatch(/^step 2 of run ".*" does not wait for approval \(it is ready\); nothing was changed$/);
    await denyStep(runId, 5, "too expensive\u001b[2J", { connectionString });
    expect((await refusal(denyStep(runId, 5, "again", { connectionString }))).code).toBe("not-awaiting-approval");
    expect((await refusal(approveStep(runId, 3, { connectionString }))).message).toContain("it is waiting: its turn has not come");
    expect((await refusal(approveStep(runId, 99, { connectionString }))).code).toBe("unknown-step");
    expect((await refusal(approveStep("no-such-run", 2, { connectionString }))).code).toBe("unknown-run");

    const second = spawned(connectionString, 1_000);
    await second.ready;
    const done = await waitForRun(runId, { connectionString, timeoutMs: 60_000 });
    expect(done.status).toBe("failed");
    expect(done.results.get(2)).toBe(42);
    expect(done.results.get(3)).toEqual({ total: 42 });
    expect(done.errors.get(5)?.code).toBe("denied");
    expect(done.errors.get(5)?.message).toBe("step 5 (add): its approval was denied: too expensive\\u001b[2J");
    expect(done.skipped).toEqual([6]);
    expect(done.pending?.size ?? 0).toBe(0);
    second.child.kill("SIGTERM");
    await second.exited; // all it printed has arrived
    const calls = [...first.calls, ...second.calls].filter((call) => call.runId === runId);
    expect(calls.filter((call) => call.tool === "add").map((call) => [call.stepId, call.attempt])).toEqual([[2, 1]]);
    expect(calls.filter((call) => call.stepId === 1 || call.stepId === 4).length).toBe(2);
    expect((await refusal(approveStep(runId, 2, { connectionString }))).message).toContain("it is done");
  });

  test("a failure does not end a run that waits for approval; a denial with failFast stops it, the other waiting steps kept and no longer decidable; a cancelled suspended run is aborted", async () => {
    const connectionString = db().url;
    const calls: number[] = [];
    const tools = {
      echo: (args: Record<string, unknown>) => args,
      fail: () => {
        throw new Error("down");
      },
      pay: (_args: unknown, context: { stepId: number }) => (calls.push(context.stepId), "paid"),
    };
    const worker = await startWorker({ connectionString, tools });
    try {
      const failing = {
        steps: [
          { id: 1, tool: "fail", args: {} },
          { id: 2, tool: "pay", args: { to: "ada" } },
          { id: 3, tool: "echo", args: { x: "$1" } },
        ],
      };
      const options = { approvalTools: ["pay"] };
      const suspended = await waitForRun(await submitPlan(failing, { connectionString, options }), { connectionString, timeoutMs: 60_000 });
      expect(suspended.status).toBe("suspended");
      expect(suspended.errors.get(1)?.code).toBe("tool-error");
      expect(suspended.skipped).toEqual([3]);

      // A denial is a failure: with failFast it stops the run, the other waiting step kept waiting.
      const stopping = {
        steps: [
          { id: 1, tool: "pay", args: {} },
          { id: 2, tool: "pay", args: { again: true } },
          { id: 3, tool: "echo", args: {} },
        ],
      };
      const stoppedId = await submitPlan(stopping, { connectionString, options: { ...options, failFast: true } });
      expect((await waitForRun(stoppedId, { connectionString, timeoutMs: 60_000 })).status).toBe("suspended");
      await denyStep(stoppedId, 2, "no", { connectionString });
      const stopped = await waitForRun(stoppedId, { connectionString, timeoutMs: 60_000 });
      expect(stopped.status).toBe("failed");
      expect(stopped.errors.get(2)?.code).toBe("denied");
      expect([...(stopped.pending?.keys() ?? [])]).toEqual([1]);
      const refused = await refusal(approveStep(stoppedId, 1, { connectionString }));
      expect(refused.code).toBe("not-awaiting-approval");
      expect(refused.message).toContain("is failed: its steps no longer run");
      expect((await refusal(redriveRun(suspended.runId, { connectionString }))).message).toContain("is suspended: steps wait for approval");

      expect(await cancelRun(suspended.runId, { connectionString })).toBe(true);
      const cancelled = await waitForRun(suspended.runId, { connectionString, timeoutMs: 60_000 });
      expect(cancelled.status).toBe("aborted");
      expect([...(cancelled.pending?.keys() ?? [])]).toEqual([2]);
      expect(calls).toEqual([]);
    } finally {
      await worker.stop();
    }
  });

  test("plan-refs run --database --approve-tool exits 3 naming the waiting steps; status lists them with their resolved arguments, escaped; approve and approve --deny decide; a mistake is one line, exit 2", async () => {
    const connectionString = db().url;
    const worker = spawned(connectionString, 1_000);
    await worker.ready;
    const file = join(tmp, "plan.json");
    writeFileSync(
      file,
      JSON.stringify({
        steps: [
          { id: 1, tool: "echo", args: { to: "ops@example.com\u001b[2J" } },
          { id: 2, tool: "add", args: { a: 1, b: 2, to: "$1.to" } },
          { id: 3, tool: "add", args: { a: 2, b: 2 } },
        ],
      }),
    );
    const run = cli(["run", file, "--database", connectionString, "--approve-tool", "add"]);
    expect(run.status).toBe(3);
    const report = JSON.parse(run.stdout) as { status: string; runId: string; pending: Record<string, unknown> };
    expect(report.status).toBe("suspended");
    expect(report.pending).toEqual({
      2: { tool: "add", args: { a: 1, b: 2, to: "ops@example.com\u001b[2J" } },
      3: { tool: "add", args: { a: 2, b: 2 } },
    });
    const runId = report.runId;
    // The hints name the database, never its password (the test server's is "plan-refs").
    const shown = `'${connectionString.replace(":plan-refs@", ":***@")}'`;
    expect(shown).toContain(":***@");
    expect(run.stderr).toContain(
      `plan-refs: waiting for approval: steps 2 (add), 3 (add); their resolved arguments are under "pending" in the report (and in plan-refs status ${runId} --database ${shown}). Decide with plan-refs approve ${runId} 2 --database ${shown} (or --deny REASON); *** stands for the password of --database, which is not printed\n`,
    );
    expect(run.stderr).not.toContain(":plan-refs@");
    expect(run.stderr).toContain("step 2 (add) waiting for approval");

    const status = cli(["status", runId, "--database", connectionString]);
    expect(status.status).toBe(3);
    expect(status.stdout).toContain(`run ${runId}: suspended: 1 done, 0 failed, 0 skipped, 0 running, 0 waiting, 2 waiting for approval (`);
    expect(status.stdout).toContain(
      `  step 2 waits for approval: "add" with {"a":1,"b":2,"to":"ops@example.com\\u001b[2J"} (plan-refs approve ${runId} 2 --database ${shown} [--deny REASON]; *** stands for the password of --database, which is not printed)\n`,
    );
    expect(status.stdout).not.toContain("\u001b");

    expect(cli(["approve", runId, "3", "--deny", "not now", "--database", connectionString])).toEqual({
      status: 0,
      stderr: "",
      stdout: `run ${runId}: step 3 denied ("not now"): it failed "denied", what depends on it is skipped\n`,
    });
    expect(cli(["approve", runId, "2", "--database", connectionString])).toEqual({
      status: 0,
      stderr: "",
      stdout: `run ${runId}: step 2 approved: it is queued to run; plan-refs status ${runId} --database ${shown} to follow it; *** stands for the password of --database, which is not printed\n`,
    });
    const again = cli(["approve", runId, "2", "--database", connectionString]);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(
      /^plan-refs: step 2 of run ".*" does not wait for approval \(it is (ready|running|done)\); nothing was changed\n$/,
    );
    expect(cli(["approve", runId, "--database", connectionString]).status).toBe(2);
    const done = await waitForRun(runId, { connectionString, timeoutMs: 60_000 });
    expect(done.status).toBe("failed");
    expect(done.results.get(2)).toBe(3);
    worker.child.kill("SIGTERM");
    await worker.exited; // all it printed has arrived
    expect(worker.calls.filter((call) => call.runId === runId && call.tool === "add").map((call) => call.stepId)).toEqual([2]);
  });
});
