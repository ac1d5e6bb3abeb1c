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

/**
 * A short list of names for a message: the first `max` of them, then "…" and how many more. `total` is
 * how many names there are when `names` holds only the first few (`null`: unknown, so no count).
 */
export function listSome(names: readonly string[], max = 8, total: number | null = names.length): string {
  const shown = names.slice(0, max).map((name) => safeText(name, 30));
  if (names.length <= shown.length && (total ?? 0) <= shown.length) return shown.join(", ");
  return total === null ? `${shown.join(", ")}, …` : `${shown.join(", ")}, … (${total - shown.length} more)`;
}
