/**
 * The command line's view of the outside world, passed in so commands can be tested in-process.
 */
import { resolve } from "node:path";
import { locatePositions } from "../lint/text-positions.js";
import { parseJsonText } from "../plan/json-text.js";
import { readTools, type ToolCatalog } from "../plan/plan.js";
import { LineIndex } from "../shared/positions.js";
import { CliError, readStdin, readTextInput, type CliStdin } from "./input.js";
import { wrongFlagHint } from "./file-kinds.js";
import { jsonSyntaxError } from "./source-excerpt.js";
import { printable } from "../shared/text.js";

/**
 * The environment variables the command line reads (`NO_COLOR`, `OTEL_*`) and passes to the servers
 * `--mcp` starts. (`DATABASE_URL`, when `--database` is not given, is read by plan-refs/postgres itself.)
 */
export type CliEnv = Readonly<Record<string, string | undefined>>;

/**
 * Where a command writes, whether its streams are terminals, and what it reads of its process: stdin,
 * the environment and the working folder. Those three default to the process's; a test gives its own
 * and runs the command line in-process (`test/helpers/cli.ts`).
 */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** Aborted on SIGINT (Ctrl-C), SIGTERM or SIGHUP; its reason is then an `Interrupted`. */
  readonly signal?: AbortSignal | undefined;
  /** What `-` reads (default: file descriptor 0). */
  readonly stdin?: CliStdin | undefined;
  /** The environment (default: `process.env`). */
  readonly env?: CliEnv | undefined;
  /** The folder relative paths are resolved against (default: `process.cwd()`). */
  readonly cwd?: string | undefined;
}

/** A `CliIo` with stdin, the environment and the working folder filled in: what every command gets. */
export interface CommandIo extends CliIo {
  readonly stdin: CliStdin;
  readonly env: CliEnv;
  readonly cwd: string;
}

/**
 * The one place the command line falls back on its process: stdin, `process.env`, `process.cwd()`
 * for what `io` does not give. Below it, the commands read only `io`.
 *
 * @example
 * commandIo({ stdout, stderr, stdoutIsTTY: false, stderrIsTTY: false, cwd: "/tmp" }).cwd // "/tmp"
 */
export function commandIo(io: CliIo): CommandIo {
  return { ...io, stdin: io.stdin ?? readStdin, env: io.env ?? process.env, cwd: resolve(io.cwd ?? process.cwd()) };
}

/** Whether colour is wanted on a stream: a terminal, and no `NO_COLOR` in the environment (https://no-color.org). */
export function wantsColor(io: Pick<CommandIo, "env">, isTTY: boolean): boolean {
  return isTTY && io.env["NO_COLOR"] === undefined;
}

/** The exit code of each signal that interrupts a run: 128 + the signal's number, as shells report it. */
export const SIGNAL_EXIT_CODES = Object.freeze({ SIGINT: 130, SIGTERM: 143, SIGHUP: 129 });

/** The abort reason when a signal interrupts the command line. */
export class Interrupted extends Error {
  override name = "Interrupted";
  readonly exitCode: number;
  constructor(readonly signalName: keyof typeof SIGNAL_EXIT_CODES) {
    super(`interrupted (${signalName})`);
    this.exitCode = SIGNAL_EXIT_CODES[signalName];
  }
}

/** The exit code of an aborted run: the signal's, or 130 (as for Ctrl-C) when the reason is another. */
export function interruptedExitCode(signal: AbortSignal | undefined): number {
  const reason: unknown = signal?.reason;
  return reason instanceof Interrupted ? reason.exitCode : 130;
}

/** Read and parse a JSON input file; a syntax error names the file, line and column. */
export function readJsonInput(path: string, io: Pick<CommandIo, "cwd" | "stdin">): { value: unknown; text: string } {
  const text = readTextInput(path, io);
  const name = path === "-" ? "<stdin>" : printable(path);
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    throw jsonSyntaxError(name, text, parsed.error, `invalid JSON: ${parsed.error.message}`);
  }
  return { value: parsed.value, text };
}

/** Read a tool catalog file; a catalog of the wrong shape is a file error (exit 2) naming the place. */
export function readCatalog(path: string, io: Pick<CommandIo, "cwd" | "stdin">): ToolCatalog {
  const hint = wrongFlagHint("--catalog", path);
  if (hint !== undefined) throw new CliError(hint, "wrong-flag");
  const name = path === "-" ? "<stdin>" : printable(path);
  const { value, text } = readJsonInput(path, io);
  const problems: { pointer: string; message: string }[] = [];
  const catalog = readTools(value, (pointer, message) => problems.push({ pointer, message }), "");
  const first = problems[0];
  if (first !== undefined || catalog === undefined) {
    const [at] = locatePositions(text, [{ pointer: first?.pointer ?? "" }]);
    const { line, column } = new LineIndex(text).position(at?.start ?? 0);
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
    throw new CliError(`${name}:${line}:${column}: invalid tool catalog: ${first?.message ?? "expected an object of tools"}${more}`, "invalid-tools");
  }
  return catalog;
}
