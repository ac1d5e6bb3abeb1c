/**
 * Offsets to lines and columns, for the edges (CLI messages, LSP ranges). Lines and columns are
 * 1-based; columns count UTF-16 code units, as editors do.
 */
import type { Position, Range, Span } from "./span.js";

/** Line starts of a text, computed once, for repeated offset lookups. */
export class LineIndex {
  readonly #starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 10 || (code === 13 && text.charCodeAt(i + 1) !== 10)) this.#starts.push(i + 1);
    }
  }

  /** The 1-based line and column of an offset (clamped into the text). */
  position(offset: number): Position {
    const at = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.#starts[mid]! <= at) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: at - this.#starts[low]! + 1 };
  }

  /** The range of a span. */
  range(span: Span): Range {
    return { start: this.position(span.start), end: this.position(span.end) };
  }

  /** The offset of a 1-based line and column (clamped into the text). */
  offset(position: Position): number {
    const start = this.#starts[Math.max(0, Math.min(position.line - 1, this.#starts.length - 1))]!;
    return Math.min(this.text.length, start + Math.max(0, position.column - 1));
  }

  /** The text of a 1-based line, without its line break. */
  lineText(line: number): string {
    const start = this.#starts[line - 1];
    if (start === undefined) return "";
    const next = this.#starts[line];
    return this.text.slice(start, next === undefined ? this.text.length : next).replace(/\r?\n$|\r$/, "");
  }
}
