/**
 * The command line's own words, as a user meets them (through `runCli` in-process): help for
 * each command, the version, one flag per meaning (`--catalog FILE.json`, `--tools MODULE`) with a hint
 * for a file given to the wrong one, tools modules that fail to load in every way a user can make them
 * fail, diagnostics with positions and did-you-mean, and messages escaped so that no tool can forge a
 * line or drive the terminal.
 * Spawns the built executable where only a process shows it: a tools module loaded by Node's own
 * loader (in-process, vitest's module runner imports it: its syntax errors, the places of a throw at
 * import, and a `.ts` module's type stripping would be vitest's), a top-level await that never
 * settles (Node ends the process with exit code 13), and `mcp serve`, which serves until the
 * process's stdin closes.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { COMMAND_NAMES } from "../../src/cli/cli.js";
import { splitCommand } from "../../src/mcp/split-command.js";
import { runCliInProcess } from "../helpers/cli.js";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
// PLAN_REFS_CLI: another build of the executable (to check that a test fails on the build before a fix).
const main = process.env["PLAN_REFS_CLI"] ?? join(root, "dist/cli/main.js");
const tmp = tempFolder("usage");
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;

function file(name: string, content: string): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
}

async function cli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const result = await runCliInProcess(args);
  return { status: result.code, stdout: result.stdout, stderr: result.stderr };
}

function spawnCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [main, ...args], { cwd: root, encoding: "utf8", input: "", timeout: 20_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const noStackTrace = /\n\s+at /;

/** JSON.parse's message for a text, as this Node words it. */
function jsonParseMessage(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  return "";
}

describe("help and version", () => {
  test.each(COMMAND_NAMES)(
    "plan-refs %s --help (and -h): options, defaults, exit codes and an example on stdout, exit 0",
    async (command) => {
      for (const flag of ["--help", "-h"]) {
        const result = await cli([command, flag]);
        expect(result.status).toBe(0);
        expect(result.stderr).toBe("");
        expect(result.stdout).toMatch(new RegExp(`^usage: plan-refs ${command} `));
        expect(result.stdout).toMatch(/\noptions:\n/);
        expect(result.stdout).toMatch(/\nexit codes:\n/);
        expect(result.stdout).toMatch(/\nexample.*:\n {2}plan-refs /);
      }
      // --help wins wherever it stands, also after other options.
      expect((await cli([command, "--strict", "--help"])).status).toBe(0);
    },
  );

  // lsp waits for a client; db, worker, status, redrive and approve need a PostgreSQL (their examples run in test/postgres).
  test.each(COMMAND_NAMES.filter((name) => !["lsp", "db", "worker", "status", "redrive", "approve"].includes(name)))(
    "every example in plan-refs %s --help runs (exit 0, 1 or 3, never a usage error)",
    async (command) => {
      const help = (await cli([command, "--help"])).stdout;
      const examples = help
        .slice(help.search(/\nexamples?:\n/))
        .split("\n")
        .filter((line) => line.startsWith("  plan-refs "))
        .map((line) => splitCommand(line.trim()).slice(1));
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) {
        // `mcp serve` serves until its stdin closes: the process's own stdin, so it runs as a process.
        const args = example.map((arg) => (arg === "trip.json" ? join(tmp, "trip.json") : arg));
        const result = command === "mcp" ? spawnCli(args) : await cli(args);
        expect([0, 1, 3], example.join(" ")).toContain(result.status); // 3: a run waits for approval
        expect(result.stderr).not.toMatch(noStackTrace);
      }
    },
  );

  test("the defaults are stated", async () => {
    expect((await cli(["run", "--help"])).stdout).toMatch(/--concurrency N\s+most tools running at once \(default 8\)/);
    expect((await cli(["run", "--help"])).stdout).toMatch(
      /--attempts N\s+try a step whose tool fails or times out up to N times in all, the first\n\s+try included \(default 1: no retry; 3 is a first try and two retries\)/,
    );
    // --retry stays, and says what it is: the same count under its older name.
    for (const argv of [
      ["run", "--help"],
      ["mcp", "serve", "--help"],
    ]) {
      expect((await cli(argv)).stdout).toContain(
        "\n  --retry N             the same as --attempts N (its older name: N counts every try, not retries)\n",
      );
    }
    expect((await cli(["run", "--help"])).stdout).toMatch(/--retry-delay MS\s+the wait before the second try \(default 1000\)/);
    expect((await cli(["lint", "--help"])).stdout).toMatch(/--format pretty\|json\s+pretty \(default/);
    expect((await cli(["resolve", "--help"])).stdout).toMatch(/seed \(default\)/);
  });

  test.each(["--version", "-v"])("%s prints the version in package.json", async (flag) => {
    expect(await cli([flag])).toEqual({ status: 0, stdout: `plan-refs ${version}\n`, stderr: "" });
  });

  test("an unknown option points at --help", async () => {
    const result = await cli(["lint", "plan.json", "--colour"]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(
      /^plan-refs lint: unknown flag --colour\nusage: plan-refs lint .*\n\(plan-refs lint --help for more\)\n$/,
    );
  });
});

describe("--catalog FILE.json and --tools MODULE mean the same in every command", () => {
  const plan = file("plan.json", JSON.stringify({ steps: [{ id: 1, tool: "geocode", args: {} }] }, null, 2));
  // Not named tools.json: beside the plans of this folder, that would be read as their catalog.
  const catalog = file("my-tools.json", JSON.stringify({ geocode: { input: { type: "object" } } }));
  const module = file("tools.mjs", "export const geocode = () => ({ lat: 1 });\n");

  test.each([
    [
      "lint --tools tools.json",
      ["lint", plan, "--tools", catalog],
      /--tools takes the JavaScript module that implements the tools; give a JSON tool catalog with --catalog .*tools\.json/,
    ],
    [
      "run --tools tools.json",
      ["run", plan, "--tools", catalog],
      /--tools takes the JavaScript module that implements the tools; give a JSON tool catalog with --catalog .*tools\.json/,
    ],
    [
      "lint --catalog tools.mjs",
      ["lint", plan, "--catalog", module],
      /--catalog takes a JSON tool catalog; give a module that implements the tools with --tools .*tools\.mjs/,
    ],
    [
      "run --catalog tools.mjs",
      ["run", plan, "--tools", module, "--catalog", module],
      /--catalog takes a JSON tool catalog; give a module that implements the tools with --tools .*tools\.mjs/,
    ],
  ])("%s: exit 2 and a one-line hint naming the right flag", async (_name, args, hint) => {
    const result = await cli(args);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(hint);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  test("lint --catalog checks against the catalog; lint --tools checks the tools the module exports", async () => {
    expect((await cli(["lint", plan, "--catalog", catalog])).status).toBe(0);
    expect((await cli(["lint", plan, "--tools", module])).status).toBe(0);
    expect((await cli(["run", plan, "--tools", module, "--catalog", catalog])).status).toBe(0);
  });
});

describe("an unknown tool is printed the linter's way, in the command's own words", () => {
  const plan = file(
    "typo.plan.json",
    '{\n  "steps": [\n    { "id": 1, "tool": "fetch_page", "args": {} },\n    { "id": 2, "tool": "fetch_pgae", "args": {} }\n  ]\n}\n',
  );
  const module = file("fetch.mjs", "export const fetch_page = () => 'ok';\nexport const summarise = () => 'ok';\n");

  test.each(["run", "lint"])("plan-refs %s: file:line:column, the source line, carets, did-you-mean, the --tools flag", async (command) => {
    const result = await cli([command, plan, "--tools", module]);
    const lines = (command === "run" ? result.stderr : result.stdout).split("\n");
    expect(result.status).toBe(command === "run" ? 2 : 1);
    expect(lines.slice(0, 3)).toEqual([
      `${plan}:4:24 error unknown-tool no function for tool "fetch_pgae" among the functions exported by --tools ${module}; did you mean "fetch_page"?`,
      ` 4 |     { "id": 2, "tool": "fetch_pgae", "args": {} }`,
      `   |                        ^^^^^^^^^^^^`,
    ]);
    expect(result.stderr).not.toMatch(/runPlan/);
  });

  test("with no close name, the exported functions are listed", async () => {
    const other = file("other.plan.json", JSON.stringify({ steps: [{ id: 1, tool: "translate", args: {} }] }));
    expect((await cli(["run", other, "--tools", module])).stderr).toMatch(
      /no function for tool "translate" among the functions exported by --tools .*fetch\.mjs \(it exports: fetch_page, summarise\)/,
    );
  });
});

describe("a step whose arguments cannot be resolved is printed at its place in the plan", () => {
  test("file:line:column of the placeholder, the source line, carets under the failing key", async () => {
    const module = file("echo.mjs", "export const echo = (args) => args;\n");
    const plan = file(
      "unresolved.plan.json",
      '{\n  "steps": [\n    { "id": 1, "tool": "echo", "args": { "x": 1 } },\n    { "id": 2, "tool": "echo", "args": { "q": "$1.nope" } }\n  ]\n}\n',
    );
    const result = await cli(["run", plan, "--tools", module]);
    expect(result.status).toBe(1);
    const at = result.stderr.indexOf(`${plan}:4:50 error unresolved-args `);
    expect(at).toBeGreaterThan(-1);
    expect(result.stderr.slice(at).split("\n").slice(1, 3)).toEqual([
      ` 4 |     { "id": 2, "tool": "echo", "args": { "q": "$1.nope" } }`,
      `   |                                                  ^^^^^`,
    ]);
  });
});

describe("a tools module that does not load: exit 2, one line naming the module, no stack trace", () => {
  const plan = file("one.plan.json", JSON.stringify({ steps: [{ id: 1, tool: "geocode", args: {} }] }));

  test.each([
    ["throws a non-Error at import", "throw 42;\n", /cannot load the tools module: it threw 42/],
    [
      "throws a string at import",
      'throw "no config\\nplan-refs: ok: 9 results";\n',
      /cannot load the tools module: it threw "no config\\nplan-refs: ok: 9 results"/,
    ],
    ["throws null at import", "throw null;\n", /cannot load the tools module: it threw null/],
    [
      "default-exports a Proxy whose traps throw",
      'export default new Proxy({}, { ownKeys() { throw new Error("trap"); } });\n',
      /its default export could not be read: trap/,
    ],
  ])("a module that %s", async (_name, source, message) => {
    const result = await cli(["run", plan, "--tools", file(`bad-${Math.random().toString(36).slice(2)}.mjs`, source)]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(noStackTrace);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  test("a syntax error: file:line:column, the source line and a caret under the column", () => {
    const module = file("syntax.mjs", "export const geocode = () => 1;\nexport const lat = 1 2;\n");
    const result = spawnCli(["run", plan, "--tools", module]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `plan-refs: ${module}:2:22: cannot load the tools module: a syntax error: Unexpected number\n 2 | export const lat = 1 2;\n   |                      ^\n`,
    );
  });

  test("a throw at import: the module's line that threw, with a caret", () => {
    const module = file(
      "config.mjs",
      'const config = "{x";\nexport const geocode = () => 1;\nexport const settings = JSON.parse(config);\n',
    );
    const result = spawnCli(["run", plan, "--tools", module]);
    expect(result.status).toBe(2);
    // JSON.parse's own words differ between Node versions.
    expect(result.stderr).toBe(
      `plan-refs: ${module}:3:30: cannot load the tools module: it threw SyntaxError: ${jsonParseMessage("{x")}\n 3 | export const settings = JSON.parse(config);\n   |                              ^\n`,
    );
  });

  test("a throw in a module the tools module imports: that module's line, named after the message", () => {
    const inner = file("inner.mjs", 'export const geocode = () => 1;\nthrow new RangeError("no key");\n');
    const module = file("outer.mjs", `export * from ${JSON.stringify(inner)};\n`);
    const result = spawnCli(["run", plan, "--tools", module]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `plan-refs: ${module}: cannot load the tools module: it threw RangeError: no key (at ${relative(root, inner)}:2:7)\n 2 | throw new RangeError("no key");\n   |       ^\n`,
    );
  });

  test("a syntax error in a module the tools module imports: said so, and that the module itself parses", () => {
    const inner = file("broken-inner.mjs", "export const = ;\n");
    const module = file("imports-broken.mjs", `export * from ${JSON.stringify(inner)};\n`);
    const result = spawnCli(["run", plan, "--tools", module]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `plan-refs: ${module}: cannot load the tools module: a syntax error: Unexpected token '=' (in a module it imports: ${module} itself parses)\n`,
    );
  });

  test("a default export whose getter throws: the getter is never run, the tool is reported missing", async () => {
    const module = file("getter.mjs", 'export default { get geocode() { throw new Error("getter ran"); } };\n');
    const result = await cli(["run", plan, "--tools", module]);
    expect(result.status).toBe(2);
    expect(result.stderr).not.toMatch(/getter ran/);
    expect(result.stderr).toMatch(
      /no function for tool "geocode" among the functions exported by --tools .*getter\.mjs \(it exports no functions\)/,
    );
    expect(result.stderr).not.toMatch(noStackTrace);
  });

  test("a top-level await that never settles: Node's exit code 13, and one line saying which module never finished loading", async () => {
    const module = file("hangs.mjs", "await new Promise(() => {});\nexport const geocode = () => 1;\n");
    const result = spawnCli(["run", plan, "--tools", module]);
    expect(result.status).toBe(13);
    expect(result.stderr).toBe(
      `plan-refs: ${module}: the tools module never finished loading (a top-level await that never settles); nothing was run\n`,
    );
  });

  test("a .ts module: it loads where Node strips types, else one line says how to run it", async () => {
    const module = file("tools.ts", "export const geocode = (args: Record<string, unknown>): number => 1;\n");
    const result = spawnCli(["run", plan, "--tools", module]);
    // Node says whether it strips types (22.18 and 23.6 on, by default; earlier 22s with a flag).
    if (typeof (process.features as { typescript?: unknown }).typescript === "string") {
      expect(result.status).toBe(0);
    } else {
      expect(result.status).toBe(2);
      expect(result.stderr).toBe(
        `plan-refs: ${module}: Node ${process.versions.node} cannot load TypeScript; use Node ≥ 22.6 with --experimental-strip-types (or Node ≥ 23.6), or compile the module to .mjs\n`,
      );
    }
  });
});

describe("results JSON cannot hold", () => {
  const module = file(
    "odd.mjs",
    "export const undef = () => undefined;\nexport const big = () => ({ n: 10n });\nexport const loop = () => { const a = {}; a.self = a; return a; };\nexport const fine = () => 1;\n",
  );
  const plan = file(
    "odd.plan.json",
    JSON.stringify({ steps: ["undef", "big", "loop", "fine"].map((tool, i) => ({ id: i + 1, tool, args: {} })) }),
  );

  test("undefined is written as null and said so; a BigInt or a cycle is that step's error 'unserializable'; every other result is written", async () => {
    const result = await cli(["run", plan, "--tools", module]);
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout) as {
      status: string;
      results: Record<string, unknown>;
      errors: Record<string, { code: string; message: string }>;
    };
    expect(report.status).toBe("failed");
    expect(report.results).toEqual({ 1: null, 4: 1 });
    expect(report.errors["2"]).toEqual({
      code: "unserializable",
      message: "step 2: its result cannot be stored as JSON: it contains a BigInt",
    });
    expect(report.errors["3"]).toEqual({
      code: "unserializable",
      message: "step 3: its result cannot be stored as JSON: it contains a cycle",
    });
    expect(result.stderr).toMatch(/^plan-refs: step 1's tool returned undefined, which JSON cannot hold; it is written as null$/m);
    expect(result.stderr).toMatch(/plan-refs: failed: 2 results, 2 failed, 0 skipped/);
    expect(result.stderr).not.toMatch(noStackTrace);
  });
});

describe("every message printed is escaped", () => {
  const forged = "down\\n\\u001b[2K\\u001b[1Aplan-refs: ok: 9 results\\u009b2J\\u2028";
  const module = file("forge.mjs", `export const forge = () => { throw new Error("${forged}"); };\n`);
  const plan = file("forge.plan.json", JSON.stringify({ steps: [{ id: 1, tool: "forge", args: {} }] }));

  test("a tool's error message cannot forge a line or reach the terminal raw", async () => {
    const result = await cli(["run", plan, "--tools", module]);
    expect(result.status).toBe(1);
    expect(result.stderr).not.toMatch(/^plan-refs: ok/m);
    expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(result.stderr).toContain("the tool threw: down\\n\\u001b[2K\\u001b[1Aplan-refs: ok: 9 results\\u009b2J\\u2028");
    // The JSON report keeps the message exactly.
    expect((JSON.parse(result.stdout) as { errors: Record<string, { message: string }> }).errors["1"]?.message).toBe(
      `step 1 (forge): the tool threw: ${JSON.parse(`"${forged}"`) as string}`,
    );
  });

  test("on a terminal too: the only escape sequences are the view's own", async () => {
    const { runCli } = await import("../../src/cli/cli.js");
    let stderr = "";
    await runCli(["run", plan, "--tools", module], {
      stdout: () => undefined,
      stderr: (text) => (stderr += text),
      stdoutIsTTY: false,
      stderrIsTTY: true,
    });
    const own = stderr.replace(/\u001b\[(\d+A|J|\d+m)/g, "").replace(/\r/g, "");
    expect(own).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(own).not.toMatch(/^plan-refs: ok/m);
  });
});
