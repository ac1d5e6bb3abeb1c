/** JSON Pointers (RFC 6901), the way plan-refs names places inside args and plans. */

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
