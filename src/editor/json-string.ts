/**
 * JSON string tokens of a document, decoded with a map from each decoded code unit back to its file
 * offset. The decoding is done here, not taken from the JSON parser, so the value and the map always
 * agree, also for the broken or unterminated strings of a document being typed.
 */

/** A decoded string token. */
export interface DecodedString {
  /** The string's value (escapes decoded; an invalid escape is kept as written). */
  readonly value: string;
  /**
   * File offset of each decoded code unit; entry `value.length` is where the content ends (the
   * closing quote, or the token's end when the string is unterminated).
   */
  readonly offsets: Int32Array;
  /** File offset just after the opening quote. */
  readonly contentStart: number;
  /** File offset of the closing quote, or of the token's end when the string is unterminated. */
  readonly contentEnd: number;
}

const ESCAPES: Readonly<Record<string, string>> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * Decode the string token that starts at `start` (its opening quote) and runs at most to `end`.
 *
 * @example
 * decodeStringToken('{"q": "\\u00241"}', 6, 16).value // "$1"
 */
export function decodeStringToken(text: string, start: number, end: number): DecodedString {
  const contentStart = start + 1;
  const limit = Math.min(end, text.length);
  const units: string[] = [];
  const raw: number[] = [];
  let at = contentStart;
  while (at < limit) {
    const char = text[at]!;
    if (char === '"') break;
    if (char === "\\" && at + 1 < limit) {
      const next = text[at + 1]!;
      const simple = Object.hasOwn(ESCAPES, next) ? ESCAPES[next] : undefined;
      if (simple !== undefined) {
        units.push(simple);
        raw.push(at);
        at += 2;
        continue;
      }
      const hex = text.slice(at + 2, at + 6);
      if (next === "u" && at + 6 <= limit && HEX4.test(hex)) {
        units.push(String.fromCharCode(parseInt(hex, 16)));
        raw.push(at);
        at += 6;
        continue;
      }
    }
    units.push(char);
    raw.push(at);
    at += 1;
  }
  const offsets = new Int32Array(raw.length + 1);
  offsets.set(raw);
  offsets[raw.length] = at;
  return { value: units.join(""), offsets, contentStart, contentEnd: at };
}

/**
 * The decoded offset of file offset `fileOffset` inside a decoded string: the code unit that starts at
 * or before it (an offset inside an escape maps to that escape's code unit).
 *
 * @example
 * decodedOffset(decodeStringToken('"\\u0024x"', 0, 9), 7) // 1
 */
export function decodedOffset(decoded: DecodedString, fileOffset: number): number {
  const { offsets } = decoded;
  let low = 0;
  let high = offsets.length - 1;
  if (fileOffset <= offsets[0]!) return 0;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (offsets[mid]! <= fileOffset) low = mid;
    else high = mid - 1;
  }
  return low;
}
