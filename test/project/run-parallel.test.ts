/**
 * scripts/run-parallel.mjs, which `npm test` starts with: it spawns npm for each script (the behaviour lives
 * in those processes and their exit codes), in a temporary package whose scripts say what they did.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";

const SCRIPT = join(import.meta.dirname, "../../scripts/run-parallel.mjs");
const dir = mkdtempSync(join(tmpdir(), "plan-refs-run-parallel-"));
writeFileSync(
  join(dir, "package.json"),
  JSON.stringify({
    name: "scratch",
    private: true,
    scripts: {
      one: "node -e \"console.log('one')\"",
      two: "node -e \"console.log('two')\"",
      bad: "node -e \"console.error('bad'); process.exit(3)\"",
    },
  }),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(...scripts: string[]): { status: number | null; stdout: string; stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [SCRIPT, ...scripts], { cwd: dir, encoding: "utf8" });
  return { status, stdout, stderr };
}

test.each([
  { scripts: ["one", "two"], status: 0, stdout: "one\ntwo\n", stderr: "" },
  { scripts: ["two", "one"], status: 0, stdout: "two\none\n", stderr: "" },
  { scripts: ["one", "bad", "two"], status: 1, stdout: "one\nbad\ntwo\n", stderr: "npm run bad failed (exit code 3)\n" },
  {
    scripts: [],
    status: 2,
    stdout: "",
    stderr: "usage: node scripts/run-parallel.mjs SCRIPT [SCRIPT ...] (npm scripts of this package)\n",
  },
])("$scripts: exit $status, each script's output whole and in the order given", ({ scripts, status, stdout, stderr }) => {
  expect(run(...scripts)).toEqual({ status, stdout, stderr });
});
