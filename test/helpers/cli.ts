/**
 * The command line run in the test's own process, through `runCli` (the seam `src/cli/main.ts` calls
 * and exits with): the same exit code, stdout and stderr as `node dist/cli/main.js`, without paying
 * for a process and its module loading each time. stdin, the environment and the working folder are
 * the run's own (a worker thread cannot `chdir`), so `-`, `NO_COLOR`, `OTEL_*` and relative paths are
 * tested here too. What only a process shows (`process.exit`, signals, a real terminal, a real pipe)
 * stays in the few tests that spawn `dist/cli/main.js`.
 */
import { fileURLToPath } from "node:url";
import { runCli } from "../../src/cli/cli.js";
import type { CliEnv } from "../../src/cli/io.js";

/** The repository's root: the folder the spawned CLI ran in, and the default working folder here. */
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

export interface InProcessOptions {
  /** What `-` reads (default: nothing, as a spawned CLI given `input: ""`). */
  readonly stdin?: string | Uint8Array;
  /** The environment (default: a copy of this process's). */
  readonly env?: CliEnv;
  /** The working folder (default: the repository's root). */
  readonly cwd?: string;
  /** Whether stdout and stderr are terminals (default: neither); one value for both, or each. */
  readonly isTTY?: boolean | { readonly stdout: boolean; readonly stderr: boolean };
  /** Aborts the command, as SIGINT does to the process (its reason: an `Interrupted`). */
  readonly signal?: AbortSignal;
  /** Sees stderr as it is written (to await a line, such as a step that started). */
  readonly onStderr?: (text: string) => void;
}

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Run `plan-refs …argv` in-process and collect what it writes.
 *
 * @example
 * const { code, stdout } = await runCliInProcess(["lint", "-"], { stdin: "{}" }) // code 2
 */
export async function runCliInProcess(argv: readonly string[], options: InProcessOptions = {}): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const input = typeof options.stdin === "string" ? Buffer.from(options.stdin, "utf8") : (options.stdin ?? new Uint8Array());
  const tty = options.isTTY ?? false;
  const code = await runCli([...argv], {
    stdout: (text) => void (stdout += text),
    stderr: (text) => {
      stderr += text;
      options.onStderr?.(text);
    },
    stdoutIsTTY: typeof tty === "boolean" ? tty : tty.stdout,
    stderrIsTTY: typeof tty === "boolean" ? tty : tty.stderr,
    signal: options.signal,
    // Handed over whole: more than maxBytes is refused by the reader, as it is from a pipe.
    stdin: () => input,
    env: options.env ?? { ...process.env },
    cwd: options.cwd ?? repoRoot,
  });
  return { code, stdout, stderr };
}
