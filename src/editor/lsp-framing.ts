/**
 * The framing guard of the language server's input. An LSP message is a header block (lines ending in
 * CRLF, one `Content-Length: <bytes>`, an empty line) and then that many bytes of JSON. The reader of
 * vscode-jsonrpc trusts the header: a `Content-Length` that is not a number is an error it reports to
 * no one, a negative one or 10^9 makes it wait for a body that never comes, and headers ending in a
 * bare LF are never seen to end, so the server went silent until stdin closed.
 *
 * This guard sits between stdin and that reader. Valid messages pass through unchanged, byte for byte.
 * A malformed header block is reported in one line (through `report`, the CLI's stderr) and skipped,
 * together with whatever follows it, up to the next `Content-Length:`: the server keeps serving the
 * messages after it. (Decided over exiting: a client that sent one bad frame still gets answers, and
 * the line says what was wrong.)
 *
 * Node only (streams).
 */
import { Transform, type Readable, type TransformCallback } from "node:stream";
import { quoted } from "../shared/text.js";

/** The largest message body accepted (64 MiB): a larger `Content-Length` is reported and skipped, never waited for. */
export const MAX_CONTENT_LENGTH = 64 * 1024 * 1024;

/** The longest header block accepted (8 KiB): a block that has not ended by then is malformed. */
export const MAX_HEADER_BYTES = 8 * 1024;

/** Framing errors reported at most (then one line saying that further ones are not), so a broken client cannot flood the log. */
export const MAX_FRAMING_REPORTS = 20;

const CRLFCRLF = Buffer.from("\r\n\r\n");
const NAME = "content-length:";
const CONTENT_LENGTH = /^[0-9]+$/;

/**
 * `input` with every malformed LSP header block reported through `report` (one line each, escaped)
 * and skipped up to the next `Content-Length:`; valid messages pass through unchanged. The returned
 * stream ends when `input` ends.
 *
 * @example
 * createConnection(guardFraming(process.stdin, (line) => process.stderr.write(`${line}\n`)), process.stdout)
 */
export function guardFraming(input: Readable, report: (line: string) => void): Readable {
  const guard = new FramingGuard(report);
  input.on("error", (error) => guard.destroy(error));
  return input.pipe(guard);
}

type State = { readonly kind: "header" } | { readonly kind: "body"; remaining: number } | { readonly kind: "skip" };

/** The state machine: header bytes are gathered and checked, bodies passed on, junk skipped. */
class FramingGuard extends Transform {
  readonly #report: (line: string) => void;
  #state: State = { kind: "header" };
  /** Header bytes gathered so far (state header), or the tail kept while skipping (a name split across chunks). */
  #pending: Buffer = Buffer.alloc(0);
  #reports = 0;

  constructor(report: (line: string) => void) {
    super();
    this.#report = report;
  }

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      this.#take(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
      done();
    } catch (error) {
      done(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #take(chunk: Buffer): void {
    let data = chunk;
    while (data.length > 0) {
      const state = this.#state;
      if (state.kind === "body") {
        const n = Math.min(state.remaining, data.length);
        this.push(data.subarray(0, n));
        state.remaining -= n;
        data = data.subarray(n);
        if (state.remaining === 0) this.#state = { kind: "header" };
      } else if (state.kind === "header") {
        data = this.#header(data);
      } else {
        data = this.#skip(data);
      }
    }
  }

  /** Gather a header block; pass it on when it is valid, else report it and skip. Returns the bytes left. */
  #header(data: Buffer): Buffer {
    const start = this.#pending.length;
    const block = start === 0 ? data : Buffer.concat([this.#pending, data]);
    const end = block.indexOf(CRLFCRLF, Math.max(0, start - 3));
    // A bare LF ends no header line: report it as soon as it is seen rather than wait for a CRLF CRLF
    // that may never come. (The bytes gathered before had none.)
    for (let lf = block.indexOf(0x0a, Math.max(0, start - 1)); lf >= 0 && (end < 0 || lf < end); lf = block.indexOf(0x0a, lf + 1)) {
      if (lf === 0 || block[lf - 1] !== 0x0d) return this.#malformed(block, lf + 1, "header lines must end with CRLF, not a bare LF");
    }
    if (end < 0) {
      if (block.length > MAX_HEADER_BYTES) return this.#malformed(block, 1, `the header block is longer than ${MAX_HEADER_BYTES} bytes`);
      this.#pending = block;
      return Buffer.alloc(0);
    }
    const headerEnd = end + CRLFCRLF.length;
    // Past the limit the block's end is not known (it may be a later message's): resume right after its start.
    if (headerEnd > MAX_HEADER_BYTES) return this.#malformed(block, 1, `the header block is longer than ${MAX_HEADER_BYTES} bytes`);
    const checked = checkHeaders(block.subarray(0, end).toString("latin1"));
    // A bad Content-Length makes the block one bad message: skip all of it. Otherwise it may be junk
    // glued to the front of a message: skip from its second byte, so the message after it is found.
    if (!checked.ok) return this.#malformed(block, checked.whole ? headerEnd : 1, checked.why);
    this.#pending = Buffer.alloc(0);
    this.push(block.subarray(0, headerEnd));
    if (checked.length > 0) this.#state = { kind: "body", remaining: checked.length };
    return block.subarray(headerEnd);
  }

  /**
   * Report a malformed header block (`block` starts with it; `why` is already escaped) and skip, from `resume` on, to the next
   * `Content-Length:`.
   */
  #malformed(block: Buffer, resume: number, why: string): Buffer {
    if (this.#reports < MAX_FRAMING_REPORTS) {
      this.#report(`plan-refs lsp: malformed message header (${why}); skipped up to the next Content-Length header`);
    } else if (this.#reports === MAX_FRAMING_REPORTS) {
      this.#report(`plan-refs lsp: more than ${MAX_FRAMING_REPORTS} malformed message headers; further ones are skipped without a report`);
    }
    this.#reports++;
    this.#pending = Buffer.alloc(0);
    this.#state = { kind: "skip" };
    return block.subarray(resume);
  }

  /** Drop bytes up to the next `Content-Length:` (any case); keep a tail that may be the start of one. */
  #skip(data: Buffer): Buffer {
    const block = this.#pending.length === 0 ? data : Buffer.concat([this.#pending, data]);
    const at = indexOfName(block);
    if (at < 0) {
      this.#pending = Buffer.from(block.subarray(Math.max(0, block.length - (NAME.length - 1))));
      return Buffer.alloc(0);
    }
    this.#pending = Buffer.alloc(0);
    this.#state = { kind: "header" };
    return block.subarray(at);
  }
}

/**
 * The header lines of a block (without its final CRLF CRLF): the content length, or what is wrong
 * (escaped) and whether the block is one bad message to skip whole (its Content-Length is bad) or may
 * be junk glued to the front of a message (a line that is not a header, no Content-Length).
 */
function checkHeaders(
  text: string,
): { readonly ok: true; readonly length: number } | { readonly ok: false; readonly why: string; readonly whole: boolean } {
  let length: number | undefined;
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) return { ok: false, why: `header line ${quoted(line, 40)} is not "name: value"`, whole: false };
    if (line.slice(0, colon).trim().toLowerCase() !== "content-length") continue;
    const value = line.slice(colon + 1).trim();
    const fail = (why: string) => ({ ok: false as const, why, whole: true });
    if (length !== undefined) return fail("more than one Content-Length header");
    if (!CONTENT_LENGTH.test(value)) return fail(`Content-Length ${quoted(value, 40)} is not a non-negative whole number`);
    const n = Number(value);
    if (n > MAX_CONTENT_LENGTH) return fail(`Content-Length ${quoted(value, 20)} is over the limit of ${MAX_CONTENT_LENGTH} bytes`);
    length = n;
  }
  return length === undefined ? { ok: false, why: "no Content-Length header", whole: false } : { ok: true, length };
}

/** Where `content-length:` starts in `bytes`, compared without case, or -1. */
function indexOfName(bytes: Buffer): number {
  const first = [0x43, 0x63]; // "C", "c"
  for (let i = 0; i + NAME.length <= bytes.length; i++) {
    if (!first.includes(bytes[i]!)) continue;
    let match = true;
    for (let j = 1; j < NAME.length; j++) {
      const c = bytes[i + j]!;
      if ((c >= 0x41 && c <= 0x5a ? c + 0x20 : c) !== NAME.charCodeAt(j)) {
        match = false;
        break;
      }
    }
    if (match) return i;
  }
  return -1;
}
