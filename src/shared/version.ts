/** The package's version, for `--version`, MCP client info and tracer names. */
import { readFileSync } from "node:fs";

/**
 * The package's version, read from its package.json (the one place it is written): two folders up
 * from this file, in src/shared as in dist/shared.
 *
 * @example
 * packageVersion() // "0.1.0"
 */
export function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: unknown };
    return typeof manifest.version === "string" ? manifest.version : "unknown";
  } catch {
    return "unknown";
  }
}
