#!/usr/bin/env node
/**
 * The `plan-refs` executable: wires the process's streams and signals to `runCli`.
 */
import { runCli } from "./cli.js";
import { Interrupted, SIGNAL_EXIT_CODES } from "./io.js";

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

const argv = process.argv.slice(2);
const controller = new AbortController();
let interrupted: Interrupted | undefined;
// `run` (and `worker`, which then stops gracefully) turns SIGINT, SIGTERM and SIGHUP into an abort: running tools see it, the results so far are
// written, and the process exits with 128 + the signal's number. A second signal exits at once.
// `db start` stops its server on the abort and exits 0: ending it is how it is used. The
// other commands keep Node's default (the signal ends them), so `lsp` still stops when it is told to.
if (argv[0] === "run" || argv[0] === "worker" || (argv[0] === "db" && argv[1] === "start")) {
  for (const name of Object.keys(SIGNAL_EXIT_CODES) as (keyof typeof SIGNAL_EXIT_CODES)[]) {
    process.on(name, () => {
      if (interrupted !== undefined) process.exit(interrupted.exitCode);
      interrupted = new Interrupted(name);
      controller.abort(interrupted);
    });
  }
}

const code = await runCli(argv, {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  stdoutIsTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  signal: controller.signal,
});
process.exitCode = code;
if (interrupted !== undefined) {
  // The results are written: exit now, even if a tool ignores its abort signal and keeps the event
  // loop busy. Once both streams have taken what was written, so nothing is cut short.
  let pending = 2;
  const done = (): void => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write("", done);
  process.stderr.write("", done);
}
