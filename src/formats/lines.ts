/**
 * Source text into lines, for every converter and both forms: text comes in chunks (a whole text is
 * one chunk), a line ends at `\n` (a `\r` before it is dropped), and the limits are checked once here:
 * a line longer than `MAX_PLAN_LINE_LENGTH` (its `\r` not counted, wherever the chunks end) is
 * reported and skipped to its end; text past `MAX_PLAN_TEXT_LENGTH` is reported once and dropped,
 * with the line it cuts.
 */
import { MAX_PLAN_LINE_LENGTH, MAX_PLAN_TEXT_LENGTH, reportLongLine, reportLongText, type Conversion, type SourceLine } from "./convert.js";
import { cutText } from "../shared/text.js";

/**
 * Splits text into `SourceLine`s as its chunks come.
 *
 * @example
 * const lines = new LineSplitter(conversion);
 * for (const line of lines.push("1. a()\r\n2. b(")) read(line); // "1. a()"
 * for (const line of lines.end()) read(line); // "2. b("
 */
export class LineSplitter {
  /** The current line's text so far (empty while a line over the limit is skipped). */
  #pending = "";
  #lineStart = 0;
  #line = 1;
  #skipping = false;
  #total = 0;
  #cut = false;

  constructor(private readonly conversion: Conversion) {}

  /** Whether the text limit was reached: nothing more is read. */
  get cut(): boolean {
    return this.#cut;
  }

  /** Where the next character would go: offset, line and column (for a problem with a chunk). */
  get position(): { offset: number; line: number; column: number } {
    return { offset: this.#total, line: this.#line, column: this.#total - this.#lineStart + 1 };
  }

  /** The lines `chunk` completes, in order. */
  *push(chunk: string): Generator<SourceLine> {
    if (this.#cut) return;
    const over = this.#total + chunk.length > MAX_PLAN_TEXT_LENGTH;
    const piece = over ? cutText(chunk, MAX_PLAN_TEXT_LENGTH - this.#total) : chunk;
    const base = this.#total;
    this.#total += piece.length;
    let from = 0;
    for (let at = piece.indexOf("\n"); at !== -1; at = piece.indexOf("\n", from)) {
      const line = this.#finish(piece.slice(from, at));
      from = at + 1;
      this.#lineStart = base + from;
      this.#line++;
      if (line !== undefined) yield line;
    }
    if (!over) this.#take(piece.slice(from));
    else {
      // The line the limit cuts is left out.
      this.#cut = true;
      this.#pending = "";
      const { offset, line, column } = this.position;
      reportLongText(this.conversion, offset, line, column);
    }
  }

  /** The last line, when the text does not end with a line break. */
  *end(): Generator<SourceLine> {
    if (this.#cut || this.#skipping || this.#pending === "") return;
    const line = this.#finish("");
    this.#pending = "";
    if (line !== undefined) yield line;
  }

  /** The current line ends with `text`: the line, or undefined when it was over the limit. */
  #finish(text: string): SourceLine | undefined {
    if (this.#skipping) {
      this.#skipping = false;
      return undefined;
    }
    const whole = this.#pending + text;
    this.#pending = "";
    const body = whole.endsWith("\r") ? whole.slice(0, -1) : whole;
    const source = { text: body, line: this.#line, offset: this.#lineStart };
    if (body.length <= MAX_PLAN_LINE_LENGTH) return source;
    reportLongLine(this.conversion, source);
    return undefined;
  }

  /** Text of the current line with no line break in it yet. */
  #take(text: string): void {
    if (this.#skipping || text === "") return;
    this.#pending += text;
    // A last `\r` may be the start of the `\r\n` that ends the line: it does not count yet.
    const length = this.#pending.length - (this.#pending.endsWith("\r") ? 1 : 0);
    if (length <= MAX_PLAN_LINE_LENGTH) return;
    reportLongLine(this.conversion, { text: this.#pending, line: this.#line, offset: this.#lineStart });
    this.#skipping = true;
    this.#pending = "";
  }
}
