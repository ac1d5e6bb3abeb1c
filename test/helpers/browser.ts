/**
 * Which Chromium the browser test drives: the system's when there is one that runs (Debian's
 * /usr/bin/chromium first), else the one that `@sparticuz/chromium` ships inside its npm package, so
 * that `npm ci` alone brings a browser (it decompresses to /tmp/chromium on first use). A file in the
 * system browser's place that is not executable or does not start (a half-removed package) counts as
 * no system browser.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";

/** Where a system Chromium is looked for, in order of preference. */
export const SYSTEM_CHROMIUM_PATHS: readonly string[] = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

/** Flags that keep the browser off the network on its own account (the test asserts no foreign request). */
const QUIET_FLAGS = ["--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"];

/**
 * The first of `candidates` that is `usable`, or undefined when there is none.
 *
 * @example
 * chooseSystemChromium(["/usr/bin/chromium", "/usr/bin/chromium-browser"], (path) => path.endsWith("-browser")) // "/usr/bin/chromium-browser"
 */
export function chooseSystemChromium(candidates: readonly string[], usable: (path: string) => boolean): string | undefined {
  return candidates.find((path) => usable(path));
}

/**
 * Whether the browser at `path` runs: a regular file this user may execute that answers `--version`
 * (which starts no window and opens no network connection).
 *
 * @example
 * browserRuns("/usr/bin/chromium") // false when the file is missing, not executable, or exits non-zero
 */
export function browserRuns(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
  } catch {
    return false;
  }
  return spawnSync(path, ["--version"], { stdio: "ignore", timeout: 60_000 }).status === 0;
}

/** What to hand playwright-core's `chromium.launch`, and where the browser came from. */
export interface ChromiumLaunch {
  readonly executablePath: string;
  readonly args: string[];
  readonly source: "system" | "@sparticuz/chromium";
}

/**
 * The system's Chromium if one of `candidates` runs, else @sparticuz/chromium's (with the flags it
 * needs to run headless).
 */
export async function chromiumLaunch(candidates: readonly string[] = SYSTEM_CHROMIUM_PATHS): Promise<ChromiumLaunch> {
  const system = chooseSystemChromium(candidates, browserRuns);
  if (system !== undefined) {
    return { executablePath: system, args: ["--headless", "--no-sandbox", "--disable-gpu", ...QUIET_FLAGS], source: "system" };
  }
  const { default: bundled } = await import("@sparticuz/chromium");
  return { executablePath: await bundled.executablePath(), args: [...bundled.args, ...QUIET_FLAGS], source: "@sparticuz/chromium" };
}
