/** JSON Pointers (RFC 6901), the way plan-refs names places inside args and plans. */
import { isPlainArray, isPlainObject, ownData } from "./own-data.js";

/** Escape one JSON Pointer token (`~` to `~0`, `/` to `~1`). */
export function pointerToken(key: string | number): string {
  return String(key).replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Split a JSON Pointer into its unescaped tokens (`""` is the root: no tokens). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/**
 * The schema a local `$ref` points at inside `root`: `#` is the root, `#/a/b` (percent-decoded) a
 * JSON Pointer into it, read through own data properties of plain objects and arrays only (a getter is
 * never run). `undefined` for a `$ref` that is not local (another document, an anchor `#name`), that
 * does not decode, or that points at nothing; each caller decides what that means (any value, an
 * unknown schema, a `$ref` left as written).
 *
 * @example
 * resolveLocalRef({ $defs: { day: { type: "string" } } }, "#/$defs/day") // { type: "string" }
 * resolveLocalRef({}, "other.json#/x") // undefined
 */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment !== "" && !fragment.startsWith("/")) return undefined;
  let node: unknown = root;
  for (const token of pointerTokens(fragment)) {
    if (!isPlainObject(node) && !isPlainArray(node)) return undefined;
    node = ownData(node, token);
    if (node === undefined) return undefined;
  }
  return node;
}
