/**
 * A test file's scratch folder: a fresh `plan-refs-<name>-XXXXXX` folder under the system's temp
 * directory, removed after the file's (or the describe block's) tests, whether they passed or failed.
 * Before this, every run of the command line tests left a folder behind in /tmp.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/**
 * Make the folder now and register its removal with `afterAll`: call it at the top level of a test
 * file or in a `describe` body, not inside a hook or a test.
 *
 * @example
 * const tmp = tempFolder("lint"); // /tmp/plan-refs-lint-Ab12Cd, gone when the file's tests end
 */
export function tempFolder(name: string): string {
  const folder = mkdtempSync(join(tmpdir(), `plan-refs-${name}-`));
  afterAll(() => removeFolder(folder));
  return folder;
}

/**
 * Remove a folder and everything in it, also when a test locked a folder inside it (mode 0o500 or
 * 0o555: only root can delete entries there without making it writable again first).
 */
export function removeFolder(folder: string): void {
  try {
    rmSync(folder, { recursive: true, force: true });
  } catch {
    unlock(folder);
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Give the owner full access to a folder and every folder below it (symbolic links not followed). */
function unlock(folder: string): void {
  chmodSync(folder, 0o700);
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.isDirectory()) unlock(join(folder, entry.name));
  }
}
