/**
 * The command line on PostgreSQL: db migrate, worker (SIGTERM exits 0), run --database (the same
 * JSON as a run here, and --timeline drawn from the stored times), run --detach and status, and the
 * one-line errors (exit 2; --concurrency is refused with --database).
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fileDatabase, freePort, type FileDatabase } from "./server.js";
import { workerUsage } from "../../src/cli/worker-command.js";
import { cancelRun, getRun } from "../../src/postgres/index.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const TOOLS = "test/fixtures/pg-tools.mjs";
// Says on stderr when the command has taken SIGTERM (see the file).
const TELL_SIGNALS = new URL("../fixtures/tell-signals.mjs", import.meta.url).href;
let db: FileDatabase;
let work: string;

function cli(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ["dist/cli/main.js", ...args], {
    cwd: root,
    encoding: "utf8",
    input: "",
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function cliAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["dist/cli/main.js", ...args], { cwd: root });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("exit", (status) => resolve({ status, stdout, stderr }));
  });
}

const plan = {
  steps: [
    { id: 1, tool: "echo", args: { city: "Lisbon" } },
    { id: 2, tool: "echo", args: { from: "$1.city" } },
    { id: 3, tool: "fail", args: { message: "no sights" } },
    { id: 4, tool: "echo", args: { a: "$2", b: "$3" } },
  ],
};

beforeAll(async () => {
  db = await fileDatabase({ migrated: false }); // the tests migrate it with the command line
  work = mkdtempSync(join(tmpdir(), "plan-refs-pg-cli-"));
  writeFileSync(join(work, "plan.json"), JSON.stringify(plan, null, 2));
}, 60_000);

afterAll(async () => {
  await db?.remove();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
}, 60_000);

/** `plan-refs worker` in a child process: its stderr so far, once it takes steps, its exit code. */
function cliWorker(): { worker: ReturnType<typeof spawn>; ready: Promise<void>; exited: Promise<number | null>; log: () => string } {
  const worker = spawn(
    process.execPath,
    ["dist/cli/main.js", "worker", "--tools", TOOLS, "--database", db.url, "--recovery-ms", "3000", "--tool-concurrency", "echo=2"],
    { cwd: root },
  );
  let log = "";
  const ready = new Promise<void>((resolve) =>
    worker.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      log += chunk;
      if (log.includes("taking steps")) resolve();
    }),
  );
  // "close": after its output was read too.
  const exited = new Promise<number | null>((resolve) => worker.on("close", (code) => resolve(code)));
  return { worker, ready, exited, log: () => log };
}

describe("plan-refs on PostgreSQL", { timeout: 90_000 }, () => {
  test("db migrate: exit 0, twice", () => {
    for (let i = 0; i < 2; i++) {
      const result = cli(["db", "migrate", "--database", db.url]);
      expect(result.stderr).toBe("plan-refs: the plan-refs tables are ready (schema plan_refs)\n");
      expect(result.status).toBe(0);
    }
  });

  test("a database that cannot be reached: one line naming host and port, exit 2", async () => {
    const port = await freePort();
    for (const args of [
      ["db", "migrate", "--database", `postgres://u:p@127.0.0.1:${port}/x`],
      ["status", "abc", "--database", `postgres://u:p@127.0.0.1:${port}/x`],
    ]) {
      const result = cli(args);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^plan-refs: cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}: [^\\n]*\\n$`));
    }
  });

  test.each([
    ["not a url", "--database is not a URL: expected postgres://user:password@host:5432/database"],
    ["localhost", "--database is not a URL: expected postgres://user:password@host:5432/database"],
    [
      "host=localhost dbname=agents",
      "--database looks like libpq keywords (host=…): give a URL instead, postgres://user:password@host:5432/database",
    ],
    ["http://127.0.0.1:1/", '--database is a "http" URL: expected postgres://user:password@host:5432/database'],
    ["postgres://u:secret@127.0.0.1:99999/x", "--database has port 99999: a port is 1 to 65535"],
  ])("--database %s: one line naming what is wrong (never the password), exit 2", (value, message) => {
    const result = cli(["status", "abc", "--database", value]);
    expect(result.stderr).toBe(`plan-refs: ${message}\n`);
    expect(result.status).toBe(2);
  });

  test("DATABASE_URL that is no PostgreSQL URL: one line, exit 2", () => {
    const result = cli(["status", "abc"], { DATABASE_URL: "localhost" });
    expect(result.stderr).toBe(
      "plan-refs: getRun: the connection string in DATABASE_URL is not a URL: expected postgres://user:password@host:5432/database\n",
    );
    expect(result.status).toBe(2);
  });

  test("an empty run id: one line without a library function's name, exit 2", () => {
    const result = cli(["status", "", "--database", db.url]);
    expect(result.stderr).toMatch(/^plan-refs: expected exactly one run id \(not empty\)\n/);
    expect(result.status).toBe(2);
  });

  test.each([
    [["pg", "graphile-worker"], "pg and graphile-worker are"],
    [["graphile-worker"], "graphile-worker is"],
  ])("without %j installed: one line naming every missing peer, exit 2", (left, which) => {
    const dir = join(work, `no-${left.join("-")}`);
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    cpSync(join(root, "dist"), join(dir, "dist"), { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "plan-refs", version: "0.0.0", type: "module" }));
    for (const entry of readdirSync(join(root, "node_modules"))) {
      if (!left.includes(entry) && entry !== ".bin") symlinkSync(join(root, "node_modules", entry), join(dir, "node_modules", entry));
    }
    const result = spawnSync(process.execPath, [join(dir, "dist/cli/main.js"), "db", "migrate", "--database", db.url], {
      cwd: dir,
      encoding: "utf8",
      input: "",
    });
    expect(result.stderr).toBe(
      `plan-refs: plan-refs/postgres needs pg and graphile-worker, and ${which} not installed: npm install pg graphile-worker\n`,
    );
    expect(result.status).toBe(2);
  });

  test("no --database and no DATABASE_URL: one line, exit 2", () => {
    const result = cli(["status", "abc"], { DATABASE_URL: "" });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe("plan-refs: getRun: no database given: pass connectionString (--database URL) or set DATABASE_URL\n");
  });

  test("worker + run --database: the same JSON as a run here, progress lines; run --detach and status; SIGTERM stops the worker with exit 0", async () => {
    const { worker, ready, exited, log } = cliWorker();
    try {
      await ready;
      const remote = await cliAsync(["run", join(work, "plan.json"), "--database", db.url]);
      const local = cli(["run", join(work, "plan.json"), "--tools", TOOLS]);
      expect(remote.status).toBe(1);
      expect(local.status).toBe(1);
      // Times and the run's id differ from run to run; the rest is the same.
      const strip = (text: string): unknown => {
        const json = JSON.parse(text) as { timings: unknown };
        return { ...json, timings: undefined, runId: undefined };
      };
      expect(strip(remote.stdout)).toEqual(strip(local.stdout));
      expect(remote.stderr).toMatch(/step 1 \(echo\) started at \d+ ms\n/);
      expect(remote.stderr).toMatch(/step 2 \(echo\) done in \d+ ms\n/);
      expect(remote.stderr).toMatch(/step 3 \(fail\) failed after \d+ ms: step 3 \(fail\): the tool threw: no sights\n/);
      expect(remote.stderr).toMatch(/step 4 \(echo\) skipped: step 3 did not succeed\n/);
      expect(remote.stderr).toMatch(/plan-refs: failed: 2 results, 1 failed, 1 skipped in \d+ ms\n$/);

      // --timeline with --database: drawn from the run's stored times once it ends, as for a run here.
      const svgPath = join(work, "remote.svg");
      const mmdPath = join(work, "remote.mmd");
      const drawn = await cliAsync(["run", join(work, "plan.json"), "--database", db.url, "--timeline", svgPath]);
      expect(drawn.status).toBe(1);
      expect(strip(drawn.stdout)).toEqual(strip(local.stdout));
      const svg = readFileSync(svgPath, "utf8");
      expect(svg.trimStart().startsWith("<svg")).toBe(true);
      expect(svg.match(/class="plan-refs-bar plan-refs-ok/g)?.length).toBe(2);
      expect(svg.match(/class="plan-refs-bar plan-refs-failed/g)?.length).toBe(1);
      expect(svg.match(/class="plan-refs-bar plan-refs-skipped/g)?.length).toBe(1);
      expect(svg).toContain('data-from="1" data-to="2"');
      const charted = await cliAsync([
        "run",
        join(work, "plan.json"),
        "--database",
        db.url,
        "--timeline",
        mmdPath,
        "--results",
        join(work, "remote.json"),
      ]);
      expect(charted.status).toBe(1);
      const mermaid = readFileSync(mmdPath, "utf8");
      expect(mermaid.startsWith("gantt\n")).toBe(true);
      expect(mermaid).toMatch(/fail :crit/);
      expect(mermaid).toMatch(/milestone/);

      const detached = cli(["run", join(work, "plan.json"), "--database", db.url, "--detach"]);
      expect(detached.status).toBe(0);
      const runId = detached.stdout.trim();
      expect(runId).toMatch(/^[0-9a-f-]{36}$/);
      let status: { status: number | null; stdout: string };
      for (;;) {
        status = cli(["status", runId, "--database", db.url, "--format", "json"]);
        if (!status.stdout.includes('"status": "running"')) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(status.status).toBe(1);
      const json = JSON.parse(status.stdout) as { runId: string; status: string; skipped: number[]; results: Record<string, unknown> };
      expect(json).toMatchObject({ runId, status: "failed", skipped: [4], results: { 1: { city: "Lisbon" }, 2: { from: "Lisbon" } } });
      const text = cli(["status", runId, "--database", db.url]);
      expect(text.stdout).toMatch(
        new RegExp(
          `^run ${runId}: failed: 2 done, 1 failed, 1 skipped, 0 running, 0 waiting \\(\\d+ ms\\)\\n  step 3: step 3 \\(fail\\): the tool threw: no sights\\n$`,
        ),
      );
      expect(log()).toMatch(/run [0-9a-f-]+ step 1 \(echo\) started\n/);
    } finally {
      worker.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(log()).toContain("plan-refs: worker stopped\n");
  });

  test("run --database --retry N: the workers apply the policy (the same JSON as a run here, the worker tells each wait); status shows a step waiting to be retried", async () => {
    expect(cli(["db", "migrate", "--database", db.url]).status).toBe(0);
    writeFileSync(
      join(work, "flaky.json"),
      JSON.stringify({
        steps: [
          { id: 1, tool: "flaky", args: { fails: 2, value: "up" } },
          { id: 2, tool: "echo", args: { after: "$1" } },
        ],
      }),
    );
    const { worker, ready, exited, log } = cliWorker();
    try {
      await ready;
      const remote = await cliAsync(["run", join(work, "flaky.json"), "--database", db.url, "--retry", "3", "--retry-delay", "0"]);
      const local = cli(["run", join(work, "flaky.json"), "--tools", TOOLS, "--retry", "3", "--retry-delay", "0"]);
      expect(remote.status).toBe(0);
      const strip = (text: string): unknown => ({ ...(JSON.parse(text) as object), timings: undefined, runId: undefined });
      expect(strip(remote.stdout)).toEqual(strip(local.stdout));
      expect(JSON.parse(remote.stdout)).toMatchObject({ attempts: { 1: 3, 2: 1 } });

      const detached = cli([
        "run",
        join(work, "flaky.json"),
        "--database",
        db.url,
        "--detach",
        "--retry",
        "2",
        "--retry-delay",
        "600000",
        "--retry-max-delay",
        "600000",
        "--serial-tool",
        "flaky",
        "--serial-tool",
        "echo",
      ]);
      const runId = detached.stdout.trim();
      // --serial-tool is kept with the run, and its step's job is in the tool's queue.
      const stored = await storedSerialTools(runId);
      expect(stored).toEqual({ serialTools: ["flaky", "echo"], queues: ["plan_refs.serial/flaky"] });
      let status: { status: number | null; stdout: string };
      for (;;) {
        status = cli(["status", runId, "--database", db.url]);
        if (status.stdout.includes("retrying")) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(status.status).toBe(0);
      expect(status.stdout).toMatch(
        new RegExp(
          `^run ${runId}: running: 0 done, 0 failed, 0 skipped, 0 running, 1 retrying, 1 waiting \\(\\d+ ms\\)\\n  step 1 retrying in (\\d+\\.\\d) s \\(attempt 2 of 2\\): step 1 \\(flaky\\): the tool threw: down on try 1\\n$`,
        ),
      );
      // Counted from the database's now, within the wait the policy allows (full jitter: up to 600 s).
      const inSeconds = Number(/retrying in (\d+\.\d) s/.exec(status.stdout)![1]);
      expect(inSeconds).toBeLessThanOrEqual(600);
      // Stopped while it waits: the step fails with its last try's error, as in runPlan.
      expect(await cancelRun(runId, { connectionString: db.url })).toBe(true);
      const stopped = await getRun(runId, { connectionString: db.url });
      expect(stopped.status).toBe("aborted");
      expect(stopped.errors.get(1)?.message).toBe("step 1 (flaky): the tool threw: down on try 1");
    } finally {
      worker.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    // The worker tells each wait (run --database sees a wait only if a snapshot falls in it: with no delay it may not).
    expect(log()).toMatch(/step 1 \(flaky\) retrying in 0\.0 s \(attempt 3 of 3\): step 1 \(flaky\): the tool threw: down on try 2\n/);
  });

  test("status of a run that does not exist: one line, exit 2", () => {
    const result = cli(["status", "no-such-run", "--database", db.url]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`plan-refs: no run "no-such-run" in 127.0.0.1:${db.port}\n`);
  });

  test("--concurrency with --database is a usage error (each worker's --concurrency decides): exit 2, nothing submitted", async () => {
    expect(cli(["db", "migrate", "--database", db.url]).status).toBe(0);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const count = async (): Promise<number> => Number((await client.query("select count(*) as n from plan_refs.runs")).rows[0].n);
      const before = await count();
      const result = cli(["run", join(work, "plan.json"), "--database", db.url, "--concurrency", "4", "--detach"]);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(
        /^plan-refs: --concurrency is each worker's own setting with --database: start the workers with plan-refs worker --concurrency N; nothing was submitted\n/,
      );
      expect(result.stdout).toBe("");
      expect(await count()).toBe(before);
    } finally {
      await client.end();
    }
  });

  test("SIGTERM while run --database submits: the run is cancelled, exit 143", async () => {
    expect(cli(["db", "migrate", "--database", db.url]).status).toBe(0);
    const holder = new pg.Client({ connectionString: db.url });
    const watcher = new pg.Client({ connectionString: db.url });
    await Promise.all([holder.connect(), watcher.connect()]);
    try {
      // The submission waits on this lock: the signal comes while it is under way.
      await holder.query("begin; lock table plan_refs.runs in exclusive mode");
      const child = spawn(
        process.execPath,
        ["--import", TELL_SIGNALS, "dist/cli/main.js", "run", join(work, "plan.json"), "--database", db.url],
        { cwd: root },
      );
      let stderr = "";
      let onStderr: () => void = () => undefined;
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => ((stderr += chunk), onStderr()));
      const stderrHas = (text: string): Promise<void> => new Promise((resolve) => (onStderr = () => stderr.includes(text) && resolve()));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      for (;;) {
        // Another connection: inside the holder's transaction, pg_stat_activity would not change.
        const waiting = await watcher.query(
          "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%insert into%plan_refs%runs%'",
        );
        if (waiting.rows[0].n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const taken = stderrHas("signal SIGTERM taken\n");
      child.kill("SIGTERM");
      await taken; // the command has seen the signal: the submission it waits on ends after it
      await holder.query("commit");
      const code = await Promise.race([
        exited,
        new Promise<string>((resolve) => setTimeout(() => resolve("still running after 20 s"), 20_000)),
      ]);
      if (code === "still running after 20 s") child.kill("SIGKILL");
      expect(code).toBe(143);
      expect(stderr).toContain("submitted as the signal came: cancelled");
      expect(stderr.indexOf("signal SIGTERM taken")).toBeLessThan(stderr.indexOf("submitted as the signal came"));
      const statuses = await holder.query("select status from plan_refs.runs where status = 'running'");
      expect(statuses.rows).toEqual([]);
    } finally {
      await Promise.all([holder.end(), watcher.end()]);
    }
  });

  test.each([
    ["--grace-ms", "9999999999", "--grace-ms must be an integer from 1 to 2147478647, not 9999999999"],
    ["--recovery-ms", "9999999999", "--recovery-ms must be an integer from 1000 to 2147483647, not 9999999999"],
    ["--recovery-ms", "1", "--recovery-ms must be an integer from 1000 to 2147483647, not 1"],
    ["--concurrency", "100000", "--concurrency must be an integer from 1 to 256, not 100000"],
    ["--concurrency", "0", "--concurrency must be an integer from 1 to 256, not 0"],
    ["--grace-ms", "1e3", '--grace-ms must be an integer from 1 to 2147478647, not "1e3"'],
  ])("worker %s %s: one line naming the bounds, then the usage, exit 2", (flag, value, message) => {
    const result = cli(["worker", "--tools", TOOLS, "--database", db.url, flag, value]);
    expect(result.stderr).toBe(`plan-refs worker: ${message}\n${workerUsage}\n(plan-refs worker --help for more)\n`);
    expect(result.status).toBe(2);
  });

  test("--detach without --database is a usage error", () => {
    const result = cli(["run", join(work, "plan.json"), "--tools", TOOLS, "--detach"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^plan-refs: --detach needs --database URL\n/);
  });
});

/** A run's stored serialTools and the queues of its steps' jobs (read from the tables). */
async function storedSerialTools(runId: string): Promise<{ serialTools: unknown; queues: unknown[] }> {
  const pg = (await import("pg")).default;
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const run = await client.query("select options->'serialTools' as tools from plan_refs.runs where id = $1", [runId]);
    const queues = await client.query(
      "select q.queue_name from graphile_worker._private_jobs j join graphile_worker._private_job_queues q on q.id = j.job_queue_id where j.key like $1 order by 1",
      [`${runId}:%`],
    );
    return { serialTools: run.rows[0]?.tools, queues: queues.rows.map((row: { queue_name: unknown }) => row.queue_name) };
  } finally {
    await client.end();
  }
}
