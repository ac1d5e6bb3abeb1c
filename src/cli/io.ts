/**
 * The command line's view of the outside world, passed in so commands can be tested in-process.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { catalogPathBeside } from "../editor/lsp/catalog.js";
import { locatePositions } from "../lint/text-positions.js";
import { parseJsonText } from "../plan/json-text.js";
import { readTools, type ToolCatalog } from "../plan/plan.js";
import { LineIndex } from "../shared/positions.js";
import { CliError, readStdin, readTextInput, userPath, type CliStdin } from "./input.js";
import { wrongFlagHint } from "./file-kinds.js";
import { FlagError } from "./flags.js";
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
    throw new CliError(
      `${name}:${line}:${column}: invalid tool catalog: ${first?.message ?? "expected an object of tools"}${more}`,
      "invalid-tools",
    );
  }
  return catalog;
}

/** The flags that choose a command's catalog: `--catalog FILE`, or `--no-catalog` for none. */
export const CATALOG_FLAGS = { catalog: { type: "string" }, "no-catalog": { type: "boolean" } } as const;

/** The help lines of `--no-catalog` (after the command's `--catalog` line). */
export const NO_CATALOG_HELP = `  --no-catalog          do not read the tools.json beside the plan (without --catalog it is read,
                        as the language server does, unless the plan has its own "tools")`;

/** The catalog a command reads, and the path it was read from (`undefined`: none, or stdin). */
export interface CommandCatalog {
  readonly catalog: ToolCatalog | undefined;
  readonly path: string | undefined;
}

/**
 * The catalog of a command that reads a plan: `--catalog`'s; else, as the language server does, the
 * `tools.json` beside the plan file when there is one and the plan has no `tools` of its own (said on
 * stderr, with `--no-catalog` to leave it out); else none. A catalog beside the plan that cannot be
 * read or is of the wrong shape is a file error naming it.
 *
 * @example
 * commandCatalog({}, "trip/plan.json", planText, io) // { catalog: …, path: "trip/tools.json" } when trip/tools.json exists
 */
export function commandCatalog(
  given: {
    readonly catalog?: string | undefined;
    readonly "no-catalog"?: boolean | undefined;
    readonly mcp?: readonly string[] | undefined;
    readonly "mcp-url"?: readonly string[] | undefined;
  },
  planPath: string,
  planText: string,
  io: Pick<CommandIo, "cwd" | "stdin" | "stderr">,
): CommandCatalog {
  if (given.catalog !== undefined && given["no-catalog"] === true) throw new FlagError("--catalog and --no-catalog: give one of them");
  if (given.catalog !== undefined)
    return { catalog: readCatalog(given.catalog, io), path: given.catalog === "-" ? undefined : given.catalog };
  // MCP servers named on the command line are its catalog: a file beside the plan is not added to them.
  const fromServers = (given.mcp?.length ?? 0) + (given["mcp-url"]?.length ?? 0) > 0;
  const path = given["no-catalog"] === true || fromServers ? undefined : catalogBeside(planPath, planText, io);
  if (path === undefined) return { catalog: undefined, path: undefined };
  let catalog: ToolCatalog;
  try {
    catalog = readCatalog(path, io);
  } catch (error) {
    if (error instanceof CliError)
      throw new CliError(
        `${error.message} (the catalog beside the plan; --no-catalog leaves it out)`,
        error.code,
        error.exitCode,
        error.excerpt,
      );
    throw error;
  }
  io.stderr(`plan-refs: catalog ${printable(path)} (beside the plan; --catalog FILE for another, --no-catalog for none)\n`);
  return { catalog, path };
}

/**
 * The path of the catalog file beside the plan file `planPath` (as given, so relative to `io.cwd`), or
 * `undefined` when there is none, the plan is stdin, or the plan has `tools` of its own.
 *
 * @example
 * catalogBeside("trip/plan.json", '{"steps":[]}', { cwd: "/work" }) // "trip/tools.json" when /work/trip/tools.json is a file
 */
export function catalogBeside(planPath: string, planText: string, io: Pick<CommandIo, "cwd">): string | undefined {
  if (planPath === "-") return undefined;
  const path = catalogPathBeside(planPath, planText);
  return path !== undefined && isFile(userPath(io, path)) ? path : undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
