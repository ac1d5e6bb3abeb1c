/**
 * The live progress view under a real pseudo-terminal (`script` from util-linux gives the child a
 * terminal on stdin, stdout and stderr): with 10,000 steps, what reaches the terminal grows with the
 * number of steps, not with its square. The bound is on bytes written, never on time.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { requireProgram } from "../helpers/prerequisite.js";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
// PLAN_REFS_CLI: another build of the executable (to check that a test fails on the build before a fix).
const main = process.env["PLAN_REFS_CLI"] ?? join(root, "dist/cli/main.js");
const tmp = tempFolder("pty");

const STEPS = 10_000;
/** The linear bound: at most this many bytes of progress per step. */
const BYTES_PER_STEP = 2_048;

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

describe("plan-refs run on a terminal", () => {
  beforeAll(() => requireProgram("script", ["--version"], "script(1) from util-linux gives the child a terminal"));

  test(`${STEPS} steps write less than ${BYTES_PER_STEP} bytes of progress per step, and the last view counts them all`, () => {
    const tools = join(tmp, "tools.mjs");
    // Half the steps wait for a result, a few fail: every kind of event, many of each.
    writeFileSync(tools, `export const echo = (args) => args;\nexport const boom = () => { throw new Error("no"); };\n`);
    const steps = Array.from({ length: STEPS }, (_, i) => ({
      id: i + 1,
      tool: i % 1000 === 998 ? "boom" : "echo",
      args: i % 2 === 1 ? { after: `$${i}` } : { n: i },
    }));
    const plan = join(tmp, "plan.json");
    writeFileSync(plan, JSON.stringify({ steps }));
    const out = join(tmp, "out.json");
    const command = [process.execPath, main, "run", plan, "--tools", tools, "--results", out].map(shellQuote).join(" ");
    const result = spawnSync("script", ["-qfec", command, "/dev/null"], {
      cwd: root,
      maxBuffer: 1 << 30,
      timeout: 120_000,
      env: { ...process.env, COLUMNS: "120", LINES: "40" },
    });
    const written = result.stdout.length;
    const text = result.stdout.toString("utf8").replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");
    expect(result.status).toBe(1); // ten steps fail
    expect(written).toBeLessThan(STEPS * BYTES_PER_STEP);
    expect(text).toMatch(/0 running, 0 waiting, \d+ done, 10 failed, 10 skipped/);
    const report = JSON.parse(readFileSync(out, "utf8")) as { results: Record<string, unknown> };
    expect(Object.keys(report.results)).toHaveLength(STEPS - 20);
  });
});
