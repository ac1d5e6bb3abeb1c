/**
 * `plan-refs lsp [--stdio]`: the language server over stdin and stdout (the flag is what editors pass;
 * stdio is the only transport). Nothing else may write to stdout while it runs: it carries the protocol.
 */
import { FlagError, parseFlags } from "./flags.js";
import { readTextInput } from "./input.js";
import type { CommandIo } from "./io.js";

export const lspUsage = "usage: plan-refs lsp --stdio   (language server over stdin/stdout, for editors)";

export const lspHelp = `${lspUsage}

Serve the Language Server Protocol over stdin and stdout, for editors: diagnostics, completion, hover,
go to definition and rename for step references in plan files. Nothing else is written to stdout.

options:
  --stdio      the transport (the only one; editors pass it)
  -h, --help   show this help

exit codes:
  0    the client sent "exit" (or closed the stream) after "shutdown"
  1    "exit" or the end of the stream came without "shutdown"
  2    usage errors, or started without --stdio from a terminal

example (an editor starts it so):
  plan-refs lsp --stdio
`;

/** Largest `tools.json` the server reads (4 MiB). */
const MAX_CATALOG_BYTES = 4 * 1024 * 1024;

/**
 * Run `plan-refs lsp`: serve until the client sends `exit` or closes the stream (the server library
 * then ends the process). The server's modules load only here, so other commands start fast.
 *
 * @example
 * await runCli(["lsp", "--stdio"], io) // serves on stdin/stdout
 */
export async function lspCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values } = parseFlags(argv, { stdio: { type: "boolean" } }, { positionals: false });
  // Started by hand in a terminal, not by an editor: say what it is instead of waiting silently for
  // protocol messages no one will type. (Without the flag on a pipe, it serves, as editors expect.)
  if (values.stdio !== true && process.stdin.isTTY === true)
    throw new FlagError("the language server is started by an editor, with --stdio; its messages come on stdin, not from a terminal");
  const { createConnection } = await import("vscode-languageserver/node");
  const { guardFraming, startLanguageServer } = await import("../editor/lsp-server.js");
  // Malformed message headers are reported on stderr, one line each, and skipped: the server goes on.
  const connection = createConnection(
    guardFraming(process.stdin, (line) => process.stderr.write(`${line}\n`)),
    process.stdout,
  );
  // A bug in a handler must not take the editor's server down: log it and go on.
  process.on("uncaughtException", (error) => connection.console.error(`plan-refs: unexpected error: ${error.stack ?? error.message}`));
  startLanguageServer(connection, { readTextFile: (path) => readTextInput(path, io, MAX_CATALOG_BYTES) });
  return new Promise<number>(() => {});
}
