/**
 * Loading `--tools MODULE`: the JavaScript module whose exported functions implement the tools. Every
 * way a module can fail to load ends as one line naming the module, never a stack trace: a syntax
 * error, a throw of any value at import, a default export whose getter throws, a `.ts` module on a
 * Node that cannot load TypeScript, and a top-level `await` that never settles (Node then exits with
 * code 13 and prints nothing; here the one line says which module never finished loading).
 */
import { statSync } from "node:fs";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ToolFunction, ToolFunctions } from "../run/run-plan.js";
import { describeThrown } from "../shared/errors.js";
import { ownData } from "../shared/own-data.js";
import { CliError } from "./input.js";
import { interruptedExitCode } from "./io.js";
import { printable } from "../shared/text.js";

/** Extensions of files that are data, not code: a JSON file given to `--tools` is a catalog. */
const DATA_EXTENSIONS = new Set([".json", ".jsonc"]);
/** Extensions of modules: given to `--catalog`, such a file is the implementation. */
export const MODULE_EXTENSIONS = new Set([".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"]);
const TYPESCRIPT = new Set([".ts", ".mts", ".cts"]);

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

/**
 * Import the tools module; its exported functions (named, or on a default-exported object) are the
 * tools. `signal` aborts the wait (Ctrl-C while a module is still loading).
 *
 * @example
 * const tools = await loadTools("./tools.mjs") // { geocode: [Function], … }
 */
export async function loadTools(path: string, signal?: AbortSignal): Promise<{ tools: ToolFunctions; names: string[] }> {
  const hint = wrongFlagHint("--tools", path);
  if (hint !== undefined) throw new CliError(hint, "wrong-flag");
  const shown = printable(path);
  const absolute = resolve(path);
  let isFile = false;
  try {
    isFile = statSync(absolute).isFile();
  } catch {
    throw new CliError(`${shown}: no such tools module`, "tools-module");
  }
  if (!isFile) throw new CliError(`${shown}: the tools module must be a regular file`, "tools-module");

  // A top-level await that never settles: nothing is left to run, so Node ends the process (exit code
  // 13) with no message, while the import is still pending. (The 'exit' event then reports code 0 on
  // Node 20, 13 on later versions; a module that calls process.exit itself gives its own code.)
  const onExit = (code: number): void => {
    if (code === 13 || code === 0) process.stderr.write(`plan-refs: ${shown}: the tools module never finished loading (a top-level await that never settles); nothing was run\n`);
  };
  process.on("exit", onExit);
  let module: Record<string, unknown>;
  try {
    module = (await raceAbort(import(pathToFileURL(absolute).href), signal)) as Record<string, unknown>;
  } catch (error) {
    throw new CliError(`${shown}: ${loadFailure(error, absolute)}`, "tools-module");
  } finally {
    process.off("exit", onExit);
  }
  const tools = Object.create(null) as Record<string, ToolFunction>;
  const names: string[] = [];
  const take = (source: object, where: string): void => {
    for (const name of Object.keys(source)) {
      let value: unknown;
      try {
        // A namespace's bindings are data; a default-exported object may have getters: they are not run.
        value = ownData(source, name);
      } catch (error) {
        throw new CliError(`${shown}: ${where} could not be read: ${printable(describeThrown(error).slice(0, 200))}`, "tools-module");
      }
      if (typeof value !== "function") continue;
      if (!(name in tools)) names.push(name);
      tools[name] = value as ToolFunction;
    }
  };
  let fromDefault: unknown;
  try {
    fromDefault = module["default"];
  } catch (error) {
    throw new CliError(`${shown}: its default export could not be read: ${printable(describeThrown(error).slice(0, 200))}`, "tools-module");
  }
  try {
    if (typeof fromDefault === "object" && fromDefault !== null) take(fromDefault, "its default export");
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${shown}: its default export could not be read: ${printable(describeThrown(error).slice(0, 200))}`, "tools-module");
  }
  try {
    const named = Object.fromEntries(Object.keys(module).filter((name) => name !== "default").map((name) => [name, module[name]]));
    take(named, "its exports");
  } catch (error) {
    if (error instanceof CliError) throw error;
    // An export still in its temporal dead zone (a cycle of imports) throws when read.
    throw new CliError(`${shown}: its exports could not be read: ${printable(describeThrown(error).slice(0, 200))}`, "tools-module");
  }
  return { tools, names };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolvePromise, reject) => {
    const onAbort = (): void => reject(new CliError("interrupted while the tools module was loading; nothing was run", "interrupted", interruptedExitCode(signal)));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolvePromise(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Why the module did not load, in one line. */
function loadFailure(error: unknown, absolute: string): string {
  if (error instanceof CliError) throw error;
  const code = ownData(error, "code");
  if (code === "ERR_UNKNOWN_FILE_EXTENSION" && TYPESCRIPT.has(extname(absolute).toLowerCase())) {
    return `Node ${process.versions.node} cannot load TypeScript; use Node ≥ 22.6 with --experimental-strip-types (or Node ≥ 23.6), or compile the module to .mjs`;
  }
  const thrown = error instanceof Error ? describeThrown(error).split("\n")[0]! : `it threw ${describeValue(error)}`;
  return `cannot load the tools module: ${printable(thrown.slice(0, 300))}`;
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.slice(0, 100));
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean") return String(value);
  return `a value of type ${typeof value}: ${describeThrown(value).slice(0, 100)}`;
}
