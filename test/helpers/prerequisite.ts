/**
 * A program a test file needs from the machine (util-linux's `script` for a pseudo-terminal, `unshare`
 * for a network namespace). Missing, the file fails saying what to install instead of skipping: a
 * skipped test looks like a passing one in every summary.
 */
import { spawnSync } from "node:child_process";

/**
 * Throw, naming `why`, unless `command args…` runs and exits 0.
 *
 * @example
 * beforeAll(() => requireProgram("script", ["--version"], "script(1) from util-linux gives the child a terminal"));
 */
export function requireProgram(command: string, args: readonly string[], why: string): void {
  const probe = spawnSync(command, args, { encoding: "utf8" });
  if (probe.status !== 0) {
    throw new Error(
      `this file needs \`${[command, ...args].join(" ")}\` to succeed (${why}); it ${probe.error === undefined ? `exited ${String(probe.status)}` : `could not start: ${probe.error.message}`}`,
    );
  }
}
