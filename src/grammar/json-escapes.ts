/**
 * JSON string escapes and file offsets: the decoded value of a JSON string token's content and the
 * file offset of each decoded code unit, so that a place in a decoded string (a diagnostic's span, the
 * editor's cursor) maps to the characters of the file and back. The one decoder below the linter's
 * positions (lint/text-positions.ts) and the editor's strings (editor/json-string.ts). It tolerates the
 * broken or unterminated strings of a document being typed: an invalid escape is kept as written.
 */
import { BACKSLASH, LOWER_U, QUOTE } from "./tokens.js";

/** The one-character escapes, by the character after the backslash. */
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** A string token's content, decoded. */
export interface DecodedContent {
  /** The value (escapes decoded; an invalid escape kept as written). */
  readonly value: string;
  /** File offset of each decoded code unit; entry `value.length` is `end`. */
  readonly offsets: Int32Array;
  /** Where the content ends: the closing quote, or `limit` when the string is unterminated. */
  readonly end: number;
}

/**
 * Decode a JSON string's content from `start` (just after its opening quote) to its closing quote, at
 * most to `limit`.
 *
 * @example
 * decodeJsonContent('"\\u00241"', 1, 9).value   // "$1"
 * decodeJsonContent('"\\u00241"', 1, 9).offsets // Int32Array [1, 7, 8]
 */
export function decodeJsonContent(text: string, start: number, limit: number): DecodedContent {
  const units: string[] = [];
  const raw: number[] = [];
  let at = start;
  while (at < limit) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) break;
    if (code === BACKSLASH && at + 1 < limit) {
      const next = text[at + 1]!;
      const simple = Object.hasOwn(ESCAPES, next) ? ESCAPES[next] : undefined;
      if (simple !== undefined) {
        units.push(simple);
        raw.push(at);
        at += 2;
        continue;
      }
      const hex = text.slice(at + 2, at + 6);
      if (text.charCodeAt(at + 1) === LOWER_U && at + 6 <= limit && HEX4.test(hex)) {
        units.push(String.fromCharCode(parseInt(hex, 16)));
        raw.push(at);
        at += 6;
        continue;
      }
    }
    units.push(text[at]!);
    raw.push(at);
    at += 1;
  }
  const offsets = new Int32Array(raw.length + 1);
  offsets.set(raw);
  offsets[raw.length] = at;
  return { value: units.join(""), offsets, end: at };
}
