/**
 * A line of a source file with carets under some of its characters, as the command line shows a
 * diagnostic or a JSON syntax error. Apart from the diagnostics' printer, so that the input readers
 * (io.ts) use it without a cycle.
 */
import { LineIndex } from "../shared/positions.js";
import { printable } from "../shared/text.js";
import { CliError } from "./input.js";

/** Widest source line shown; longer lines are cut around the diagnostic. */
const MAX_LINE = 120;

const plain = (text: string): string => text;

/**
 * The command line's error for a JSON file that does not parse: `name:line:column: invalid JSON: why`,
 * with the source line and a caret under the place (as the linter shows its diagnostics).
 *
 * @example
 * jsonSyntaxError("plan.json", "[1,]", { line: 1, column: 3, length: 1 }, "trailing comma") // its excerpt: " 1 | [1,]\n   |   ^\n"
 */
export function jsonSyntaxError(
  name: string,
  text: string,
  at: { readonly line: number; readonly column: number; readonly length: number },
  message: string,
): CliError {
  const line = new LineIndex(text).lineText(at.line);
  const from = Math.min(at.column - 1, line.length);
  const to = Math.min(Math.max(from + 1, from + at.length), Math.max(line.length, from + 1));
  return new CliError(`${name}:${at.line}:${at.column}: ${message}`, "json-syntax", 2, sourceExcerpt(line, at.line, from, to));
}

/**
 * A source line and a caret line under its characters `from`…`to` (0-based, in the line), the
 * linter's way: ` 4 | the line` and `   |     ^^^^`, each ending in a newline, escaped and cut to fit.
 *
 * @example
 * sourceExcerpt("export const = ;", 2, 13, 14) // " 2 | export const = ;\n   |              ^\n"
 */
export function sourceExcerpt(
  source: string,
  lineNumber: number,
  from: number,
  to: number,
  paint: { dim: (text: string) => string; caret: (text: string) => string } = { dim: plain, caret: plain },
): string {
  const shown = excerpt(source, from, to);
  const gutter = String(lineNumber);
  const pad = " ".repeat(gutter.length);
  return `${paint.dim(` ${gutter} |`)} ${shown.text}\n${paint.dim(` ${pad} |`)} ${" ".repeat(shown.caretStart)}${paint.caret("^".repeat(shown.caretWidth))}\n`;
}

/** The part of a source line to show (tabs as two spaces, long lines cut with "…"), and where the carets go. */
function excerpt(source: string, from: number, to: number): { text: string; caretStart: number; caretWidth: number } {
  let begin = 0;
  let finish = source.length;
  if (source.length > MAX_LINE) {
    begin = Math.max(0, from - 40);
    finish = Math.min(source.length, Math.max(begin + MAX_LINE, Math.min(to, from + MAX_LINE)));
  }
  const lead = begin > 0 ? "…" : "";
  const tail = finish < source.length ? "…" : "";
  // Tabs as two spaces; anything else a terminal would act on (a raw U+2028, a bidi override) escaped.
  const widen = (s: string): string => printable(s.replaceAll("\t", "  "));
  const before = lead + widen(source.slice(begin, from));
  const marked = widen(source.slice(from, Math.min(to, finish)));
  return { text: lead + widen(source.slice(begin, finish)) + tail, caretStart: before.length, caretWidth: Math.max(1, marked.length) };
}
