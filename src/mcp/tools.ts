/**
 * `mcpTools`: an MCP server's tools as tool functions for `runPlan`. A step calls `tools/call` with its
 * resolved arguments and its signal; the answer becomes the step's result.
 */
import { isPlainArray, isPlainObject, MISSING, ownData, readOwnData } from "../shared/own-data.js";
import type { ToolContext, ToolFunction, ToolFunctions } from "../run/run-plan.js";
import { activeTraceCarrier } from "../step/tracing.js";
import { describeThrown } from "../shared/errors.js";
import { cutText, printable, safeText } from "../shared/text.js";
import { listMcpTools, REQUEST_TIMEOUT, requestOptions, SDK_TIMEOUT_MS } from "./catalog.js";
import type { McpClient, McpRequestOptions } from "./client.js";
import { McpCallError, schemaProblem, TRANSPORT_FAILURE } from "./errors.js";

/** Options of `mcpTools`. */
export interface McpToolsOptions {
  /**
   * Milliseconds a call may wait for its answer; then the step fails (an `McpCallError` code
   * `timeout`). Default: the SDK's, 60 s. `Infinity`: no limit (2^31 − 1 ms, the longest timer).
   * `runPlan`'s own `timeoutMs` applies too.
   */
  readonly timeoutMs?: number;
  /** Cancels the `tools/list` request that finds the tools' names. */
  readonly signal?: AbortSignal;
}

/** Longest server text kept in an error message. */
const MAX_ERROR_TEXT = 300;

/** The SDK's JSON-RPC error code for a connection that closed. */
const CONNECTION_CLOSED = -32000;

/**
 * The tools of an MCP server as tool functions for `runPlan`, one per tool its `tools/list` names
 * (every page). A step calls `tools/call` with its resolved arguments and its `signal` (an aborted
 * step cancels the request); in a traced run the call's `_meta` carries the step span's W3C trace
 * context (`traceparent`, `tracestate`), so the server's spans join the run's trace. The step's result is the answer's `structuredContent` when present, else
 * its text content parsed as JSON when it parses, else the text (content with no text: the `content`
 * array). An answer with `isError: true` fails the step (`tool-error`) with the server's text,
 * escaped; so do a connection that closes during the call (the server exited) and a call with no
 * answer within `timeoutMs`: the step fails, it never hangs. The `McpCallError` is the step error's
 * `cause`.
 *
 * @example
 * const tools = await mcpTools(client, { timeoutMs: 10_000 })
 * const report = await runPlan(plan, tools, { catalog: await catalogFromMcp(client) })
 */
export async function mcpTools(client: McpClient, options: McpToolsOptions = {}): Promise<ToolFunctions> {
  const request = requestOptions(options, "mcpTools option");
  const listing = await listMcpTools(client, request.signal === undefined ? {} : { signal: request.signal });
  return toolFunctions(
    client,
    listing.map((tool) => tool.name),
    request.timeout,
  );
}

/** A tool function per name, each calling that tool on `client`. */
export function toolFunctions(client: McpClient, names: readonly string[], timeout: number | undefined): Record<string, ToolFunction> {
  const tools = Object.create(null) as Record<string, ToolFunction>;
  for (const name of names) {
    const fn: ToolFunction = (args, context) => callTool(client, name, args, context, timeout);
    Object.defineProperty(tools, name, { value: fn, enumerable: true, writable: true, configurable: true });
  }
  return tools;
}

async function callTool(
  client: McpClient,
  name: string,
  args: Record<string, unknown>,
  context: ToolContext,
  timeout: number | undefined,
): Promise<unknown> {
  const options: McpRequestOptions = timeout === undefined ? { signal: context.signal } : { signal: context.signal, timeout };
  // The step's span (the active context while its tool runs) continues in the server: W3C fields in `_meta`.
  const trace = activeTraceCarrier();
  let answer: unknown;
  try {
    answer = await client.callTool(
      trace === undefined ? { name, arguments: args } : { name, arguments: args, _meta: trace },
      undefined,
      options,
    );
  } catch (error) {
    throw callFailure(error, timeout);
  }
  return toolValue(answer);
}

/** Why a call failed, as one clear line (also the plan server's, for a call it passes on). */
export function callFailure(error: unknown, timeout: number | undefined): McpCallError {
  let code: unknown;
  try {
    code = typeof error === "object" && error !== null ? readOwnData(error, "code") : undefined;
  } catch {
    code = undefined;
  }
  if (code === CONNECTION_CLOSED) {
    return new McpCallError(
      "connection-closed",
      "the MCP server closed the connection before answering (it exited, or the connection dropped)",
      { cause: error },
    );
  }
  // The SDK's Client refuses a request once its connection has closed with this plain Error.
  if (error instanceof Error && error.message === "Not connected") {
    return new McpCallError(
      "connection-closed",
      "the connection to the MCP server is closed (the server exited, or the connection dropped)",
      { cause: error },
    );
  }
  const dropped = fetchFailure(error);
  if (dropped !== undefined)
    return new McpCallError("connection-closed", `the HTTP connection to the MCP server failed during the call: ${dropped}`, {
      cause: error,
    });
  // An answer the transport could not use (over the size limit, a result that is not an object).
  if (ownData(error, "data") === TRANSPORT_FAILURE) {
    return new McpCallError("call-failed", printable(cutText(describeThrown(error).replace(/^MCP error -?\d+: /, ""), MAX_ERROR_TEXT)), {
      cause: error,
    });
  }
  const problem = schemaProblem(error);
  if (problem !== undefined)
    return new McpCallError("call-failed", `the MCP server's tools/call answer does not fit MCP's schema: ${problem}`, { cause: error });
  if (code === REQUEST_TIMEOUT) {
    return new McpCallError("timeout", `the MCP server did not answer within ${timeout ?? SDK_TIMEOUT_MS} ms`, { cause: error });
  }
  return new McpCallError("call-failed", `the MCP call failed: ${safeText(describeThrown(error), MAX_ERROR_TEXT)}`, { cause: error });
}

/** What Node's `fetch` says went wrong under its bare "fetch failed" (the error's `cause`), escaped; undefined for other errors. */
function fetchFailure(error: unknown): string | undefined {
  if (!(error instanceof TypeError) || error.message !== "fetch failed") return undefined;
  const cause = ownData(error, "cause");
  const code = ownData(cause, "code");
  const said = cause === undefined ? "no reason given" : safeText(describeThrown(cause), 200);
  if (code === "ECONNREFUSED") return `${said} (nothing listens there: the server has stopped?)`;
  if (code === "UND_ERR_SOCKET" || code === "ECONNRESET") return `${said} (the server dropped the connection before answering)`;
  return said;
}

/** The step's result from a `tools/call` answer (read as untrusted data: own data properties only). */
function toolValue(answer: unknown): unknown {
  let content: unknown;
  let structured: unknown;
  let isError: unknown;
  let text: string | undefined;
  try {
    if (!isPlainObject(answer)) throw new McpCallError("call-failed", "the MCP server's tools/call answer is not an object");
    content = readOwnData(answer, "content");
    structured = readOwnData(answer, "structuredContent");
    isError = readOwnData(answer, "isError");
    text = textOf(content);
  } catch (error) {
    if (error instanceof McpCallError) throw error;
    throw new McpCallError("call-failed", `the MCP server's answer could not be read: ${safeText(describeThrown(error), 200)}`, {
      cause: error,
    });
  }
  if (isError === true) {
    throw new McpCallError(
      "server-error",
      `the MCP server reported an error: ${text === undefined || text === "" ? "(no message)" : safeText(text, MAX_ERROR_TEXT)}`,
    );
  }
  if (structured !== undefined && structured !== MISSING) return structured;
  if (text === undefined) return content === MISSING ? undefined : content;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The text items of a `content` array, joined by newlines; undefined when it has none. */
function textOf(content: unknown): string | undefined {
  if (!isPlainArray(content)) return undefined;
  const texts: string[] = [];
  for (let i = 0; i < content.length; i++) {
    const item = readOwnData(content, i);
    if (!isPlainObject(item) || readOwnData(item, "type") !== "text") continue;
    const text = readOwnData(item, "text");
    if (typeof text === "string") texts.push(text);
  }
  return texts.length === 0 ? undefined : texts.join("\n");
}
