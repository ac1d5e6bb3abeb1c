/**
 * test/runtimes, the fixture folder of the runtime matrix (scripts/test-matrix.mjs) and of the package
 * test's TypeScript 7 compile (test/package/consumer.test.ts, which runs before the matrix in `npm test`):
 * one install for both, `npm ci` from its exact lock file, skipped when its node_modules was installed
 * from this very lock (a stamp file holds the hash of package.json, the lock and .npmrc).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const fixture = fileURLToPath(new URL("../test/runtimes", import.meta.url));
export const modules = join(fixture, "node_modules");
const stampFile = join(modules, ".plan-refs-matrix-stamp");

function fingerprint() {
  const hash = createHash("sha256");
  for (const name of ["package.json", "package-lock.json", ".npmrc"]) hash.update(readFileSync(join(fixture, name)));
  return hash.digest("hex");
}

/**
 * `npm ci` in test/runtimes unless its node_modules was installed from this very lock file; throws an
 * Error naming the failure. `log` gets the one line saying that it installs.
 * @example installRuntimes((line) => process.stdout.write(line));
 */
export function installRuntimes(log = () => {}) {
  const wanted = fingerprint();
  if (existsSync(stampFile) && readFileSync(stampFile, "utf8") === wanted) return;
  log("test-matrix: installing test/runtimes (npm ci)\n");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: fixture,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0) throw new Error(`npm ci in test/runtimes failed (${result.error?.message ?? `exit ${result.status}`})`);
  writeFileSync(stampFile, wanted);
}
