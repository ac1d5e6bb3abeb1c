/**
 * Helpers that make untrusted text safe to put in an error message: truncated, with control
 * characters and lone surrogates escaped, so a hostile key can neither flood a log nor forge lines.
 */
import { isPlainObject } from "./own-data.js";

const DEFAULT_MAX = 60;

/** Whether a UTF-16 code unit is the first half of a surrogate pair. */
function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** Whether a UTF-16 code unit is the second half of a surrogate pair. */
function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/**
 * The one way a text is cut, for every message and excerpt: itself when it has at most `max` UTF-16
 * code units, else its first `max` (one fewer when the last would be the first half of a surrogate
 * pair, so that no character is split and no lone surrogate is made) followed by `marker`.
 *
 * @example
 * cutText("abcdef", 3)      // "abc"
 * cutText("abcdef", 3, "…") // "abc…"
 * cutText("ab😀", 3, "…")   // "ab…" (not "ab\ud83d…")
 */
export function cutText(text: string, max: number, marker = ""): string {
  if (!(text.length > max)) return text;
  let end = Math.max(0, Math.floor(max));
  if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) end -= 1;
  return `${text.slice(0, end)}${marker}`;
}

/**
 * The end of a text, the way `cutText` keeps its start: its last `max` UTF-16 code units at most,
 * one fewer when the first would be the second half of a surrogate pair.
 *
 * @example
 * textTail("abcdef", 3) // "def"
 * textTail("😀ab", 3)   // "ab"
 */
export function textTail(text: string, max: number): string {
  if (!(text.length > max)) return text;
  let start = text.length - Math.max(0, Math.floor(max));
  if (start < text.length && isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))) start += 1;
  return text.slice(start);
}

/** Escape control characters, quotes and lone surrogates; cut (`cutText`) to `max` characters with an ellipsis. */
export function safeText(text: string, max = DEFAULT_MAX): string {
  const escaped = JSON.stringify(cutText(text, max)).slice(1, -1);
  return text.length > max ? `${escaped}…` : escaped;
}

/** Half of a UTF-16 surrogate pair with no other half: not Unicode text (UTF-8, and so PostgreSQL, cannot hold it). */
const LONE_SURROGATE_SOURCE = "[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]";
const LONE_SURROGATE = new RegExp(LONE_SURROGATE_SOURCE);

/**
 * Whether a string holds a lone surrogate (half of a UTF-16 pair).
 *
 * @example
 * hasLoneSurrogate("\ud83d") // true
 * hasLoneSurrogate("😀")     // false
 */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/**
 * C0 controls, DEL, C1 controls (U+009B is a one-byte CSI on some terminals), the Unicode line and
 * paragraph separators, bidirectional overrides and lone surrogates: what a terminal acts on, and what
 * could reorder or forge the text of a label in a picture.
 */
const UNPRINTABLE = new RegExp(
  `[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]|${LONE_SURROGATE_SOURCE}`,
  "g",
);

/**
 * One line of text, safe to show: every character a terminal acts on (and every bidirectional
 * override) is written as an escape (`safeText`'s, JSON's `\n`, `\u001b`); everything else, quotes
 * and backslashes included, is left as written. The command line prints with it; `plan-refs/draw`
 * labels with it.
 *
 * @example
 * printable("boom\nplan-refs: ok") // "boom\\nplan-refs: ok"
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (character) => {
    const escaped = safeText(character, 1);
    // JSON leaves DEL, C1 controls and the separators as they are: write those as \uXXXX.
    return escaped === character ? `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}` : escaped;
  });
}

/**
 * Text shown as it is written (code, JSON: quotes and backslashes kept), safe to print (`printable`)
 * and cut to `max` characters with an ellipsis.
 *
 * @example
 * excerpt('{"a":[1]}')         // '{"a":[1]}'
 * excerpt("$1.aaaaaaaaaaaa", 5) // "$1.aa…"
 */
export function excerpt(text: string, max = DEFAULT_MAX): string {
  return text.length > max ? `${printable(cutText(text, max))}…` : printable(text);
}

/** `safeText` inside double quotes. */
export function quoted(text: string, max = DEFAULT_MAX): string {
  return `"${safeText(text, max)}"`;
}

/**
 * A short list of names for a message: the first `max` of them, then "…" and how many more. `total` is
 * how many names there are when `names` holds only the first few (`null`: unknown, so no count).
 */
export function listSome(names: readonly string[], max = 8, total: number | null = names.length): string {
  const shown = names.slice(0, max).map((name) => safeText(name, 30));
  if (names.length <= shown.length && (total ?? 0) <= shown.length) return shown.join(", ");
  return total === null ? `${shown.join(", ")}, …` : `${shown.join(", ")}, … (${total - shown.length} more)`;
}

/** `n` and a noun, with the noun's plural when `n` is not 1. */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/**
 * A value's kind in a few words, for a message that says what was found instead of what was wanted:
 * its `typeof`, and of an object whether it is an array, a Map, a Date, plain data (an object whose
 * prototype is `Object.prototype` or `null`, the only kind whose keys plan-refs reads) or a class
 * instance. Nothing of its content; no getter or trap runs but `Array.isArray` and the prototype's.
 *
 * @example
 * valueKind(new Map()) // "a Map"
 * valueKind(new (class Point {})()) // "a class instance"
 * valueKind([1, 2]) // "an array"
 */
export function valueKind(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "undefined":
      return "undefined";
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "bigint":
      return "a bigint";
    case "symbol":
      return "a symbol";
    case "function":
      return "a function";
    default: // an object
      try {
        if (Array.isArray(value)) return "an array";
        if (value instanceof Map) return "a Map";
        if (value instanceof Date) return "a Date";
        return isPlainObject(value) ? "an object" : "a class instance";
      } catch {
        return "an unreadable object"; // a revoked Proxy, or one whose getPrototypeOf trap throws
      }
  }
}

/**
 * What a message may say of a value it must not quote (a span's copy of a message while content is
 * not recorded): its kind (`valueKind`, with "no value" for `undefined`) and the size of a string, an
 * array or a plain object, never any of its content.
 *
 * @example
 * valueShape("sk-SECRET-0123456789") // "a string of 20 characters"
 * valueShape({ a: 1, b: 2, c: 3 })    // "an object with 3 keys"
 * valueShape(42)                      // "a number"
 */
export function valueShape(value: unknown): string {
  if (value === undefined) return "no value";
  if (typeof value === "string") return value === "" ? "an empty string" : `a string of ${counted(value.length, "character")}`;
  const kind = valueKind(value);
  try {
    if (kind === "an array")
      return (value as unknown[]).length === 0 ? "an empty array" : `an array of ${counted((value as unknown[]).length, "item")}`;
    if (kind === "an object") {
      const keys = Object.keys(value as object).length;
      return keys === 0 ? "an empty object" : `an object with ${counted(keys, "key")}`;
    }
  } catch {
    // A Proxy whose trap throws: its kind alone.
  }
  return kind;
}
