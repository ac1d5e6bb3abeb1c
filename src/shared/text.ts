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

/** `safeText` inside double quotes. */
export function quoted(text: string, max = DEFAULT_MAX): string {
  return `"${safeText(text, max)}"`;
}

/** A short list of names for a message: the first `max` of them, then "…" and how many more. */
export function listSome(names: readonly string[], max = 8): string {
  const shown = names.slice(0, max).map((name) => safeText(name, 30));
  const more = names.length - shown.length;
  return more > 0 ? `${shown.join(", ")}, … (${more} more)` : shown.join(", ");
}
