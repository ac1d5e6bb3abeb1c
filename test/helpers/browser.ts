/**
 * Which Chromium the browser test drives: the system's when there is one that runs (Debian's
 * /usr/bin/chromium first), else the one that `@sparticuz/chromium` ships inside its npm package, so
 * that `npm ci` alone brings a browser. A file in the system browser's place that is not executable or
 * does not start (a half-removed package) counts as no system browser.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

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
  return { executablePath: unpackedChromium(), args: [...bundled.args, ...QUIET_FLAGS], source: "@sparticuz/chromium" };
}

/**
 * The browser @sparticuz/chromium ships, unpacked once per user and package version into its own
 * folder under the temp dir, and kept for later runs. The package itself unpacks straight into the
 * temp dir (/tmp/chromium): a second suite starting at the same time would launch a half-written
 * binary, and another user's copy cannot be run. Here a child process unpacks into a fresh folder
 * (its TMPDIR), which is then renamed into place whole; if another process got there first, its copy
 * is used and ours removed.
 */
function isPackageFolder(folder: string, name: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { name?: unknown }).name === name;
  } catch {
    return false;
  }
}

function unpackedChromium(): string {
  const entry = createRequire(import.meta.url).resolve("@sparticuz/chromium");
  // The entry sits at a depth that differs between versions (build/index.js, build/esm/index.js): the
  // package's folder is the nearest one above it whose package.json names the package.
  let packageFolder = dirname(entry);
  while (!isPackageFolder(packageFolder, "@sparticuz/chromium") && dirname(packageFolder) !== packageFolder)
    packageFolder = dirname(packageFolder);
  const { version } = JSON.parse(readFileSync(join(packageFolder, "package.json"), "utf8")) as { version: string };
  const folder = join(tmpdir(), `plan-refs-chromium-${version}-${process.getuid?.() ?? "user"}`);
  const binary = join(folder, "chromium");
  if (existsSync(binary)) return binary;
  const staging = mkdtempSync(`${folder}.`);
  try {
    const script = `const { default: chromium } = await import(${JSON.stringify(pathToFileURL(entry).href)}); await chromium.executablePath();`;
    const child = spawnSync(process.execPath, ["--input-type=module", "--eval", script], {
      env: { ...process.env, TMPDIR: staging },
      encoding: "utf8",
      timeout: 600_000,
    });
    if (child.status !== 0 || !existsSync(join(staging, "chromium")))
      throw new Error(`@sparticuz/chromium could not unpack its browser into ${staging}: ${child.stderr || child.error?.message}`);
    try {
      renameSync(staging, folder);
    } catch (error) {
      if (!existsSync(binary)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return binary;
}
