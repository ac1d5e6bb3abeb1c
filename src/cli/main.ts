#!/usr/bin/env node
/**
 * The `plan-refs` executable: wires the process's streams and signals to `runCli`.
 */
import { runCli } from "./cli.js";

// A closed output pipe (`plan-refs … | head`) ends the program quietly, not with a stack trace; any
// other write failure (a full disk, EIO) is one line on stderr, if stderr still works, and exit code 1.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    if (stream === process.stdout) {
      try {
        process.stderr.write(`plan-refs: cannot write the output (${error.code ?? "error"})\n`);
      } catch {
        // Nowhere left to report it.
      }
    }
    process.exit(1);
  });
}

const controller = new AbortController();
process.once("SIGINT", () => controller.abort(new Error("interrupted (Ctrl-C)")));

const code = await runCli(process.argv.slice(2), {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  stdoutIsTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  signal: controller.signal,
});
process.exitCode = code;
