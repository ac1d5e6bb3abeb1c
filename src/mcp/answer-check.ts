/**
 * The one check both transports of `connectMcp` (stdio, Streamable HTTP) make of each message a server
 * sends, before the SDK sees it. The SDK drops a message its JSON-RPC schema refuses (over stdio it
 * reports it to `onerror`; over HTTP it throws it away inside the transport), so a request whose answer
 * has the wrong shape (a `result` that is not an object) would wait for its timeout, and then say the
 * server did not answer. An answer to a request still waiting is replaced by an error answer of ours
 * that names what was wrong (its `data` is `TRANSPORT_FAILURE`), and that request fails at once.
 */
import { isPlainObject, MISSING, readOwnData } from "../shared/own-data.js";
import { safeText } from "../shared/text.js";
import { TRANSPORT_FAILURE } from "./errors.js";

/**
 * The longest message a server may send, in bytes (the SDK's own limit for its stdio read buffer):
 * over stdio a line, over Streamable HTTP a JSON body or an SSE event. A longer answer fails the one
 * request it answers, and reading it stops there.
 */
export const MAX_MCP_MESSAGE_BYTES = 10 * 1024 * 1024;

/** How much of an oversized message's start and end is kept to find the request it answers. */
export const KEPT_ENDS = 512;

/** What an answer over the limit is told as. */
const OVERSIZED = `the MCP server's answer is larger than the ${MAX_MCP_MESSAGE_BYTES / 1024 / 1024} MiB limit of one message`;

export type Message = Record<string, unknown>;
export type RequestId = string | number;

/** The SDK's JSON-RPC message schema (`JSONRPCMessageSchema` of its `types.js`), as used here. */
export interface MessageSchema {
  safeParse(value: unknown): { success: boolean };
}

/** What to do with a message received: deliver it (the message itself, or an error answer in its place), or report it. */
export type Checked = { readonly deliver: Message } | { readonly problem: string };

/** The requests of one connection that wait for their answers, and the check of each message received. */
export class AnswerCheck {
  /** Requests sent and not yet answered: an unusable answer can only fail one of these. */
  readonly #waiting = new Set<RequestId>();

  constructor(readonly schema: MessageSchema) {}

  /** The requests still waiting. */
  get waiting(): ReadonlySet<RequestId> {
    return this.#waiting;
  }

  /** A message is being sent: a request starts waiting, a cancellation (timed out, aborted) ends one. */
  sent(message: unknown): void {
    if (!isPlainObject(message)) return;
    const id = readOwnData(message, "id");
    const method = readOwnData(message, "method");
    if (isRequestId(id) && typeof method === "string") this.#waiting.add(id);
    if (method === "notifications/cancelled") {
      const params = readOwnData(message, "params");
      const cancelled = isPlainObject(params) ? readOwnData(params, "requestId") : MISSING;
      if (isRequestId(cancelled)) this.#waiting.delete(cancelled);
    }
  }

  /** A message received (parsed JSON): delivered as it is when the SDK will take it, else an error answer for its request, else a problem to report. */
  received(message: unknown): Checked {
    if (this.schema.safeParse(message).success) {
      const id = isPlainObject(message) && !Object.hasOwn(message, "method") ? readOwnData(message, "id") : MISSING;
      if (isRequestId(id)) this.#waiting.delete(id);
      return { deliver: message as Message };
    }
    const id = isPlainObject(message) ? readOwnData(message, "id") : MISSING;
    if (isRequestId(id) && this.#waiting.has(id) && !Object.hasOwn(message as object, "method")) {
      return {
        deliver: this.failure(id, `the MCP server's answer is not a valid JSON-RPC response: ${answerProblem(message as Message)}`),
      };
    }
    return {
      problem: `the MCP server sent a message that is not valid JSON-RPC: ${safeText(JSON.stringify(message) ?? String(message), 120)}`,
    };
  }

  /**
   * A message over `MAX_MCP_MESSAGE_BYTES`, of which only its start and end (`KEPT_ENDS` each) were
   * kept: an error answer for the request it answers (the first of `expected` still waiting, when the
   * transport knows which requests it can answer; else the one its ends name), or a problem to report.
   */
  oversized(head: string, tail: string, expected: readonly RequestId[] = []): Checked {
    const id = expected.find((one) => this.#waiting.has(one)) ?? answeredId(head, tail, this.#waiting);
    if (id !== undefined) return { deliver: this.failure(id, OVERSIZED) };
    return { problem: `${OVERSIZED} (and the request it answers could not be told, so it waits for its timeout)` };
  }

  /** An error answer of ours for request `id`: its caller fails at once with `problem`. */
  failure(id: RequestId, problem: string): Message {
    this.#waiting.delete(id);
    return { jsonrpc: "2.0", id, error: { code: -32603, message: problem, data: TRANSPORT_FAILURE } };
  }

  /** The connection is over: nothing waits any more. */
  clear(): void {
    this.#waiting.clear();
  }
}

/**
 * The request an oversized message answers: its `"id"` is read from the message's start (`{"jsonrpc":"2.0","id":7,…`,
 * as most servers write it) or its end (`…,"id":7}`, as the TypeScript SDK writes it), and must be a
 * request still waiting. Undefined when neither tells.
 */
function answeredId(head: string, tail: string, waiting: ReadonlySet<RequestId>): RequestId | undefined {
  const ID = String.raw`"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")`;
  const found = [
    new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?${ID}`).exec(head),
    new RegExp(String.raw`,\s*${ID}\s*\}\s*$`).exec(tail.replace(/\r$/, "")),
  ];
  for (const match of found) {
    if (match === null) continue;
    let id: unknown;
    try {
      id = JSON.parse(match[1]!);
    } catch {
      continue;
    }
    if (isRequestId(id) && waiting.has(id)) return id;
  }
  if (waiting.size === 1) return [...waiting][0];
  return undefined;
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || typeof value === "number";
}

/** What is wrong with a response the SDK's schema refuses. */
function answerProblem(message: Message): string {
  const result = readOwnData(message, "result");
  const error = readOwnData(message, "error");
  if (result !== MISSING) {
    if (!isPlainObject(result)) return `its "result" is ${describeValue(result)}, not an object`;
    return `its "result" has the wrong shape`;
  }
  if (error !== MISSING) return `its "error" is not an object with a number "code" and a string "message"`;
  return `it has neither "result" nor "error"`;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string`;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return `a ${typeof value} (${safeText(String(value), 40)})`;
  return typeof value === "object" ? "not a plain object" : `a ${typeof value}`;
}
