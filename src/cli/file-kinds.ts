/**
 * Which kind of file a path names by its extension (data or code), so that a file given to the wrong
 * flag gets a hint naming the right one. Read by the tools-module loader and the catalog reader.
 */
import { extname } from "node:path";

/** Extensions of files that are data, not code: a JSON file given to `--tools` is a catalog. */
const DATA_EXTENSIONS = new Set([".json", ".jsonc"]);
/** Extensions of modules: given to `--catalog`, such a file is the implementation. */
export const MODULE_EXTENSIONS = new Set([".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"]);
export const TYPESCRIPT_EXTENSIONS = new Set([".ts", ".mts", ".cts"]);

/** The one-line hint for a file given to the wrong flag, or undefined when the extension fits. */
export function wrongFlagHint(flag: "--tools" | "--catalog", path: string): string | undefined {
  const extension = extname(path).toLowerCase();
  if (flag === "--tools" && DATA_EXTENSIONS.has(extension)) {
    return `--tools ${path}: --tools takes the JavaScript module that implements the tools; give a JSON tool catalog with --catalog ${path}`;
  }
  if (flag === "--catalog" && MODULE_EXTENSIONS.has(extension)) {
    return `--catalog ${path}: --catalog takes a JSON tool catalog; give a module that implements the tools with --tools ${path}`;
  }
  return undefined;
}
