/**
 * Signals during `plan-refs run`, with real child processes: SIGINT, SIGTERM and SIGHUP each abort the
 * run, the results so far are written, and the process exits with 130, 143 or 129, also when a tool
 * ignores its abort signal and keeps the event loop busy. A second signal ends the process at once.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
// PLAN_REFS_CLI: another build of the executable (to check that a test fails on the build before a fix).
const main = process.env["PLAN_REFS_CLI"] ?? join(root, "dist/cli/main.js");
const tmp = tempFolder("signals");

function file(name: string, content: string): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
}

// `stubborn` ignores its abort signal, and its timer would keep Node running for a day.
const tools = file(
  "tools.mjs",
  `export const quick = () => "done";\n` +
    `export const listens = (_args, { signal }) => new Promise((_r, reject) => signal.addEventListener("abort", () => reject(signal.reason)));\n` +
    `export const stubborn = () => new Promise((resolve) => setTimeout(() => resolve("late"), 86_400_000));\n`,
);
const plan = (tool: string): string =>
  file(
    `${tool}.plan.json`,
    JSON.stringify({
      steps: [
        { id: 1, tool: "quick", args: {} },
        { id: 2, tool, args: { after: "$1" } },
      ],
    }),
  );

interface Outcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
}

/** Start a run, wait until step 2 has started, send the signals, wait for the exit. */
async function interrupt(tool: string, signals: NodeJS.Signals[], out: string): Promise<Outcome> {
  const child = spawn(process.execPath, [main, "run", plan(tool), "--tools", tools, "--results", out], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve) => {
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
      if (stderr.includes(`step 2 (${tool}) started`)) resolve();
    });
  });
  for (const signal of signals) child.kill(signal);
  const { code, signal } = await exit;
  return { code, signal, stderr };
}

interface Report {
  status: string;
  results: Record<string, unknown>;
  errors: Record<string, { code: string }>;
}

describe.each([
  ["SIGINT", 130],
  ["SIGTERM", 143],
  ["SIGHUP", 129],
] as const)("%s", (signal, exitCode) => {
  test.each(["listens", "stubborn"])(`aborts the run, writes the results so far, exits ${exitCode} (the tool: %s)`, async (tool) => {
    const out = join(tmp, `${signal}-${tool}.json`);
    const outcome = await interrupt(tool, [signal], out);
    expect(outcome.signal).toBeNull();
    expect(outcome.code).toBe(exitCode);
    const report = JSON.parse(readFileSync(out, "utf8")) as Report;
    expect(report.status).toBe("aborted");
    expect(report.results).toEqual({ 1: "done" });
    expect(report.errors["2"]?.code).toBe("aborted");
    expect(outcome.stderr).toMatch(/plan-refs: aborted: 1 result, 1 failed/);
    expect(outcome.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("a second signal", () => {
  // Two signals sent at once may be handled in either order: the code is that of the one handled first.
  test.each([
    ["SIGTERM", "SIGTERM", [143]],
    ["SIGINT", "SIGTERM", [130, 143]],
    ["SIGHUP", "SIGINT", [129, 130]],
  ] as const)(
    "%s then %s while a tool ignores its abort: the process ends, with a signal's code, and leaves no temporary file",
    async (first, second, codes) => {
      const out = join(tmp, `twice-${first}-${second}.json`);
      const outcome = await interrupt("stubborn", [first, second], out);
      expect(outcome.signal).toBeNull();
      expect(codes).toContain(outcome.code);
      // Whether the first signal's results were written before the second one arrived, they are whole.
      if (existsSync(out)) expect((JSON.parse(readFileSync(out, "utf8")) as Report).results).toEqual({ 1: "done" });
      expect(readdirSync(tmp).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    },
  );
});
