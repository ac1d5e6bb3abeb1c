/**
 * `connectMcp`: start an MCP server over stdio (or reach one over Streamable HTTP) and complete the
 * handshake, with `@modelcontextprotocol/sdk` loaded only then: the rest of `plan-refs/mcp` works with
 * any client and needs no SDK, so importing the subpath never fails; connecting without the SDK fails
 * with one line naming the install command (`McpSetupError` code `missing-sdk`).
 */
import { describeThrown } from "../shared/errors.js";
import { ownData } from "../shared/own-data.js";
import { quoted, safeText, textTail } from "../shared/text.js";
import { REQUEST_TIMEOUT, requestOptions, SDK_TIMEOUT_MS } from "./catalog.js";
import type { McpClient } from "./client.js";
import { AnswerCheck } from "./answer-check.js";
import { McpSetupError } from "./errors.js";
import { checkedFetch, watchSent } from "./http-answers.js";
import { splitCommand } from "./split-command.js";
import { loadSdk } from "./sdk.js";
import { GroupStdioTransport } from "./stdio-transport.js";

/** How to reach a server: a command to start (its stdin and stdout carry MCP), or a Streamable HTTP URL. */
export type McpServerSpec =
  | {
      /** The program to run (no shell: see `splitCommand` for a command line). */
      readonly command: string;
      readonly args?: readonly string[];
      readonly cwd?: string;
      /** The server's environment (default: this process's). */
      readonly env?: Readonly<Record<string, string>>;
    }
  | { readonly url: string | URL }
  /** A command line, split into words by `splitCommand` (quotes understood, no shell); started in `cwd` with `env` as above. */
  | { readonly commandLine: string; readonly cwd?: string; readonly env?: Readonly<Record<string, string | undefined>> };

/** Options of `connectMcp`. */
export interface ConnectMcpOptions {
  /** Cancels the connection while it is being made (the server is stopped). */
  readonly signal?: AbortSignal;
  /** Milliseconds to wait for the handshake (default: the SDK's, 60 s). */
  readonly timeoutMs?: number;
  /** How the client introduces itself (default `{ name: "plan-refs", version: "0" }`). */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** A name for the server in messages (default: its command line or URL). */
  readonly label?: string;
}

/** A connected server. */
export interface McpConnection {
  /** The SDK's `Client`, connected. */
  readonly client: McpClient;
  /** The server's name in messages. */
  readonly label: string;
  /** The last lines the server wrote on stderr (a stdio server; empty otherwise), for a message when it fails. */
  stderrTail(): string;
  /**
   * Close the connection. A stdio server runs in a process group of its own, and the whole group is
   * stopped: stdin closed, then SIGTERM, then SIGKILL, 2 s apart (a wrapper such as `sh -c` or `npx`
   * and the server it started go together). Never rejects.
   */
  close(): Promise<void>;
}

/** How much of a server's stderr is kept. */
const STDERR_TAIL_CHARS = 4096;

/**
 * Start an MCP server over stdio (`{ command, args }`, or `{ commandLine }` split by `splitCommand`:
 * no shell either way) or reach one over Streamable HTTP (`{ url }`), and complete the MCP handshake. The server's stderr is kept (the last 4 KiB), not
 * printed. Over HTTP, a response stream that drops mid-call closes the connection, so calls waiting
 * on it fail at once instead of waiting for their timeout. Over either transport, an answer the SDK's
 * schema would drop (a `result` that is not an object) fails its call at once (`call-failed`). Fails with an `McpSetupError`: code
 * `missing-sdk` when `@modelcontextprotocol/sdk` is not installed, `connect-failed` when the server
 * cannot be started or reached or does not answer the handshake.
 *
 * @example
 * const server = await connectMcp({ command: "node", args: ["server.mjs"] })
 * try { console.log(await catalogFromMcp(server.client)) } finally { await server.close() }
 */
export async function connectMcp(server: McpServerSpec, options: ConnectMcpOptions = {}): Promise<McpConnection> {
  const request = requestOptions(options, "connectMcp option");
  const spec = readSpec(server);
  const label = typeof options.label === "string" ? options.label : spec.label;
  const shown = quoted(label, 80);
  const { Client } = await loadSdk("client/index.js");
  const info = options.clientInfo ?? { name: "plan-refs", version: "0" };
  const client = new Client({ name: info.name, version: info.version });
  let tail = "";
  let transport: { close(): Promise<void> };
  if (spec.kind === "stdio") {
    const [{ getDefaultEnvironment }, { JSONRPCMessageSchema }] = await Promise.all([loadSdk("client/stdio.js"), loadSdk("types.js")]);
    const stdio = new GroupStdioTransport(spec, { messageSchema: JSONRPCMessageSchema, defaultEnvironment: getDefaultEnvironment });
    stdio.onStderr((chunk) => {
      tail = textTail(tail + chunk, STDERR_TAIL_CHARS);
    });
    transport = stdio;
  } else {
    const [{ StreamableHTTPClientTransport }, { JSONRPCMessageSchema }] = await Promise.all([
      loadSdk("client/streamableHttp.js"),
      loadSdk("types.js"),
    ]);
    // Answers the SDK's schema would drop fail their request at once, as over stdio.
    const check = new AnswerCheck(JSONRPCMessageSchema);
    const http = new StreamableHTTPClientTransport(spec.url, { fetch: checkedFetch(check) });
    watchSent(http, check);
    transport = http;
  }
  const stderrTail = (): string => tail;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= client
      .close()
      .catch(() => undefined)
      // The SDK may have begun closing on its own (a failed handshake) without waiting: wait here.
      .then(() => transport.close())
      .catch(() => undefined));
  try {
    await client.connect(transport as Parameters<typeof client.connect>[0], request);
  } catch (error) {
    await close();
    if (request.signal?.aborted === true)
      throw new McpSetupError("connect-failed", `MCP server ${shown}: interrupted while connecting`, { cause: error });
    throw new McpSetupError(
      "connect-failed",
      `MCP server ${shown}: ${connectFailure(error, spec.kind, request.timeout)}${failureLine(tail)}`,
      { cause: error },
    );
  }
  if (spec.kind === "http") {
    // A POST's response stream that drops before the answer (the server died) is only reported to
    // onerror: the call would wait for its timeout. Closing the client fails every waiting call now.
    const previous = client.onerror;
    client.onerror = (error: Error) => {
      previous?.(error);
      if (describeThrown(error).startsWith("SSE stream disconnected")) void close();
    };
  }
  return { client: client as unknown as McpClient, label, stderrTail, close };
}

type Spec =
  | { kind: "stdio"; command: string; args: string[]; cwd?: string; env: Record<string, string>; label: string }
  | { kind: "http"; url: URL; label: string };

function readSpec(server: McpServerSpec): Spec {
  if (typeof server !== "object" || server === null)
    throw new McpSetupError("invalid-options", "connectMcp needs { command, args } or { url }");
  if ("url" in server) {
    let url: URL;
    try {
      url = new URL(server.url);
    } catch {
      throw new McpSetupError("invalid-options", `${quoted(String(server.url), 80)} is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new McpSetupError("invalid-options", `MCP server URL ${quoted(url.href, 80)} must be http: or https:`);
    return { kind: "http", url, label: url.href };
  }
  if ("commandLine" in server) {
    const [command, ...args] = splitCommand(server.commandLine);
    const { cwd, env } = server;
    return {
      kind: "stdio",
      command: command!,
      args,
      ...(cwd === undefined ? {} : { cwd }),
      env: environment(env),
      label: server.commandLine,
    };
  }
  const { command, args = [], cwd, env } = server;
  if (typeof command !== "string" || command === "")
    throw new McpSetupError("invalid-options", "connectMcp needs a command (a non-empty string)");
  if (!Array.isArray(args) || !args.every((arg): arg is string => typeof arg === "string"))
    throw new McpSetupError("invalid-options", "connectMcp args must be an array of strings");
  return {
    kind: "stdio",
    command,
    args: [...args],
    ...(cwd === undefined ? {} : { cwd }),
    env: environment(env),
    label: [command, ...args].join(" "),
  };
}

/** The server's environment: the one given, else this process's (string values only). */
function environment(env: Readonly<Record<string, string | undefined>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env ?? process.env)) if (typeof value === "string") out[name] = value;
  return out;
}

/** Why connecting failed, in a few words. */
function connectFailure(error: unknown, kind: Spec["kind"], timeout: number | undefined): string {
  const code = ownData(error, "code");
  if (code === "ENOENT") return "cannot start the server: no such program";
  if (code === "EACCES") return "cannot start the server: permission denied";
  if (code === -32000)
    return kind === "stdio"
      ? "the server exited before completing the MCP handshake"
      : "the connection closed before the MCP handshake completed";
  if (code === REQUEST_TIMEOUT) return `no answer to the MCP handshake within ${timeout ?? SDK_TIMEOUT_MS} ms`;
  const message = describeThrown(error);
  return kind === "http" ? `cannot connect: ${safeText(message, 200)}` : `the MCP handshake failed: ${safeText(message, 200)}`;
}

/** A line that says an error happened: `Error: …`, `TypeError: …`, `error: …`, `fatal: …`, `npm ERR! …`. */
const ERROR_LINE = /^(?:[\w.$]*(?:error|exception)|fatal|panic|npm (?:ERR!|error))\b[^:\n]{0,40}:?\s/i;
/** A line that says something failed, in other words. */
const FAILURE_WORDS = /\b(?:error|fatal|failed|failure|cannot|can't|unable|denied|not found|no such|missing|invalid|refused)\b/i;
/** Lines that say nothing about the failure: a stack frame, Node's version banner, a caret under a source line. */
const NOISE_LINE = /^(?:at\s|node\.js v\d|\^+$|file:\/\/|\s*$)/i;

/**
 * The stderr line that says what failed, as the end of a message: the first line that names an error
 * (`Error: missing API key`; Node ends its crash report with its version banner, Python starts its
 * with "Traceback"), else the first that says something failed, else the last three lines.
 */
function failureLine(tail: string): string {
  const lines = tail
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !NOISE_LINE.test(line));
  const named = lines.find((line) => ERROR_LINE.test(line)) ?? lines.find((line) => FAILURE_WORDS.test(line) && !/^Traceback\b/.test(line));
  const said = named ?? lines.slice(-3).join(" / ");
  return said === "" ? "" : ` (its stderr: ${safeText(said, 200)})`;
}
