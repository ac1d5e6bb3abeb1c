/**
 * `--mcp "COMMAND LINE"` and `--mcp-url URL` (both repeatable) of `lint` and `run`: start or reach the
 * MCP servers, list their tools, and always close them when the command ends. The command line is
 * split by `splitCommand` (quotes understood, nothing expanded, no shell).
 */
import { connectMcpServers, McpSetupError, type McpServers } from "../mcp/index.js";
import { packageVersion } from "../shared/version.js";
import { MAX_TIMEOUT_MS } from "../run/index.js";
import { quoted } from "../shared/text.js";
import { CliError } from "./input.js";
import { interruptedExitCode, type CommandIo } from "./io.js";

/** The flag definitions, for `parseFlags`. */
export const MCP_OPTIONS = {
  mcp: { type: "string", multiple: true },
  "mcp-url": { type: "string", multiple: true },
  "mcp-timeout": { type: "string" },
} as const;

/** The values of the flags, as `parseArgs` gives them. */
export interface McpFlagValues {
  readonly mcp?: readonly string[] | undefined;
  readonly "mcp-url"?: readonly string[] | undefined;
  readonly "mcp-timeout"?: string | undefined;
}

/** The lines of `--help` that describe the flags. */
export const MCP_HELP = `  --mcp "COMMAND"       start an MCP server (its stdin and stdout carry MCP) and use its tools; the
                        command is split into words without a shell: quotes ('…', "…") and \\ are
                        understood, nothing is expanded (no $VAR, globs, pipes or redirections).
                        Repeatable: several servers; a tool name two servers offer is an error
  --mcp-url URL         use the tools of a Streamable HTTP MCP server (repeatable)
  --mcp-timeout MS      wait at most MS milliseconds for each server's handshake and for each page of
                        its tools/list (default: 60000)`;

/**
 * Connect the servers the flags name (none: undefined), then run `use` and close them, also when it
 * throws or the command is interrupted (`io.signal`). A server started by `--mcp` runs in `io.cwd`
 * with `io.env`. Setup failures are one-line `CliError`s (exit 2).
 */
export async function withMcpServers<T>(
  flags: McpFlagValues,
  io: Pick<CommandIo, "signal" | "cwd" | "env">,
  use: (servers: McpServers | undefined) => Promise<T>,
): Promise<T> {
  const { signal, cwd, env } = io;
  const specs = [
    ...(flags.mcp ?? []).map((commandLine) => ({ commandLine, cwd, env })),
    ...(flags["mcp-url"] ?? []).map((url) => ({ url })),
  ];
  const timeoutMs = milliseconds(flags["mcp-timeout"], "--mcp-timeout");
  if (specs.length === 0) return use(undefined);
  // Aborted by the command's signal, or by a signal that nothing else handles (see stopOnSignal).
  const controller = new AbortController();
  const connecting = connectMcpServers(specs, {
    clientInfo: { name: "plan-refs", version: packageVersion() },
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    signal: signal === undefined ? controller.signal : AbortSignal.any([signal, controller.signal]),
  });
  const release = stopOnSignal(controller, connecting);
  try {
    let servers: McpServers;
    try {
      servers = await connecting;
    } catch (error) {
      throw asCliError(error, signal);
    }
    try {
      return await use(servers);
    } catch (error) {
      throw asCliError(error, signal);
    } finally {
      await servers.close();
    }
  } finally {
    release();
  }
}

/** A flag's whole number of milliseconds, 1 up to the longest timer. */
function milliseconds(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^[1-9][0-9]*$/.test(text) || value > MAX_TIMEOUT_MS)
    throw new CliError(`${flag} must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, not ${quoted(text, 20)}`, "usage");
  return value;
}

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * A signal that nothing handles ends the process at once (Node's default; `run` handles them and
 * aborts, the other commands do not), which would leave a server that does not exit when its stdin
 * closes running. While the servers are open, such a signal stops them first, then ends the process
 * by the same signal, as the default would (a connection still being made is abandoned). Returns the
 * function that removes the listeners.
 */
function stopOnSignal(controller: AbortController, connecting: Promise<McpServers>): () => void {
  const listeners = new Map<string, () => void>();
  for (const name of SIGNALS) {
    if (process.listenerCount(name) > 0) continue;
    const listener = (): void => {
      for (const [signal, other] of listeners) process.off(signal, other);
      const die = (): void => void process.kill(process.pid, name);
      controller.abort();
      connecting.then((servers) => servers.close()).then(die, die);
    };
    listeners.set(name, listener);
    process.on(name, listener);
  }
  return () => {
    for (const [name, listener] of listeners) process.off(name, listener);
  };
}

/** An `McpSetupError` as the command line's error; anything else as it is. */
export function asCliError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (!(error instanceof McpSetupError)) return error;
  if (signal?.aborted === true)
    return new CliError("interrupted while connecting to the MCP servers; nothing was run", "interrupted", interruptedExitCode(signal));
  return new CliError(error.message, error.code === "missing-sdk" ? "missing-sdk" : `mcp-${error.code}`);
}
