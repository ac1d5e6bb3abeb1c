/**
 * The command line's dispatcher: `plan-refs <command> …`. Users' mistakes end as one line on stderr
 * and exit code 2; only a bug in plan-refs itself shows a stack trace. `plan-refs <command> --help`
 * prints that command's options, defaults, exit codes and an example on stdout (exit 0).
 */
import { FlagError } from "./flags.js";
import { CliError } from "./input.js";
import { commandIo, type CliIo, type CommandIo } from "./io.js";
import { lintCommand, lintHelp, lintUsage } from "./lint-command.js";
import { lspCommand, lspHelp, lspUsage } from "./lsp-command.js";
import { resolveCommand, resolveHelp, resolveUsage } from "./resolve-command.js";
import { runCommand, runHelp, runUsage } from "./run-command.js";
import { schemaCommand, schemaHelp, schemaUsage } from "./schema-command.js";
import { dbCommand, dbHelpFor, dbUsage } from "./db-command.js";
import { statusCommand, statusHelp, statusUsage } from "./status-command.js";
import { redriveCommand, redriveHelp, redriveUsage } from "./redrive-command.js";
import { approveCommand, approveHelp, approveUsage } from "./approve-command.js";
import { workerCommand, workerHelp, workerUsage } from "./worker-command.js";
import { graphCommand, graphHelp, graphUsage } from "./graph-command.js";
import { mcpCommand, mcpHelp, mcpUsage } from "./mcp-serve-command.js";
import { cutText, printable } from "../shared/text.js";
import { redactConnectionString } from "../shared/redact.js";
import { didYouMean } from "../lint/did-you-mean.js";
import { packageVersion } from "../shared/version.js";

type Command = (argv: string[], io: CommandIo) => number | Promise<number>;

/** A command: how it runs, its usage line, and its help (a function of its arguments for a command with subcommands). */
const commands: Record<string, { run: Command; usage: string; help: string | ((argv: readonly string[]) => string) }> = {
  resolve: { run: resolveCommand, usage: resolveUsage, help: resolveHelp },
  lint: { run: lintCommand, usage: lintUsage, help: lintHelp },
  run: { run: runCommand, usage: runUsage, help: runHelp },
  lsp: { run: lspCommand, usage: lspUsage, help: lspHelp },
  schema: { run: schemaCommand, usage: schemaUsage, help: schemaHelp },
  db: { run: dbCommand, usage: dbUsage, help: dbHelpFor },
  worker: { run: workerCommand, usage: workerUsage, help: workerHelp },
  status: { run: statusCommand, usage: statusUsage, help: statusHelp },
  redrive: { run: redriveCommand, usage: redriveUsage, help: redriveHelp },
  approve: { run: approveCommand, usage: approveUsage, help: approveHelp },
  graph: { run: graphCommand, usage: graphUsage, help: graphHelp },
  mcp: { run: mcpCommand, usage: mcpUsage, help: mcpHelp },
};

/** The command names, in the order the help lists them. */
export const COMMAND_NAMES: readonly string[] = Object.keys(commands);

const help = `plan-refs: step references in AI-agent tool plans

${Object.values(commands)
  .map((command) => command.usage)
  .join("\n")}

plan-refs <command> --help   the command's options, defaults, exit codes and an example
plan-refs --version, -v      the version
`;

/** Whether the arguments ask for help: `--help` or `-h` before any `--`. */
function asksForHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}

/**
 * Run the command line with `argv` (without `node` and the script) and return the exit code: what the
 * process exits with (`src/cli/main.ts`). stdin, the environment and the working folder are `io`'s,
 * else the process's.
 *
 * @example
 * await runCli(["lint", "plan.json"], { stdout, stderr, stdoutIsTTY: false, stderrIsTTY: false, cwd: "/work" }) // 0, 1 or 2
 */
export async function runCli(argv: string[], given: CliIo): Promise<number> {
  const io = commandIo(given);
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    (name === undefined ? io.stderr : io.stdout)(help);
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-v") {
    io.stdout(`plan-refs ${packageVersion()}\n`);
    return 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (command === undefined) {
    const suggestion = didYouMean(name, Object.keys(commands));
    io.stderr(
      `plan-refs: unknown command "${printable(cutText(redactConnectionString(name), 40))}"${suggestion === undefined ? "" : `; did you mean ${suggestion}?`}\n${help}`,
    );
    return 2;
  }
  if (asksForHelp(rest)) {
    io.stdout(typeof command.help === "string" ? command.help : command.help(rest));
    return 0;
  }
  // The commands that run plans (run, worker, mcp serve) set up their own span export (withCliTracing).
  try {
    return await command.run(rest, io);
  } catch (error) {
    // A word of the command line a message repeats may be a connection string (a run id that was one,
    // a --database URL given as an argument): its password is not printed.
    if (error instanceof FlagError) {
      io.stderr(
        `plan-refs ${name}: ${printable(redactConnectionString(error.message))}\n${command.usage}\n(plan-refs ${name} --help for more)\n`,
      );
      return error.exitCode;
    }
    if (error instanceof CliError) {
      io.stderr(`plan-refs: ${withUsage(redactConnectionString(error.message), command.usage)}\n${error.excerpt}`);
      return error.exitCode;
    }
    throw error;
  }
}

/** A CLI error's message, escaped as one line, and the command's usage on the next when it ends with it. */
function withUsage(message: string, usage: string): string {
  const suffix = `\n${usage}`;
  return message.endsWith(suffix) ? `${printable(message.slice(0, -suffix.length))}${suffix}` : printable(message);
}
