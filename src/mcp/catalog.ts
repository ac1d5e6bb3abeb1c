/**
 * `catalogFromMcp`: an MCP server's tools, as a plan-refs tool catalog: each tool's `inputSchema` is
 * the catalog's `input`, its `outputSchema` (when the server declares one) the `output`.
 */
import type { JsonSchema, ToolCatalog, ToolSpec } from "../plan/plan.js";
import { isPlainArray, isPlainObject, MISSING, ownData, readOwnData } from "../shared/own-data.js";
import { MAX_TIMEOUT_MS } from "../run/run-plan.js";
import { describeThrown } from "../shared/errors.js";
import { quoted, safeText } from "../shared/text.js";
import type { McpClient, McpRequestOptions } from "./client.js";
import { McpSetupError, schemaProblem } from "./errors.js";

/** Most pages of `tools/list` followed before the listing is taken for one that never ends. */
export const MAX_TOOL_PAGES = 1000;

/** The SDK's JSON-RPC error code for a request that timed out, and its default timeout. */
export const REQUEST_TIMEOUT = -32001;
export const SDK_TIMEOUT_MS = 60_000;

/** Options of `catalogFromMcp`. */
export interface CatalogFromMcpOptions {
  /** Cancels the listing. */
  readonly signal?: AbortSignal;
  /** Milliseconds to wait for each page (default: the SDK's, 60 s). */
  readonly timeoutMs?: number;
  /**
   * Copy each tool's `annotations.readOnlyHint` into the catalog's `readOnly` (which lets a plan tool
   * start its steps before the plan is whole). Off by default: the hint is the server's word, and the
   * MCP specification calls annotations untrusted; turn it on only for servers you trust.
   */
  readonly trustReadOnlyHint?: boolean;
}

/** One tool as `tools/list` describes it. */
export interface McpToolListing {
  readonly name: string;
  readonly spec: ToolSpec;
}

/**
 * The tools an MCP server lists, as a tool catalog for the linter and `runPlan`: every page of
 * `tools/list` (following `nextCursor`), each tool's `inputSchema` as `input`, its `outputSchema`
 * (when given) as `output`, its `description` kept, and with `trustReadOnlyHint` its
 * `annotations.readOnlyHint` as `readOnly`. An answer of the wrong shape, a tool listed twice
 * or a listing that never ends is an `McpSetupError` (code `invalid-tools-list`).
 *
 * @example
 * const catalog = await catalogFromMcp(client)
 * lintPlan(plan, { tools: catalog }) // unknown tools, keys missing from output schemas, type mismatches
 */
export async function catalogFromMcp(client: McpClient, options: CatalogFromMcpOptions = {}): Promise<ToolCatalog> {
  const catalog = Object.create(null) as Record<string, ToolSpec>;
  for (const { name, spec } of await listMcpTools(client, options)) {
    Object.defineProperty(catalog, name, { value: spec, enumerable: true, writable: true, configurable: true });
  }
  return catalog;
}

/** Every tool a server lists, in its order (shared by `catalogFromMcp` and `mcpTools`). */
export async function listMcpTools(client: McpClient, options: CatalogFromMcpOptions = {}): Promise<McpToolListing[]> {
  const request = requestOptions(options);
  const trust = readOwnData(options, "trustReadOnlyHint");
  if (trust !== undefined && trust !== MISSING && typeof trust !== "boolean")
    throw new McpSetupError("invalid-options", "option trustReadOnlyHint must be true or false");
  const out: McpToolListing[] = [];
  const seen = new Set<string>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= MAX_TOOL_PAGES) throw invalid(`the server's tools/list went on for more than ${MAX_TOOL_PAGES} pages`);
    let answer: unknown;
    try {
      const params = cursor === undefined ? undefined : { cursor };
      answer = await ownSignal(request, (options) => client.listTools(params, options));
    } catch (error) {
      if (error instanceof McpSetupError) throw error;
      const problem = schemaProblem(error);
      if (problem !== undefined) throw invalid(`the server's tools/list answer does not fit MCP's schema: ${problem}`);
      if (ownData(error, "code") === REQUEST_TIMEOUT)
        throw new McpSetupError("connect-failed", `no answer to tools/list within ${request.timeout ?? SDK_TIMEOUT_MS} ms`, {
          cause: error,
        });
      throw new McpSetupError("connect-failed", `tools/list failed: ${safeText(describeThrown(error), 300)}`, { cause: error });
    }
    const next = readPage(answer, trust === true, (listing) => {
      if (seen.has(listing.name)) throw invalid(`the server lists tool ${quoted(listing.name)} twice`);
      seen.add(listing.name);
      out.push(listing);
    });
    if (next === undefined || next === null || next === MISSING) return out;
    if (typeof next !== "string") throw invalid(`the server's tools/list "nextCursor" is not a string`);
    if (cursors.has(next)) throw invalid(`the server's tools/list gives cursor ${quoted(next)} twice (a listing that never ends)`);
    cursors.add(next);
    cursor = next;
  }
}

/**
 * Send one request with a signal of its own that follows the caller's: the SDK adds an abort listener
 * to the signal of every request and never removes it, so a listing of many pages on the caller's one
 * signal would pile them up (and Node warns of a leak past ten).
 */
async function ownSignal<T>(request: McpRequestOptions, send: (options: McpRequestOptions) => Promise<T>): Promise<T> {
  const parent = request.signal;
  if (parent === undefined) return send(request);
  const controller = new AbortController();
  const abort = (): void => controller.abort(parent.reason);
  if (parent.aborted) abort();
  else parent.addEventListener("abort", abort, { once: true });
  try {
    return await send({ ...request, signal: controller.signal });
  } finally {
    parent.removeEventListener("abort", abort);
  }
}

/** Read one page's tools (own data only); returns its `nextCursor` (or `MISSING`). */
function readPage(answer: unknown, trustReadOnlyHint: boolean, take: (listing: McpToolListing) => void): unknown {
  try {
    if (!isPlainObject(answer)) throw invalid("the server's tools/list answer is not an object");
    const tools = readOwnData(answer, "tools");
    if (!isPlainArray(tools)) throw invalid(`the server's tools/list answer has no "tools" array`);
    for (let i = 0; i < tools.length; i++) take(readTool(readOwnData(tools, i), i, trustReadOnlyHint));
    return readOwnData(answer, "nextCursor");
  } catch (error) {
    // A client of the caller's own making may answer with Proxies or getters that throw.
    if (error instanceof McpSetupError) throw error;
    throw invalid(`the server's tools/list answer could not be read: ${safeText(describeThrown(error), 200)}`);
  }
}

function readTool(tool: unknown, index: number, trustReadOnlyHint: boolean): McpToolListing {
  if (!isPlainObject(tool)) throw invalid(`tool ${index} of the server's tools/list is not an object`);
  const name = readOwnData(tool, "name");
  if (typeof name !== "string" || name === "") throw invalid(`tool ${index} of the server's tools/list has no name`);
  const spec: { description?: string; input?: JsonSchema; output?: JsonSchema; readOnly?: boolean } = {};
  const description = readOwnData(tool, "description");
  if (typeof description === "string") spec.description = description;
  for (const [from, to] of [
    ["inputSchema", "input"],
    ["outputSchema", "output"],
  ] as const) {
    const schema = readOwnData(tool, from);
    if (schema === undefined || schema === null || schema === MISSING) continue;
    if (typeof schema !== "boolean" && !isPlainObject(schema))
      throw invalid(`tool ${quoted(name)}'s ${from} is not a JSON Schema (an object or a boolean)`);
    spec[to] = schema;
  }
  if (trustReadOnlyHint) {
    const annotations = readOwnData(tool, "annotations");
    const hint = isPlainObject(annotations) ? readOwnData(annotations, "readOnlyHint") : undefined;
    if (typeof hint === "boolean") spec.readOnly = hint;
  }
  return { name, spec };
}

function invalid(message: string): McpSetupError {
  return new McpSetupError("invalid-tools-list", message);
}

/** The SDK's request options for `timeoutMs` and `signal`, checked. */
export function requestOptions(
  options: { readonly signal?: AbortSignal; readonly timeoutMs?: number },
  what = "option",
): McpRequestOptions {
  if (typeof options !== "object" || options === null) throw new McpSetupError("invalid-options", `the options must be an object`);
  const timeoutMs = readOwnData(options, "timeoutMs");
  const signal = readOwnData(options, "signal");
  const out: { signal?: AbortSignal; timeout?: number } = {};
  if (timeoutMs !== undefined && timeoutMs !== MISSING) out.timeout = checkTimeout(timeoutMs, what);
  if (signal !== undefined && signal !== MISSING) {
    if (!(signal instanceof AbortSignal)) throw new McpSetupError("invalid-options", `${what} signal must be an AbortSignal`);
    out.signal = signal;
  }
  return out;
}

function checkTimeout(value: unknown, what: string): number {
  if (value === Infinity) return MAX_TIMEOUT_MS;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > MAX_TIMEOUT_MS) {
    throw new McpSetupError(
      "invalid-options",
      `${what} timeoutMs must be a positive number of milliseconds up to ${MAX_TIMEOUT_MS}, or Infinity`,
    );
  }
  return value;
}
