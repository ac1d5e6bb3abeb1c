/**
 * Helpers that make untrusted text safe to put in an error message: truncated, with control
 * characters and lone surrogates escaped, so a hostile key can neither flood a log nor forge lines.
 */

const DEFAULT_MAX = 60;

/** Escape control characters, quotes and lone surrogates; truncate to `max` characters with an ellipsis. */
export function safeText(text: string, max = DEFAULT_MAX): string {
  const cut = text.length > max ? text.slice(0, max) : text;
  const escaped = JSON.stringify(cut).slice(1, -1);
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
const UNPRINTABLE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]|${LONE_SURROGATE_SOURCE}`, "g");

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
  return text.length > max ? `${printable(text.slice(0, max))}…` : printable(text);
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
