/**
 * The Streamable HTTP side of `AnswerCheck`: the SDK's `StreamableHTTPClientTransport` parses each
 * message with its schema inside the transport and drops what fails (an SSE event) or fails the send
 * with a schema dump (a JSON body), before any `onmessage` could see it. So the check sits under it, in
 * the `fetch` it is given: each response body (an `application/json` body, or a `text/event-stream`
 * read event by event) has its messages checked, and an answer the SDK would drop is replaced by the
 * error answer `AnswerCheck` makes for its request. A body or an event longer than one message may be
 * (`MAX_MCP_MESSAGE_BYTES`, as over stdio) is read no further than that, and fails the request it
 * answers in its place. Everything else passes through as it came.
 */
import { isPlainObject, MISSING, readOwnData } from "../shared/own-data.js";
import { AnswerCheck, KEPT_ENDS, MAX_MCP_MESSAGE_BYTES, type Message, type RequestId } from "./answer-check.js";
import { cutText, textTail } from "../shared/text.js";

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** The transport's messages going out (its `send`), seen by `check` first: the requests that wait. */
export function watchSent<M, O>(transport: { send(message: M, options?: O): Promise<void> }, check: AnswerCheck): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    check.sent(message);
    return send(message, options);
  };
}

/**
 * A `fetch` whose successful responses have their MCP messages checked by `check`, each at most
 * `limit` bytes (a JSON body, an SSE event): a longer one is read no further than the limit, and fails
 * the request it answers (the request of the POST it answers, else the one its ends name).
 *
 * @example
 * new StreamableHTTPClientTransport(url, { fetch: checkedFetch(check) })
 */
export function checkedFetch(check: AnswerCheck, fetchFn: Fetch = fetch, limit = MAX_MCP_MESSAGE_BYTES): Fetch {
  return async (url, init) => {
    const response = await fetchFn(url, init);
    if (!response.ok || response.body === null) return response;
    const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    const posted = (): RequestId[] => postedRequests(init?.body);
    if (type === "application/json") return replaced(response, await checkedJson(response.body, check, limit, posted));
    if (type === "text/event-stream")
      return replaced(
        response,
        response.body
          .pipeThrough(new TextDecoderStream())
          .pipeThrough(checkedEvents(check, limit, posted))
          .pipeThrough(new TextEncoderStream()),
      );
    return response;
  };
}

/** The ids of the requests a POST sent (its body as the SDK writes it: one JSON-RPC message, or a batch). */
function postedRequests(body: unknown): RequestId[] {
  if (typeof body !== "string") return [];
  let sent: unknown;
  try {
    sent = JSON.parse(body);
  } catch {
    return [];
  }
  const ids: RequestId[] = [];
  for (const message of Array.isArray(sent) ? sent : [sent]) {
    const id = isPlainObject(message) && typeof readOwnData(message, "method") === "string" ? readOwnData(message, "id") : MISSING;
    if (typeof id === "string" || typeof id === "number") ids.push(id);
  }
  return ids;
}

/** The response with another body (its length no longer the one the server sent). */
function replaced(response: Response, body: BodyInit): Response {
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * A JSON body (one message or a batch) with each message checked; a body that is not JSON is left to
 * the SDK. A body over `limit` bytes is read no further: in its place, the error answer for the request
 * it answers (an empty batch when none waits).
 */
async function checkedJson(
  body: ReadableStream<Uint8Array>,
  check: AnswerCheck,
  limit: number,
  posted: () => RequestId[],
): Promise<string> {
  const read = await readUpTo(body, limit);
  if (typeof read !== "string") {
    const checked = check.oversized(read.head, "", posted());
    return "deliver" in checked ? JSON.stringify(checked.deliver) : "[]";
  }
  let data: unknown;
  try {
    data = JSON.parse(read);
  } catch {
    return read;
  }
  const one = (message: unknown): unknown => {
    const checked = check.received(message);
    return "deliver" in checked ? checked.deliver : message;
  };
  return Array.isArray(data) ? JSON.stringify(data.map(one)) : JSON.stringify(one(data));
}

/** A body as text, or (once over `limit` bytes, when reading stops and the rest is cancelled) its start. */
async function readUpTo(body: ReadableStream<Uint8Array>, limit: number): Promise<string | { head: string }> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let length = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    parts.push(read.value);
    length += read.value.byteLength;
    if (length > limit) {
      reader.cancel().catch(() => undefined);
      return { head: cutText(new TextDecoder().decode(joined(parts, KEPT_ENDS)), KEPT_ENDS) };
    }
  }
  return new TextDecoder().decode(joined(parts, length));
}

/** The first `length` bytes of `parts`, as one array. */
function joined(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(
    Math.min(
      length,
      parts.reduce((sum, part) => sum + part.byteLength, 0),
    ),
  );
  let at = 0;
  for (const part of parts) {
    if (at >= out.length) break;
    out.set(part.subarray(0, out.length - at), at);
    at += part.byteLength;
  }
  return out;
}

/**
 * An SSE stream, event by event: a `message` event whose data is an answer the SDK would drop carries
 * our error answer instead. An event is held until its end, up to `limit` bytes of lines: a longer one
 * is not passed on (its start and end are kept, the rest dropped as it comes, so memory stays
 * bounded), and at its end the error answer for the request it answers goes out in its place.
 */
function checkedEvents(check: AnswerCheck, limit: number, posted: () => RequestId[]): TransformStream<string, string> {
  let buffer = "";
  let lines: string[] = [];
  let size = 0;
  /** The event is over the limit: what is kept of it while the rest is dropped, until its end. */
  let over: { head: string; tail: string } | undefined;
  /** Over, and part of the current line is already dropped: the next line end ends that line, not the event. */
  let midLine = false;
  const event = (): string => {
    const kept = lines;
    lines = [];
    size = 0;
    const replacement = replacedData(kept, check);
    if (replacement === undefined) return `${kept.join("\n")}\n\n`;
    return `${[...kept.filter((line) => field(line).name !== "data"), `data: ${JSON.stringify(replacement)}`].join("\n")}\n\n`;
  };
  /**
   * The event goes over the limit. On the stream of a POST whose request still waits, it is that
   * request's answer: it fails now, and the stream is read no further (the server ends a POST's stream
   * with its answer). Else only the event text's start and end are kept (the same wherever chunks end)
   * until its end. Returns the error answer's event, or `undefined` to go on.
   */
  const overflow = (): string | undefined => {
    const expected = posted().filter((id) => check.waiting.has(id));
    if (expected.length > 0) {
      const checked = check.oversized("", "", expected);
      return "deliver" in checked ? `data: ${JSON.stringify(checked.deliver)}\n\n` : "";
    }
    over = { head: "", tail: "" };
    dropped(lines.map((line) => `${line}\n`).join(""));
    lines = [];
    size = 0;
    return undefined;
  };
  const dropped = (text: string): void => {
    if (over!.head.length < 2 * KEPT_ENDS) over!.head += cutText(text, 2 * KEPT_ENDS - over!.head.length);
    over!.tail = textTail(over!.tail + text, KEPT_ENDS);
  };
  /** The oversized event's end: the error answer for its request, if one waits (read from its data's start). */
  const overEnd = (): string => {
    const data = over!.head
      .split("\n")
      .filter((line) => field(line).name === "data")
      .map((line) => field(line).value);
    const checked = check.oversized(cutText(data.join("\n"), KEPT_ENDS), over!.tail, posted());
    over = undefined;
    return "deliver" in checked ? `data: ${JSON.stringify(checked.deliver)}\n\n` : "";
  };
  return new TransformStream({
    transform(chunk, controller) {
      buffer += chunk;
      let out = "";
      const stop = (failed: string): void => {
        controller.enqueue(out + failed);
        controller.terminate();
      };
      // A line ends in \r\n, \n or \r; a \r at the end of the buffer may be the start of a \r\n.
      for (let match = LINE_END.exec(buffer); match !== null; match = LINE_END.exec(buffer)) {
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (over !== undefined) {
          if (line === "" && !midLine) out += overEnd();
          else dropped(`${line}\n`);
          midLine = false;
        } else if (line === "") out += event();
        else {
          lines.push(line);
          size += utf8Length(line);
          const failed = size > limit ? overflow() : undefined;
          if (failed !== undefined) return stop(failed);
        }
      }
      const partial = buffer.endsWith("\r") ? buffer.length - 1 : buffer.length;
      // A partial line longer than the limit in characters is longer in bytes too (its exact size is counted at its end).
      const failed = over === undefined && size + partial > limit ? overflow() : undefined;
      if (failed !== undefined) return stop(failed);
      if (over !== undefined && partial > 0) {
        dropped(buffer.slice(0, partial));
        buffer = buffer.slice(partial);
        midLine = true;
      }
      if (out !== "") controller.enqueue(out);
    },
    flush(controller) {
      // An oversized event the stream cut short still fails its request; another event cut short is
      // passed on as it came (the SDK's parser drops it).
      if (over !== undefined) {
        dropped(buffer);
        const out = overEnd();
        if (out !== "") controller.enqueue(out);
        return;
      }
      const rest = [...lines, ...(buffer === "" ? [] : [buffer])].join("\n");
      if (rest !== "") controller.enqueue(rest);
    },
  });
}

/** The length of `text` in UTF-8 bytes. */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A surrogate pair (4 bytes) is two units here, counted 1 + 1 and 1 + 1 more.
    if (unit >= 0x80) bytes += unit < 0x800 || (unit >= 0xd800 && unit <= 0xdfff) ? 1 : 2;
  }
  return bytes;
}

const LINE_END = /\r\n|\n|\r(?!$)/;

/** The message to send in place of an event's data, or undefined to keep the event as it came. */
function replacedData(lines: readonly string[], check: AnswerCheck): Message | undefined {
  let type = "";
  const data: string[] = [];
  for (const line of lines) {
    const { name, value } = field(line);
    if (name === "event") type = value;
    else if (name === "data") data.push(value);
  }
  if ((type !== "" && type !== "message") || data.length === 0) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(data.join("\n"));
  } catch {
    return undefined;
  }
  const checked = check.received(message);
  return "deliver" in checked && checked.deliver !== message ? checked.deliver : undefined;
}

/** An SSE line's field name and value (one space after the colon dropped); a comment has the name "". */
function field(line: string): { name: string; value: string } {
  const colon = line.indexOf(":");
  if (colon === -1) return { name: line, value: "" };
  const value = line.slice(colon + 1);
  return { name: line.slice(0, colon), value: value.startsWith(" ") ? value.slice(1) : value };
}
