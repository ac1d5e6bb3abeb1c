/**
 * JSON string tokens of a document, decoded with a map from each decoded code unit back to its file
 * offset. The decoding is done here, not taken from the JSON parser, so the value and the map always
 * agree, also for the broken or unterminated strings of a document being typed (the decoder is
 * grammar/json-escapes.ts, shared with the linter's positions).
 */
import { decodeJsonContent } from "../grammar/json-escapes.js";

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

/**
 * Decode the string token that starts at `start` (its opening quote) and runs at most to `end`.
 *
 * @example
 * decodeStringToken('{"q": "\\u00241"}', 6, 16).value // "$1"
 */
export function decodeStringToken(text: string, start: number, end: number): DecodedString {
  const contentStart = start + 1;
  const { value, offsets, end: contentEnd } = decodeJsonContent(text, contentStart, Math.min(end, text.length));
  return { value, offsets, contentStart, contentEnd };
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
