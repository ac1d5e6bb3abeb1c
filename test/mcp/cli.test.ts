/**
 * `plan-refs lint|run --mcp "COMMAND"` and `--mcp-url URL` as a user runs them, through `runCli`
 * in-process, against the test server (test/fixtures/mcp-server.mjs, started as processes: by the
 * CLI for --mcp, once here for --mcp-url) and the example in examples/mcp/.
 * Spawns the built executable (dist/cli/main.js) where only a process shows it: SIGTERM to plan-refs
 * while a call runs or a server starts (the servers stopped, then the exit by the signal), and a copy
 * of the build without @modelcontextprotocol/sdk installed.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runCliInProcess } from "../helpers/cli.js";
import { running } from "../helpers/processes.js";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const SERVER = "test/fixtures/mcp-server.mjs";
const work = tempFolder("mcp-cli");

function cli(args: readonly string[], cwd = root): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCliInProcess(args, { cwd });
}

function writePlan(name: string, plan: unknown): string {
  const path = join(work, name);
  writeFileSync(path, `${JSON.stringify(plan, null, 2)}\n`);
  return path;
}

/** Whether a process is still there. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let http: ChildProcess | undefined;
let httpUrl = "";
beforeAll(async () => {
  http = spawn(process.execPath, [join(root, SERVER), "--http"], { stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  http.stdout!.setEncoding("utf8");
  for await (const chunk of http.stdout!) {
    out += chunk as string;
    if (out.includes("\n")) break;
  }
  httpUrl = (JSON.parse(out.split("\n")[0]!) as { url: string }).url;
});
afterAll(() => {
  http?.kill();
});

describe("the example in examples/mcp/", () => {
  test("run --mcp runs the plan through the example server end to end", async () => {
    const { code, stdout, stderr } = await cli(["run", "examples/mcp/plan.json", "--mcp", "node examples/mcp/server.mjs"]);
    expect(stderr).toMatch(/plan-refs: ok: 3 results, 0 failed, 0 skipped in \d+ ms\n$/);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { status: string; results: Record<string, unknown> };
    expect(report.results["2"]).toEqual({ isbn: "9780141439556", total: 13.98 });
    expect(report.results["3"]).toBe(`Enjoy "Wuthering Heights" by Emily Brontë (13.98 € well spent).`);
  });

  test("lint --mcp: no errors", async () => {
    expect(await cli(["lint", "examples/mcp/plan.json", "--mcp", "node examples/mcp/server.mjs"])).toEqual({
      code: 0,
      stdout: "0 errors, 0 warnings\n",
      stderr: "",
    });
  });
});

describe("lint --mcp / --mcp-url", () => {
  const plan = {
    steps: [
      { id: 1, tool: "geocode", args: { city: "Lisbon" } },
      { id: 2, tool: "weather", args: { lat: "$1.lat", lon: "$1.longitude" } },
    ],
  };

  test.each([
    ["--mcp", () => `node ${SERVER}`],
    ["--mcp-url", () => httpUrl],
  ])("%s: unknown-key found through the server's outputSchema, at its line and column", async (flag, server) => {
    const path = writePlan("typo.plan.json", plan);
    const { code, stdout } = await cli(["lint", path, flag, server(), "--format", "json"]);
    expect(code).toBe(1);
    const diagnostics = JSON.parse(stdout) as { code: string; pointer: string; range: { start: { line: number; column: number } } }[];
    expect(diagnostics.map((d) => [d.code, d.pointer, d.range.start])).toEqual([
      ["unknown-key", "/steps/1/args/lon", { line: 15, column: 19 }],
    ]);
  });

  test("two servers offering the same tool: exit 2, one line naming both", async () => {
    const path = writePlan("typo.plan.json", plan);
    const { code, stderr } = await cli(["lint", path, "--mcp", `node ${SERVER}`, "--mcp-url", httpUrl]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `plan-refs: tool "geocode" is offered by two MCP servers, "node ${SERVER}" and "${httpUrl}"; tool names must be unique across servers\n`,
    );
  });

  test("two servers with distinct names: both catalogs are used", async () => {
    const path = writePlan("two.plan.json", {
      steps: [
        { id: 1, tool: "a_geocode", args: { city: "Porto" } },
        { id: 2, tool: "shout", args: { text: "$1.nme" } },
      ],
    });
    const { code, stdout } = await cli(["lint", path, "--mcp", `node ${SERVER} --prefix a_`, "--mcp-url", httpUrl]);
    expect(code).toBe(1);
    expect(stdout).toContain(`error unknown-key $1.nme: step 1 (a_geocode)'s output schema has no key "nme"; did you mean "name"?`);
  });

  test.each([
    [
      `node ${SERVER} > log.txt`,
      `plan-refs: server command "node ${SERVER} > log.txt": ">" is a shell operator, and no shell runs the command (quote it to pass it as written) at offset 34\n`,
    ],
    [`node "${SERVER}`, `plan-refs: server command "node \\"${SERVER}": a double quote that is never closed at offset 5\n`],
    ["", "plan-refs: a server command is empty\n"],
  ])("--mcp %j: exit 2, one line, nothing started", async (command, message) => {
    const path = writePlan("typo.plan.json", plan);
    expect(await cli(["lint", path, "--mcp", command])).toEqual({ code: 2, stdout: "", stderr: message });
  });

  test("a bad command line among several: no server is started", async () => {
    const path = writePlan("typo.plan.json", plan);
    const pidFile = join(work, "never.pid");
    expect((await cli(["lint", path, "--mcp", `node ${SERVER} --pid-file ${pidFile}`, "--mcp", "node s.mjs |"])).code).toBe(2);
    expect(() => readFileSync(pidFile)).toThrow(/ENOENT/);
  });

  test("a server that cannot start: exit 2, one line", async () => {
    const path = writePlan("typo.plan.json", plan);
    expect(await cli(["lint", path, "--mcp", "plan-refs-no-such-server --x"])).toEqual({
      code: 2,
      stdout: "",
      stderr: `plan-refs: MCP server "plan-refs-no-such-server --x": cannot start the server: no such program\n`,
    });
  });
});

describe("run --mcp / --mcp-url", () => {
  test("--mcp-url: a plan run through a Streamable HTTP server", async () => {
    const path = writePlan("run.plan.json", {
      steps: [
        { id: 1, tool: "geocode", args: { city: "Lisbon" } },
        { id: 2, tool: "shout", args: { text: "$1.name" } },
      ],
    });
    const { code, stdout } = await cli(["run", path, "--mcp-url", httpUrl, "--validate-outputs"]);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { results: unknown }).results).toEqual({ 1: { name: "Lisbon", lat: 38.72, lon: -9.14 }, 2: "LISBON!" });
  });

  test("--tools and --mcp together; a name in both is an error naming both", async () => {
    const module = join(work, "tools.mjs");
    writeFileSync(module, "export const exclaim = ({ text }) => `${text}!!`;\nexport const fail = () => 1;\n");
    const path = writePlan("mixed.plan.json", {
      steps: [
        { id: 1, tool: "geocode", args: { city: "Faro" } },
        { id: 2, tool: "exclaim", args: { text: "$1.name" } },
      ],
    });
    writeFileSync(join(work, "ok-tools.mjs"), "export const exclaim = ({ text }) => `${text}!!`;\n");
    const ok = await cli(["run", path, "--tools", join(work, "ok-tools.mjs"), "--mcp", `node ${SERVER}`]);
    expect(ok.code).toBe(0);
    expect((JSON.parse(ok.stdout) as { results: Record<string, unknown> }).results["2"]).toBe("Faro!!");
    const clash = await cli(["run", path, "--tools", module, "--mcp", `node ${SERVER}`]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toBe(
      `plan-refs: tool "fail" is offered by MCP server "node ${SERVER}" and by --tools ${module}; tool names must be unique\n`,
    );
  });

  test("a tool the servers do not offer: a lint error before anything runs (exit 2)", async () => {
    const path = writePlan("unknown.plan.json", { steps: [{ id: 1, tool: "geocod", args: { city: "Faro" } }] });
    const { code, stderr } = await cli(["run", path, "--mcp", `node ${SERVER}`]);
    expect(code).toBe(2);
    expect(stderr).toContain(`error unknown-tool tool "geocod" is not in the tool catalog; did you mean "geocode"?`);
  });

  test("isError: the step fails (exit 1) and the server's text is escaped in the report and on the terminal", async () => {
    const path = writePlan("fail.plan.json", { steps: [{ id: 1, tool: "fail", args: {} }] });
    const { code, stdout, stderr } = await cli(["run", path, "--mcp", `node ${SERVER}`]);
    expect(code).toBe(1);
    expect(stderr).not.toMatch(/\u001b/);
    const report = JSON.parse(stdout) as { errors: Record<string, { code: string; message: string }> };
    expect(report.errors["1"]).toMatchObject({
      code: "tool-error",
      message: "step 1 (fail): the tool failed: the MCP server reported an error: no such city\\n\\u001b[31mplan-refs: ok: 9 results",
    });
  });

  test("a server that exits mid-call: the step fails with a clear error, the command ends (exit 1)", async () => {
    const path = writePlan("crash.plan.json", { steps: [{ id: 1, tool: "crash", args: {} }] });
    const { code, stdout } = await cli(["run", path, "--mcp", `node ${SERVER}`]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as { errors: Record<string, { message: string }> };
    expect(report.errors["1"]!.message).toBe(
      "step 1 (crash): the tool failed: the MCP server closed the connection before answering (it exited, or the connection dropped)",
    );
  });

  test("--timeout applies to MCP calls", async () => {
    const path = writePlan("slow.plan.json", { steps: [{ id: 1, tool: "slow", args: { ms: 60_000 } }] });
    const { code, stdout } = await cli(["run", path, "--mcp", `node ${SERVER}`, "--timeout", "100"]);
    expect(code).toBe(1);
    expect((JSON.parse(stdout) as { errors: Record<string, { code: string }> }).errors["1"]!.code).toBe("timeout");
  });

  test("the servers are stopped when the run ends: after success, after lint errors, and on SIGTERM", async () => {
    const pidFile = (name: string): string => join(work, `${name}.pid`);
    const ok = writePlan("pid-ok.plan.json", { steps: [{ id: 1, tool: "shout", args: { text: "x" } }] });
    expect((await cli(["run", ok, "--mcp", `node ${SERVER} --pid-file ${pidFile("ok")}`])).code).toBe(0);
    expect(alive(Number(readFileSync(pidFile("ok"), "utf8")))).toBe(false);

    const bad = writePlan("pid-bad.plan.json", { steps: [{ id: 1, tool: "shout", args: { text: "$2" } }] });
    expect((await cli(["run", bad, "--mcp", `node ${SERVER} --pid-file ${pidFile("bad")}`])).code).toBe(2);
    expect(alive(Number(readFileSync(pidFile("bad"), "utf8")))).toBe(false);

    const slow = writePlan("pid-slow.plan.json", { steps: [{ id: 1, tool: "slow", args: { ms: 60_000 } }] });
    const child = spawn(
      process.execPath,
      [join(root, "dist/cli/main.js"), "run", slow, "--mcp", `node ${SERVER} --pid-file ${pidFile("signal")}`],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.setEncoding("utf8");
    let stdout = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => (stdout += chunk));
    // Once step 1 has started, the server is up and the call is running.
    await new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk: string) => {
        stderr += chunk;
        if (stderr.includes("step 1 (slow) started")) resolve();
      });
    });
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.on("close", (exitCode) => resolve(exitCode)));
    expect(code).toBe(143);
    expect((JSON.parse(stdout) as { status: string }).status).toBe("aborted");
    expect(alive(Number(readFileSync(pidFile("signal"), "utf8")))).toBe(false);
  });
});

describe("a server under a wrapper that outlives its stdin", () => {
  // `sh -c "…; true"`: the shell stays the server's parent, as npx and uvx do; the server ignores stdin EOF.
  const wrapped = (pidFile: string): string => `sh -c "node ${SERVER} --linger --pid-file ${pidFile}; true"`;

  test.each(["lint", "run"])("%s --mcp: the command ends when its work is done, and the server with it", async (command) => {
    const pidFile = join(work, `wrapped-${command}.pid`);
    const path = writePlan(`wrapped-${command}.plan.json`, { steps: [{ id: 1, tool: "shout", args: { text: "x" } }] });
    const { code, stderr } = await cli([command, path, "--mcp", wrapped(pidFile)]);
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/error/i);
    expect(running(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });
});

describe("--mcp-timeout", () => {
  test("covers the handshake: a server that never answers it fails in one line (exit 2)", async () => {
    const path = writePlan("mcp-timeout.plan.json", { steps: [{ id: 1, tool: "shout", args: { text: "x" } }] });
    expect(await cli(["lint", path, "--mcp", `node ${SERVER} --slow-start 600000`, "--mcp-timeout", "100"])).toEqual({
      code: 2,
      stdout: "",
      stderr: `plan-refs: MCP server "node ${SERVER} --slow-start 600000": no answer to the MCP handshake within 100 ms\n`,
    });
  });

  test.each(["0", "1.5", "soon", String(2 ** 31)])("--mcp-timeout %j: exit 2, one line", async (value) => {
    const path = writePlan("mcp-timeout.plan.json", { steps: [{ id: 1, tool: "shout", args: { text: "x" } }] });
    expect(await cli(["run", path, "--mcp", `node ${SERVER}`, "--mcp-timeout", value])).toEqual({
      code: 2,
      stdout: "",
      stderr: `plan-refs: --mcp-timeout must be a whole number of milliseconds from 1 to 2147483647, not "${value}"\n`,
    });
  });
});

describe("lint --mcp and signals", () => {
  test("SIGTERM while a server is starting: the server is stopped (even one that outlives its stdin), then plan-refs ends by SIGTERM", async () => {
    const pidFile = join(work, "lint-signal.pid");
    const path = writePlan("lint-signal.plan.json", { steps: [{ id: 1, tool: "shout", args: { text: "x" } }] });
    const child = spawn(
      process.execPath,
      [join(root, "dist/cli/main.js"), "lint", path, "--mcp", `node ${SERVER} --linger --slow-start 60000 --pid-file ${pidFile}`],
      { cwd: root, stdio: "ignore" },
    );
    const closed = new Promise<[number | null, string | null]>((resolve) => child.on("close", (code, signal) => resolve([code, signal])));
    let pid = Number.NaN;
    while (Number.isNaN(pid)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      try {
        pid = Number(readFileSync(pidFile, "utf8"));
      } catch {
        // not started yet
      }
    }
    child.kill("SIGTERM");
    expect(await closed).toEqual([null, "SIGTERM"]);
    expect(alive(pid)).toBe(false);
  });
});

describe("without @modelcontextprotocol/sdk installed", () => {
  test("plan-refs/mcp imports; connecting, and the CLI's --mcp, fail with one line naming the install command", async () => {
    // The build, with every dependency but the SDK.
    const dir = join(work, "no-sdk");
    mkdirSync(join(dir, "node_modules"), { recursive: true });
    cpSync(join(root, "dist"), join(dir, "dist"), { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "plan-refs", version: "0.0.0", type: "module" }));
    for (const entry of readdirSync(join(root, "node_modules"))) {
      if (entry !== "@modelcontextprotocol" && entry !== ".bin")
        symlinkSync(join(root, "node_modules", entry), join(dir, "node_modules", entry));
    }
    const script = [
      `const mcp = await import("./dist/mcp/index.js");`,
      `console.log(Object.keys(mcp).length > 0);`,
      `try { await mcp.connectMcp({ command: "node", args: ["server.mjs"] }); } catch (error) { console.log(error.code, error.message); }`,
    ].join("\n");
    writeFileSync(join(dir, "try.mjs"), script);
    const tried = spawnSync(process.execPath, ["try.mjs"], { cwd: dir, encoding: "utf8" });
    expect(tried.stdout).toBe(
      "true\nmissing-sdk plan-refs/mcp needs @modelcontextprotocol/sdk, which is not installed: npm install @modelcontextprotocol/sdk\n",
    );
    const path = writePlan("no-sdk.plan.json", { steps: [{ id: 1, tool: "x", args: {} }] });
    const run = spawnSync(process.execPath, [join(dir, "dist/cli/main.js"), "run", path, "--mcp", "node server.mjs"], {
      cwd: dir,
      encoding: "utf8",
      input: "",
    });
    expect({ code: run.status, stderr: run.stderr }).toEqual({
      code: 2,
      stderr: "plan-refs: plan-refs/mcp needs @modelcontextprotocol/sdk, which is not installed: npm install @modelcontextprotocol/sdk\n",
    });
  });
});
