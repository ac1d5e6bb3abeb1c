/**
 * Printing a schema (or any value from a caller's catalog) as indented JSON for a hover, safely:
 * own data properties only (no getter is called), cycles and depth cut, and the text bounded, so a
 * hostile or huge catalog cannot hang or crash the editor.
 */
import { ownData as own } from "../shared/own-data.js";
import { cutText } from "../shared/text.js";

/** Longest text `safeJson` returns by default. */
export const DEFAULT_JSON_LENGTH = 4_000;
const MAX_DEPTH = 24;

/**
 * Indented JSON of `value`, at most about `maxLength` characters (cut with `…`). Never throws.
 *
 * @example
 * safeJson({ type: "string" }) // '{\n  "type": "string"\n}'
 */
export function safeJson(value: unknown, maxLength = DEFAULT_JSON_LENGTH): string {
  const parts: string[] = [];
  let length = 0;
  const seen = new Set<object>();
  const emit = (text: string): boolean => {
    parts.push(text);
    length += text.length;
    return length <= maxLength;
  };

  const write = (item: unknown, indent: string, depth: number): boolean => {
    if (item === null || typeof item === "boolean") return emit(String(item));
    if (typeof item === "number") return emit(Number.isFinite(item) ? String(item) : "null");
    if (typeof item === "string") return emit(JSON.stringify(item));
    if (typeof item === "bigint") return emit(String(item));
    if (typeof item !== "object") return emit("null");
    if (seen.has(item) || depth >= MAX_DEPTH) return emit(Array.isArray(item) ? "[…]" : "{…}");
    seen.add(item);
    const inner = `${indent}  `;
    let ok = true;
    if (Array.isArray(item)) {
      if (item.length === 0) ok = emit("[]");
      else {
        ok = emit("[\n");
        for (let i = 0; ok && i < item.length; i++) {
          ok = emit(inner) && write(own(item, String(i)), inner, depth + 1) && emit(i < item.length - 1 ? ",\n" : `\n${indent}]`);
        }
      }
    } else {
      const keys = Object.keys(item);
      if (keys.length === 0) ok = emit("{}");
      else {
        ok = emit("{\n");
        keys.forEach((key, i) => {
          ok =
            ok &&
            emit(`${inner}${JSON.stringify(key)}: `) &&
            write(own(item, key), inner, depth + 1) &&
            emit(i < keys.length - 1 ? ",\n" : `\n${indent}}`);
        });
      }
    }
    seen.delete(item);
    return ok;
  };

  try {
    if (!write(value, "", 0)) return cutText(parts.join(""), maxLength, "…");
    return parts.join("");
  } catch {
    // A Proxy whose traps throw: say so rather than fail.
    return '"(unreadable schema)"';
  }
}
