/**
 * The command line's view of the outside world, passed in so commands can be tested in-process.
 */
import { locatePositions } from "../lint/text-positions.js";
import { parseJsonText } from "../plan/json-text.js";
import { readTools, type ToolCatalog } from "../plan/plan.js";
import { LineIndex } from "../shared/positions.js";
import { CliError, readTextInput } from "./input.js";
import { wrongFlagHint } from "./file-kinds.js";
import { printable } from "../shared/text.js";

/** Where a command writes, and whether its streams are terminals. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** Aborted on SIGINT (Ctrl-C), SIGTERM or SIGHUP; its reason is then an `Interrupted`. */
  readonly signal?: AbortSignal | undefined;
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
export function readJsonInput(path: string): { value: unknown; text: string } {
  const text = readTextInput(path);
  const name = path === "-" ? "<stdin>" : printable(path);
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    throw new CliError(`${name}:${parsed.error.line}:${parsed.error.column}: invalid JSON: ${parsed.error.message}`, "json-syntax");
  }
  return { value: parsed.value, text };
}

/** Read a tool catalog file; a catalog of the wrong shape is a file error (exit 2) naming the place. */
export function readCatalog(path: string): ToolCatalog {
  const hint = wrongFlagHint("--catalog", path);
  if (hint !== undefined) throw new CliError(hint, "wrong-flag");
  const name = path === "-" ? "<stdin>" : printable(path);
  const { value, text } = readJsonInput(path);
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
