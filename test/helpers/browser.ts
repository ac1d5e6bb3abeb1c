/**
 * Which Chromium the browser test drives: the system's when there is one (Debian's /usr/bin/chromium
 * first), else the one that `@sparticuz/chromium` ships inside its npm package, so that `npm ci` alone
 * brings a browser (it decompresses to /tmp/chromium on first use).
 */
import { existsSync } from "node:fs";

/** Where a system Chromium is looked for, in order of preference. */
export const SYSTEM_CHROMIUM_PATHS: readonly string[] = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

/** Flags that keep the browser off the network on its own account (the test asserts no foreign request). */
const QUIET_FLAGS = ["--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"];

/**
 * The first of `candidates` that `exists`, or undefined when there is none.
 *
 * @example
 * chooseSystemChromium(["/usr/bin/chromium", "/usr/bin/chromium-browser"], (path) => path.endsWith("-browser")) // "/usr/bin/chromium-browser"
 */
export function chooseSystemChromium(candidates: readonly string[], exists: (path: string) => boolean): string | undefined {
  return candidates.find((path) => exists(path));
}

/** What to hand playwright-core's `chromium.launch`, and where the browser came from. */
export interface ChromiumLaunch {
  readonly executablePath: string;
  readonly args: string[];
  readonly source: "system" | "@sparticuz/chromium";
}

/** The system's Chromium if there is one, else @sparticuz/chromium's (with the flags it needs to run headless). */
export async function chromiumLaunch(): Promise<ChromiumLaunch> {
  const system = chooseSystemChromium(SYSTEM_CHROMIUM_PATHS, existsSync);
  if (system !== undefined) {
    return { executablePath: system, args: ["--headless", "--no-sandbox", "--disable-gpu", ...QUIET_FLAGS], source: "system" };
  }
  const { default: bundled } = await import("@sparticuz/chromium");
  return { executablePath: await bundled.executablePath(), args: [...bundled.args, ...QUIET_FLAGS], source: "@sparticuz/chromium" };
}
