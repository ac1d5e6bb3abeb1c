/**
 * The command line's dispatcher: `plan-refs <command> …`. Users' mistakes end as one line on stderr
 * and exit code 2; only a bug in plan-refs itself shows a stack trace.
 */
import { CliError } from "./input.js";
import type { CliIo } from "./io.js";
import { lintCommand, lintUsage } from "./lint-command.js";
import { lspCommand, lspUsage } from "./lsp-command.js";
import { resolveCommand, resolveUsage } from "./resolve-command.js";
import { runCommand, runUsage } from "./run-command.js";

type Command = (argv: string[], io: CliIo) => number | Promise<number>;

const commands: Record<string, { run: Command; usage: string }> = {
  resolve: { run: resolveCommand, usage: resolveUsage },
  lint: { run: lintCommand, usage: lintUsage },
  run: { run: runCommand, usage: runUsage },
  lsp: { run: lspCommand, usage: lspUsage },
};

const help = `plan-refs: step references in AI-agent tool plans

${Object.values(commands)
  .map((command) => command.usage)
  .join("\n")}
`;

/** Run the command line with `argv` (without `node` and the script) and return the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    (name === undefined ? io.stderr : io.stdout)(help);
    return name === undefined ? 2 : 0;
  }
  if (name === "--version") {
    io.stdout("plan-refs 0.1.0\n");
    return 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (command === undefined) {
    io.stderr(`plan-refs: unknown command "${name.slice(0, 40)}"\n${help}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.stderr(`plan-refs: ${error.message}\n`);
      return error.exitCode;
    }
    if (isArgParseError(error)) {
      io.stderr(`plan-refs ${name}: ${(error as Error).message}\n${command.usage}\n`);
      return 2;
    }
    throw error;
  }
}

/** `node:util` parseArgs errors carry codes like ERR_PARSE_ARGS_UNKNOWN_OPTION. */
function isArgParseError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS");
}
