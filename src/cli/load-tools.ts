/**
 * Loading `--tools MODULE`: the JavaScript module whose exported functions implement the tools. Every
 * way a module can fail to load ends as one line naming the module, never a stack trace: a syntax
 * error, a throw of any value at import, a default export whose getter throws, a `.ts` module on a
 * Node that cannot load TypeScript, and a top-level `await` that never settles (Node then exits with
 * code 13 and prints nothing; here the one line says which module never finished loading). A syntax
 * error and a throw at import also name their place (file:line:column) and show the source line with
 * a caret under it.
 */
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { extname, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ToolFunction, ToolFunctions } from "../run/run-plan.js";
import { describeThrown } from "../shared/errors.js";
import { ownData, readOwnData } from "../shared/own-data.js";
import { LineIndex } from "../shared/positions.js";
import { sourceExcerpt } from "./source-excerpt.js";
import { CliError, readTextInput, userPath } from "./input.js";
import { interruptedExitCode, type CommandIo } from "./io.js";
import { TYPESCRIPT_EXTENSIONS, wrongFlagHint } from "./file-kinds.js";
import { cutText, printable } from "../shared/text.js";

/**
 * Import the tools module; its exported functions (named, or on a default-exported object) are the
 * tools. A relative path is `io.cwd`'s; `io.signal` aborts the wait (Ctrl-C while a module is still loading).
 *
 * @example
 * const tools = await loadTools("./tools.mjs", io) // { geocode: [Function], … }
 */
export async function loadTools(
  path: string,
  io: Pick<CommandIo, "cwd" | "stdin" | "signal">,
): Promise<{ tools: ToolFunctions; names: string[] }> {
  const hint = wrongFlagHint("--tools", path);
  if (hint !== undefined) throw new CliError(hint, "wrong-flag");
  const shown = printable(path);
  const absolute = userPath(io, path);
  let isFile: boolean;
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
    if (code === 13 || code === 0)
      process.stderr.write(
        `plan-refs: ${shown}: the tools module never finished loading (a top-level await that never settles); nothing was run\n`,
      );
  };
  process.on("exit", onExit);
  let module: Record<string, unknown>;
  try {
    module = (await raceAbort(import(pathToFileURL(absolute).href), io.signal)) as Record<string, unknown>;
  } catch (error) {
    const why = loadFailure(error, absolute);
    const place = failurePlace(error, absolute);
    if (place === "imported") throw new CliError(`${shown}: ${why} (in a module it imports: ${shown} itself parses)`, "tools-module");
    if (place === undefined) throw new CliError(`${shown}: ${why}`, "tools-module");
    const at = `${place.file === absolute ? shown : printable(relative(io.cwd, place.file))}:${place.line}:${place.column}`;
    throw new CliError(place.file === absolute ? `${at}: ${why}` : `${shown}: ${why} (at ${at})`, "tools-module", 2, excerptAt(place, io));
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
        throw new CliError(`${shown}: ${where} could not be read: ${printable(cutText(describeThrown(error), 200))}`, "tools-module");
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
    throw new CliError(`${shown}: its default export could not be read: ${printable(cutText(describeThrown(error), 200))}`, "tools-module");
  }
  try {
    if (typeof fromDefault === "object" && fromDefault !== null) take(fromDefault, "its default export");
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${shown}: its default export could not be read: ${printable(cutText(describeThrown(error), 200))}`, "tools-module");
  }
  try {
    const named = Object.fromEntries(
      Object.keys(module)
        .filter((name) => name !== "default")
        .map((name) => [name, module[name]]),
    );
    take(named, "its exports");
  } catch (error) {
    if (error instanceof CliError) throw error;
    // An export still in its temporal dead zone (a cycle of imports) throws when read.
    throw new CliError(`${shown}: its exports could not be read: ${printable(cutText(describeThrown(error), 200))}`, "tools-module");
  }
  return { tools, names };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolvePromise, reject) => {
    const onAbort = (): void =>
      reject(new CliError("interrupted while the tools module was loading; nothing was run", "interrupted", interruptedExitCode(signal)));
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
  if (code === "ERR_UNKNOWN_FILE_EXTENSION" && TYPESCRIPT_EXTENSIONS.has(extname(absolute).toLowerCase())) {
    return `Node ${process.versions.node} cannot load TypeScript; use Node ≥ 22.6 with --experimental-strip-types (or Node ≥ 23.6), or compile the module to .mjs`;
  }
  if (!(error instanceof Error)) return `cannot load the tools module: it threw ${printable(cutText(describeValue(error), 300))}`;
  const message = printable(cutText(describeThrown(error).split("\n")[0]!, 300));
  // The loader's own syntax error has no frame in a file; a SyntaxError thrown by code (JSON.parse) has.
  const stack = readOwnData(error, "stack");
  if (error instanceof SyntaxError && (typeof stack !== "string" || fileFrames(stack).length === 0))
    return `cannot load the tools module: a syntax error: ${message}`;
  return `cannot load the tools module: it threw ${errorKind(error)}: ${message}`;
}

/** The built-in error class an error is an instance of, by name ("Error" for any other). */
function errorKind(error: Error): string {
  return [SyntaxError, TypeError, RangeError, ReferenceError, URIError, EvalError].find((kind) => error instanceof kind)?.name ?? "Error";
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(cutText(value, 100));
  if (value === null || value === undefined || typeof value === "number" || typeof value === "boolean") return String(value);
  return `a value of type ${typeof value}: ${cutText(describeThrown(value), 100)}`;
}

/** A place in a file: its absolute path, and the line and column (from 1). */
interface Place {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** Stack lines read for a place: the module's own frame is near the top. */
const MAX_FRAMES = 50;
/** Longest output of `node --check` read. */
const MAX_CHECK_OUTPUT = 64 * 1024;
/** How long `node --check` may take before the place is given up (the message is still printed). */
const CHECK_TIMEOUT_MS = 10_000;
/** Largest module read to show its line. */
const MAX_SOURCE_BYTES = 4 * 1024 * 1024;

/**
 * Where loading went wrong: for a throw at import, the top frame of the stack in the tools module (or,
 * when it threw in a module it imports, the top frame in any file); for a syntax error, which the
 * loader reports with no place at all, the place `node --check` finds in the module, or "imported"
 * when the module itself parses. Undefined when neither knows (a thrown non-Error).
 */
function failurePlace(error: unknown, absolute: string): Place | "imported" | undefined {
  if (!(error instanceof Error)) return undefined;
  // Own data only: a stack that is a getter is not run.
  const stack = readOwnData(error, "stack");
  const frames = typeof stack === "string" ? fileFrames(stack) : [];
  if (frames.length > 0) return frames.find((frame) => frame.file === absolute) ?? frames[0];
  return error instanceof SyntaxError ? syntaxErrorPlace(absolute) : undefined;
}

/** The frames of a V8 stack that are in files (`at f (file:///…:2:6)`, `at file:///…:2:6`), top first. */
function fileFrames(stack: string): Place[] {
  const frames: Place[] = [];
  for (const line of stack.split("\n", MAX_FRAMES)) {
    const match = /^\s*at (?:.*\()?(file:\/\/[^\s()]+):(\d+):(\d+)\)?\s*$/.exec(line);
    if (match === null) continue;
    try {
      frames.push({ file: fileURLToPath(match[1]!), line: Number(match[2]), column: Number(match[3]) });
    } catch {
      // Not a path of this system: no place.
    }
  }
  return frames;
}

/**
 * The place of a syntax error in a module, as `node --check` reports it: `/path/to/tools.mjs:2`, the
 * source line, then a caret line whose caret stands under the column. The module is only parsed, not
 * run; type stripping is asked for as this process was. "imported" when it parses (exit code 0).
 */
function syntaxErrorPlace(absolute: string): Place | "imported" | undefined {
  const typeFlags = process.execArgv.filter((flag) => /^--(no-)?experimental-(strip|transform)-types$/.test(flag));
  const checked = spawnSync(process.execPath, [...typeFlags, "--check", absolute], {
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"],
    timeout: CHECK_TIMEOUT_MS,
    maxBuffer: MAX_CHECK_OUTPUT,
  });
  if (checked.status === 0) return "imported";
  if (checked.status !== 1 || typeof checked.stderr !== "string") return undefined;
  const [head, , carets] = checked.stderr.split("\n", 3);
  const prefix = `${absolute}:`;
  if (head === undefined || carets === undefined || !head.startsWith(prefix) || !/^[0-9]+$/.test(head.slice(prefix.length)))
    return undefined;
  const caret = carets.indexOf("^");
  return caret < 0 ? undefined : { file: absolute, line: Number(head.slice(prefix.length)), column: caret + 1 };
}

/** The source line of a place with a caret under its column, or "" when the file cannot be read. */
function excerptAt(place: Place, io: Pick<CommandIo, "cwd" | "stdin">): string {
  try {
    const line = new LineIndex(readTextInput(place.file, io, MAX_SOURCE_BYTES)).lineText(place.line);
    return place.column - 1 <= line.length ? sourceExcerpt(line, place.line, place.column - 1, place.column) : "";
  } catch {
    return "";
  }
}
