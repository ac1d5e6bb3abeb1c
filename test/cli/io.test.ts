/**
 * What the command line reads of its process comes through `CliIo`: relative paths are resolved
 * against `io.cwd` (never the process's working folder), `-` reads `io.stdin`, and the environment is
 * `io.env`; `commandIo` is the one place that falls back on the process. Run in-process, from a
 * working folder that is not this process's. One test starts a process: the MCP server `--mcp` starts
 * (test/fixtures/mcp-server.mjs), to see which folder it starts in.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { commandIo } from "../../src/cli/io.js";
import { readStdin, userPath } from "../../src/cli/input.js";
import { repoRoot, runCliInProcess } from "../helpers/cli.js";
import { tempFolder } from "../helpers/temp.js";

const work = tempFolder("cli-io");
mkdirSync(join(work, "sub"));
writeFileSync(
  join(work, "sub", "plan.json"),
  JSON.stringify(
    {
      steps: [
        { id: 1, tool: "echo", args: { x: 1 } },
        { id: 2, tool: "echo", args: { y: "$1.x" } },
      ],
    },
    null,
    2,
  ),
);
writeFileSync(join(work, "sub", "tools.mjs"), "export const echo = (args) => args;\n");
writeFileSync(join(work, "sub", "tools.json"), JSON.stringify({ echo: { input: { type: "object" } } }));
writeFileSync(join(work, "sub", "throws.mjs"), 'export const echo = () => 1;\nthrow new RangeError("no key");\n');
const cwd = join(work, "sub");

describe("relative paths are io.cwd's", () => {
  test("the process's own working folder is another one (so each test below can tell them apart)", () => {
    expect(process.cwd()).not.toBe(cwd);
    expect(existsSync(join(process.cwd(), "plan.json"))).toBe(false);
  });

  test("lint: the plan and --catalog", async () => {
    expect(await runCliInProcess(["lint", "plan.json", "--catalog", "tools.json"], { cwd })).toEqual({
      code: 0,
      stdout: "0 errors, 0 warnings\n",
      stderr: "",
    });
  });

  test("run: the plan, --tools, --results, --timeline, then --resume", async () => {
    const first = await runCliInProcess(["run", "plan.json", "--tools", "tools.mjs", "--results", "out.json", "--timeline", "t.mmd"], {
      cwd,
    });
    expect(first.code, first.stderr).toBe(0);
    expect((JSON.parse(readFileSync(join(cwd, "out.json"), "utf8")) as { results: unknown }).results).toEqual({ 1: { x: 1 }, 2: { y: 1 } });
    expect(readFileSync(join(cwd, "t.mmd"), "utf8")).toMatch(/^gantt\n/);
    const again = await runCliInProcess(["run", "plan.json", "--tools", "tools.mjs", "--resume", "out.json"], { cwd });
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { reused: number[] }).reused).toEqual([1, 2]);
  });

  test("--results naming the plan is refused through its relative name too", async () => {
    const run = await runCliInProcess(["run", "plan.json", "--tools", "tools.mjs", "--results", "./plan.json"], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--results \.\/plan\.json: is the plan; write the results to another file; nothing was run/);
  });

  test("graph --out", async () => {
    expect((await runCliInProcess(["graph", "plan.json", "--out", "g.dot"], { cwd })).code).toBe(0);
    expect(readFileSync(join(cwd, "g.dot"), "utf8")).toMatch(/^digraph /);
    expect(readdirSync(repoRoot)).not.toContain("g.dot");
  });

  test("schema --catalog, and resolve --args/--results", async () => {
    expect((await runCliInProcess(["schema", "--catalog", "tools.json"], { cwd })).code).toBe(0);
    writeFileSync(join(cwd, "args.json"), '{ "q": "$1.a" }');
    writeFileSync(join(cwd, "results.json"), '{ "1": { "a": "ok" } }');
    expect(await runCliInProcess(["resolve", "--args", "args.json", "--results", "results.json"], { cwd })).toEqual({
      code: 0,
      stdout: '{\n  "q": "ok"\n}\n',
      stderr: "",
    });
  });

  test("a throw at import names its place relative to io.cwd", async () => {
    const run = await runCliInProcess(["run", "plan.json", "--tools", "throws.mjs", "--no-catalog"], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^plan-refs: throws\.mjs[:\s]/);
  });

  test("a missing file is named as given", async () => {
    expect(await runCliInProcess(["lint", "nope.json"], { cwd })).toEqual({
      code: 2,
      stdout: "",
      stderr: "plan-refs: nope.json: no such file\n",
    });
  });
});

describe("stdin and the environment", () => {
  test("- reads io.stdin", async () => {
    const run = await runCliInProcess(["lint", "-", "--catalog", "tools.json"], { cwd, stdin: readFileSync(join(cwd, "plan.json")) });
    expect(run).toEqual({ code: 0, stdout: "0 errors, 0 warnings\n", stderr: "" });
  });

  test("--mcp servers start in io.cwd", async () => {
    const server = join(repoRoot, "test/fixtures/mcp-server.mjs");
    writeFileSync(join(cwd, "shout.plan.json"), JSON.stringify({ steps: [{ id: 1, tool: "shout", args: { text: "x" } }] }));
    // The server writes its pid file by a relative name: it lands in io.cwd.
    const run = await runCliInProcess(["lint", "shout.plan.json", "--mcp", `node ${server} --pid-file server.pid`], {
      cwd,
      env: { PATH: process.env["PATH"] },
    });
    expect(run).toEqual({ code: 0, stdout: "0 errors, 0 warnings\n", stderr: "" });
    expect(existsSync(join(cwd, "server.pid"))).toBe(true);
  });

  test("commandIo fills in the process's stdin, environment and working folder, and nothing the io gives", () => {
    const io = { stdout: () => undefined, stderr: () => undefined, stdoutIsTTY: false, stderrIsTTY: false };
    expect(commandIo(io)).toMatchObject({ stdin: readStdin, env: process.env, cwd: process.cwd() });
    const stdin = (): Uint8Array => new Uint8Array();
    const given = commandIo({ ...io, stdin, env: { A: "1" }, cwd: "sub/.." });
    expect(given).toMatchObject({ stdin, env: { A: "1" }, cwd: process.cwd() });
    expect(userPath(given, "x.json")).toBe(join(process.cwd(), "x.json"));
    expect(userPath({ cwd }, "/abs/x.json")).toBe("/abs/x.json");
  });
});

describe("the commands read their process only through io", () => {
  test("no process.cwd() or process.env in src/cli but in io.ts's commandIo", () => {
    const folder = join(repoRoot, "src/cli");
    for (const name of readdirSync(folder).filter((file) => file.endsWith(".ts") && file !== "main.ts")) {
      const code = readFileSync(join(folder, name), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
      const uses = code.match(/process\.(cwd\(\)|env\b)/g) ?? [];
      expect(uses, name).toEqual(name === "io.ts" ? ["process.env", "process.cwd()"] : []);
    }
  });
});
