/**
 * The errors of `plan-refs/mcp`. Setting up (starting a server, listing its tools, combining several
 * servers) fails with an `McpSetupError`; a tool call that fails rejects with an `McpCallError`, which
 * `runPlan` reports as the step's `tool-error` (the `McpCallError` is the step error's `cause`).
 */
import { CodedError } from "../shared/errors.js";
import { ownData } from "../shared/own-data.js";
import { safeText } from "../shared/text.js";

/** Why connecting to MCP servers or reading their tools failed. */
export type McpSetupErrorCode =
  /** `@modelcontextprotocol/sdk` is not installed. */
  | "missing-sdk"
  /** A server command string that cannot be split into words (an open quote, a shell operator). */
  | "invalid-command"
  /** A server could not be started or reached, or did not complete the MCP handshake. */
  | "connect-failed"
  /** A server's `tools/list` answer is not a list of tools (or repeats a tool, or never ends). */
  | "invalid-tools-list"
  /** Two servers (or a server and a tools module) offer a tool of the same name. */
  | "tool-collision"
  /** An option of the wrong type or out of range. */
  | "invalid-options"
  /** The plan server over HTTP was asked to bind an address other than loopback without a bearer token. */
  | "token-required"
  /** The plan server over HTTP could not bind its address and port. */
  | "listen-failed";

/**
 * Setting up MCP tools failed: the message is one line, safe to print.
 *
 * @example
 * try { await connectMcp({ command: "node", args: ["server.mjs"] }) } catch (e) { if (e instanceof McpSetupError) console.error(e.code, e.message) }
 */
export class McpSetupError extends CodedError<McpSetupErrorCode> {
  override name = "McpSetupError";
}

/** `error.data` of the answers the stdio transport makes up for a request whose real answer it cannot use. */
export const TRANSPORT_FAILURE = "plan-refs-transport";

/** Why an MCP tool call failed. */
export type McpCallErrorCode =
  /** The server answered with `isError: true`: the message holds its text (escaped). */
  | "server-error"
  /** The connection closed (the server exited, the network dropped) before the answer came. */
  | "connection-closed"
  /** No answer within `timeoutMs`. */
  | "timeout"
  /** The request failed otherwise (a protocol error, an answer of the wrong shape). */
  | "call-failed";

/**
 * A call to an MCP tool failed. `runPlan` turns it into the step's `StepError` (code `tool-error`) and
 * keeps it as the step error's `cause`.
 *
 * @example
 * const cause = report.errors.get(2)?.cause; if (cause instanceof McpCallError) cause.code // "server-error"
 */
export class McpCallError extends CodedError<McpCallErrorCode> {
  override name = "McpCallError";
}

/**
 * What a schema error of the SDK (a `ZodError`: the answer did not fit MCP's schema) says, as one
 * line: the first problem and where it is (`tools.0.name: Invalid input: expected string, received
 * number`), escaped. Undefined for any other error.
 *
 * @example
 * schemaProblem(error) ?? describeThrown(error)
 */
export function schemaProblem(error: unknown): string | undefined {
  // `ZodError`, or `$ZodError` from zod/mini, which the SDK parses with: known by name.
  const name = ownData(error, "name") ?? (error instanceof Error ? error.name : undefined);
  if (typeof name !== "string" || !/^\$?ZodError$/.test(name)) return undefined;
  const issues = ownData(error, "issues");
  if (!Array.isArray(issues) || issues.length === 0) return undefined;
  const first = ownData(issues, 0);
  const path = ownData(first, "path");
  const message = ownData(first, "message");
  const where = Array.isArray(path) && path.length > 0 ? `${path.slice(0, 20).map(String).join(".")}: ` : "";
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more ${issues.length === 2 ? "problem" : "problems"})` : "";
  return safeText(`${where}${typeof message === "string" ? message : "does not fit"}`, 200) + more;
}
