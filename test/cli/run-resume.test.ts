/**
 * `plan-refs run --resume`, `--approve-tool`, `--approve` and `--deny` as a user runs them, through
 * `runCli` in-process: each tool call is logged to a file, so the counts are the real calls of every run.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { runCliInProcess } from "../helpers/cli.js";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tmp = tempFolder("run-resume");
let files = 0;

function file(name: string, content: string): string {
  const path = join(tmp, `${files++}-${name}`);
  writeFileSync(path, content);
  return path;
}

async function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const result = await runCliInProcess(["run", ...args], { cwd: root });
  return { status: result.code, stdout: result.stdout, stderr: result.stderr };
}

/** A tools module whose every call appends its step id to its own log; `fail(step)` names a step that throws (undefined: none). */
function loggedTools(): { module: string; calls: () => number[]; fail: (step: number | undefined) => void } {
  const log = join(tmp, `${files++}-calls.log`);
  const failing = `${log}.fail`;
  const source = `import { appendFileSync, existsSync, readFileSync } from "node:fs";
const call = (args, context) => {
  appendFileSync(${JSON.stringify(log)}, context.stepId + "\\n");
  if (existsSync(${JSON.stringify(failing)}) && readFileSync(${JSON.stringify(failing)}, "utf8") === String(context.stepId)) throw new Error("the service is down");
  return { step: context.stepId, ...args };
};
export const lookup = call, pay = call, mail = call;
`;
  return {
    module: file("tools.mjs", source),
    calls: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map(Number) : []),
    fail: (step) => (step === undefined ? rmSync(failing, { force: true }) : writeFileSync(failing, String(step))),
  };
}

const plan = file(
  "plan.json",
  JSON.stringify({
    steps: [
      { id: 1, tool: "lookup", args: { who: "ada" } },
      { id: 2, tool: "pay", args: { to: "$1.who", amount: 30 } },
      { id: 3, tool: "mail", args: { receipt: "$2.step" } },
      { id: 4, tool: "lookup", args: { who: "bob" } },
    ],
  }),
);

interface Report {
  status: string;
  results: Record<string, unknown>;
  errors: Record<string, { code: string; message: string }>;
  skipped: number[];
  planHash: string;
  pending?: Record<string, { tool: string; args: Record<string, unknown> }>;
  reused?: number[];
}

const read = (path: string): Report => JSON.parse(readFileSync(path, "utf8")) as Report;

describe("plan-refs run: approval and resume", () => {
  test("--approve-tool: the step waits, exit 3 naming it; --resume FILE --approve STEP --results FILE runs it and what waited on it, nothing else again", async () => {
    const { module, calls } = loggedTools();
    const results = join(tmp, `${files++}-run.json`);
    const first = await run([plan, "--tools", module, "--approve-tool", "pay", "--results", results]);
    expect(first.status).toBe(3);
    expect(calls().sort()).toEqual([1, 4]);
    expect(first.stderr).toContain(
      `plan-refs: waiting for approval: step 2 (pay); their resolved arguments are under "pending" in the report. Resume with --resume ${results} --approve 2 (or --deny 2=REASON)`,
    );
    expect(first.stderr).toMatch(/^step 2 \(pay\) waiting for approval at \d+ ms$/m);
    const suspended = read(results);
    expect(suspended.status).toBe("suspended");
    expect(suspended.pending).toEqual({ 2: { tool: "pay", args: { to: "ada", amount: 30 } } });
    expect(suspended.planHash).toMatch(/^[0-9a-f]{64}$/);

    // Not approved: it waits again (the report says so), nothing is called.
    expect((await run([plan, "--tools", module, "--resume", results, "--results", results])).status).toBe(3);
    expect(calls().sort()).toEqual([1, 4]);

    const second = await run([plan, "--tools", module, "--resume", results, "--approve", "2", "--results", results]);
    expect(second.status).toBe(0);
    expect(calls().sort()).toEqual([1, 2, 3, 4]);
    const done = read(results);
    expect(done.status).toBe("ok");
    expect(done.reused).toEqual([1, 4]);
    expect(Object.keys(done.results)).toEqual(["1", "2", "3", "4"]);

    // Step 2 no longer waits: approving it again is refused (exit 2), runs nothing and keeps the report.
    const again = await run([plan, "--tools", module, "--resume", results, "--approve", "2", "--results", results]);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain("step 2 is not waiting for approval in the previous report (no step waits)");
    expect(calls().sort()).toEqual([1, 2, 3, 4]);
    expect(read(results).reused).toEqual([1, 4]);
  });

  test("--deny STEP=REASON: the step fails (denied, with the reason escaped), its dependents are skipped, exit 1", async () => {
    const { module, calls } = loggedTools();
    const results = join(tmp, `${files++}-run.json`);
    expect((await run([plan, "--tools", module, "--approve-tool", "pay", "--results", results])).status).toBe(3);
    const denied = await run([plan, "--tools", module, "--resume", results, "--deny", "2=too expensive\u001b[2J", "--results", results]);
    expect(denied.status).toBe(1);
    expect(calls().sort()).toEqual([1, 4]);
    const report = read(results);
    expect(report.errors["2"]).toEqual({ code: "denied", message: "step 2 (pay): its approval was denied: too expensive\\u001b[2J" });
    expect(report.skipped).toEqual([3]);
    expect(denied.stderr).not.toContain("\u001b[2J");
  });

  test("--resume after a failure: only the failed and skipped steps run; the report goes to stdout without --results", async () => {
    const { module, calls, fail } = loggedTools();
    const previous = join(tmp, `${files++}-failed.json`);
    fail(2);
    const failed = await run([plan, "--tools", module, "--results", previous]);
    fail(undefined);
    expect(failed.status).toBe(1);
    expect(read(previous).skipped).toEqual([3]);
    const resumed = await run([plan, "--tools", module, "--resume", previous]);
    expect(resumed.status).toBe(0);
    expect(calls().sort()).toEqual([1, 2, 2, 3, 4]);
    expect((JSON.parse(resumed.stdout) as Report).reused).toEqual([1, 4]);
  });

  test("a report of another plan is refused before anything runs (exit 2, both hashes), and the file is left as it was", async () => {
    const { module, calls } = loggedTools();
    const results = join(tmp, `${files++}-run.json`);
    expect((await run([plan, "--tools", module, "--approve-tool", "pay", "--results", results])).status).toBe(3);
    const before = readFileSync(results, "utf8");
    const changed = file(
      "changed.json",
      JSON.stringify({
        steps: [
          { id: 1, tool: "lookup", args: { who: "eve" } },
          { id: 2, tool: "pay", args: { to: "$1.who", amount: 30 } },
        ],
      }),
    );
    const refused = await run([changed, "--tools", module, "--resume", results, "--approve", "2", "--results", results]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^plan-refs: --resume .*: the previous report is of another plan \\(its planHash ${read(results).planHash}, this plan's [0-9a-f]{64}\\); nothing was run$`,
        "m",
      ),
    );
    expect(refused.stdout).toBe("");
    expect(calls().sort()).toEqual([1, 4]);
    expect(readFileSync(results, "utf8")).toBe(before);
  });

  test("what --resume cannot use is a file error (exit 2), never a stack trace", async () => {
    const { module, calls } = loggedTools();
    const notReport = file("not-report.json", JSON.stringify({ runId: "r", status: "done" }));
    const results = join(tmp, `${files++}-run.json`);
    expect((await run([plan, "--tools", module, "--approve-tool", "pay", "--results", results])).status).toBe(3);
    calls();
    const cases: [string[], RegExp][] = [
      [
        ["--resume", notReport],
        /^plan-refs: --resume .*: the report's status must be one of ok, failed, aborted, invalid, suspended; nothing was run$/m,
      ],
      [["--resume", plan], /^plan-refs: --resume .*: the report's runId must be a string; nothing was run$/m],
      [["--resume", join(tmp, "missing.json")], /^plan-refs: .*missing\.json/m],
      [
        ["--resume", results, "--approve", "9"],
        /^plan-refs: --resume .*: option approve names step 9, which the plan does not have; nothing was run$/m,
      ],
      [
        ["--resume", results, "--approve", "2", "--deny", "2=no"],
        /^plan-refs: --resume .*: step 2 is both approved and denied; nothing was run$/m,
      ],
      [
        ["--resume", results, "--database", "postgres://localhost:1/x"],
        /^plan-refs: --resume is for a run here: a run on PostgreSQL goes on with plan-refs redrive RUN_ID or plan-refs approve RUN_ID STEP; nothing was submitted$/m,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await run([plan, "--tools", module, ...args]);
      expect(result.status, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(calls().sort()).toEqual([1, 4]);
  });
});
