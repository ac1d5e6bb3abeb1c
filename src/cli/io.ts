/**
 * The command line's view of the outside world, passed in so commands can be tested in-process.
 */
import { parseJsonText } from "../plan/json-text.js";
import { CliError, readTextInput } from "./input.js";

/** Where a command writes, and whether its streams are terminals. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /** Aborted on Ctrl-C (SIGINT). */
  readonly signal?: AbortSignal | undefined;
}

/** Read and parse a JSON input file; a syntax error names the file, line and column. */
export function readJsonInput(path: string): { value: unknown; text: string } {
  const text = readTextInput(path);
  const name = path === "-" ? "<stdin>" : path;
  const parsed = parseJsonText(text);
  if (!parsed.ok) {
    throw new CliError(`${name}:${parsed.error.line}:${parsed.error.column}: invalid JSON: ${parsed.error.message}`, "json-syntax");
  }
  return { value: parsed.value, text };
}
