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

/** The longest message a stdio server may send (the SDK's own limit for its read buffer); also the longest SSE event checked. */
export const MAX_MCP_MESSAGE_BYTES = 10 * 1024 * 1024;

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
      return { deliver: this.failure(id, `the MCP server's answer is not a valid JSON-RPC response: ${answerProblem(message as Message)}`) };
    }
    return { problem: `the MCP server sent a message that is not valid JSON-RPC: ${safeText(JSON.stringify(message) ?? String(message), 120)}` };
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
  return typeof value === "object" ? "not a plain object" : `a ${typeof value} (${safeText(String(value), 40)})`;
}
