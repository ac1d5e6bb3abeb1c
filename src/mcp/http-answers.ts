/**
 * The Streamable HTTP side of `AnswerCheck`: the SDK's `StreamableHTTPClientTransport` parses each
 * message with its schema inside the transport and drops what fails (an SSE event) or fails the send
 * with a schema dump (a JSON body), before any `onmessage` could see it. So the check sits under it, in
 * the `fetch` it is given: each response body (an `application/json` body, or a `text/event-stream`
 * read event by event) has its messages checked, and an answer the SDK would drop is replaced by the
 * error answer `AnswerCheck` makes for its request. Everything else passes through as it came (an
 * event longer than one stdio message may be, unchecked).
 */
import { AnswerCheck, MAX_MCP_MESSAGE_BYTES, type Message } from "./answer-check.js";

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
 * A `fetch` whose successful responses have their MCP messages checked by `check` (SSE events of up
 * to `limit` characters).
 *
 * @example
 * new StreamableHTTPClientTransport(url, { fetch: checkedFetch(check) })
 */
export function checkedFetch(check: AnswerCheck, fetchFn: Fetch = fetch, limit = MAX_MCP_MESSAGE_BYTES): Fetch {
  return async (url, init) => {
    const response = await fetchFn(url, init);
    if (!response.ok || response.body === null) return response;
    const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "application/json") return replaced(response, checkedJson(await response.text(), check));
    if (type === "text/event-stream") return replaced(response, response.body.pipeThrough(new TextDecoderStream()).pipeThrough(checkedEvents(check, limit)).pipeThrough(new TextEncoderStream()));
    return response;
  };
}

/** The response with another body (its length no longer the one the server sent). */
function replaced(response: Response, body: BodyInit): Response {
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** A JSON body (one message or a batch) with each message checked; a body that is not JSON is left to the SDK. */
function checkedJson(text: string, check: AnswerCheck): string {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return text;
  }
  const one = (message: unknown): unknown => {
    const checked = check.received(message);
    return "deliver" in checked ? checked.deliver : message;
  };
  return Array.isArray(data) ? JSON.stringify(data.map(one)) : JSON.stringify(one(data));
}

/**
 * An SSE stream, event by event: a `message` event whose data is an answer the SDK would drop carries
 * our error answer instead. An event is held until its end, up to `limit` characters of lines: a longer
 * one is passed on as it comes, unchecked (the SDK reads it as before), so memory stays bounded.
 */
function checkedEvents(check: AnswerCheck, limit: number): TransformStream<string, string> {
  let buffer = "";
  let lines: string[] = [];
  let size = 0;
  /** The event is over the limit: its lines go out as they come, until its end. */
  let passing = false;
  /** Passing, and part of the current line is already out: the next line end ends that line, not the event. */
  let midLine = false;
  const event = (): string => {
    const kept = lines;
    lines = [];
    size = 0;
    const replacement = replacedData(kept, check);
    if (replacement === undefined) return `${kept.join("\n")}\n\n`;
    return `${[...kept.filter((line) => field(line).name !== "data"), `data: ${JSON.stringify(replacement)}`].join("\n")}\n\n`;
  };
  /** Start passing the event on: what is held goes out now. */
  const pass = (): string => {
    passing = true;
    const out = lines.map((line) => `${line}\n`).join("");
    lines = [];
    size = 0;
    return out;
  };
  return new TransformStream({
    transform(chunk, controller) {
      buffer += chunk;
      let out = "";
      // A line ends in \r\n, \n or \r; a \r at the end of the buffer may be the start of a \r\n.
      for (let match = LINE_END.exec(buffer); match !== null; match = LINE_END.exec(buffer)) {
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (passing) {
          out += `${line}\n`;
          if (line === "" && !midLine) passing = false;
          midLine = false;
        } else if (line === "") out += event();
        else {
          lines.push(line);
          size += line.length;
          if (size > limit) out += pass();
        }
      }
      const partial = buffer.endsWith("\r") ? buffer.length - 1 : buffer.length;
      if (!passing && size + partial > limit) out += pass();
      if (passing && partial > 0) {
        out += buffer.slice(0, partial);
        buffer = buffer.slice(partial);
        midLine = true;
      }
      if (out !== "") controller.enqueue(out);
    },
    flush(controller) {
      // An event the stream cut short is passed on as it came (the SDK's parser drops it).
      const rest = [...lines, ...(buffer === "" ? [] : [buffer])].join("\n");
      if (rest !== "") controller.enqueue(rest);
    },
  });
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
