/**
 * Diagnostics in document order. With text, by file offset; without, by where their pointers lead in
 * the value (keys in the order `JSON.parse` gave them, array items by index), each container's key
 * positions computed at most once.
 */
import { ownData } from "../shared/own-data.js";
import { pointerTokens } from "../shared/pointer.js";
import type { Draft } from "./draft.js";

/**
 * Sort drafts by the position of their pointer in `plan`, then by span (start, then end, as
 * `sortByOffset` orders the same diagnostics in a file); stable otherwise.
 *
 * @example
 * sortByPointer({ b: 1, a: 2 }, [draftAt("/a"), draftAt("/b")]).map((d) => d.pointer) // ["/b", "/a"]
 */
export function sortByPointer<T extends Draft>(plan: unknown, drafts: readonly T[]): T[] {
  const positions = new WeakMap<object, Map<string, number>>();
  const positionOf = (container: object, token: string): number => {
    let map = positions.get(container);
    if (map === undefined) {
      map = new Map(Object.keys(container).map((key, index) => [key, index]));
      positions.set(container, map);
    }
    return map.get(token) ?? Number.MAX_SAFE_INTEGER;
  };
  const keyOf = (pointer: string): number[] => {
    const key: number[] = [];
    try {
      let node: unknown = plan;
      for (const token of pointerTokens(pointer)) {
        if (typeof node !== "object" || node === null) break;
        key.push(Array.isArray(node) ? Number(token) : positionOf(node, token));
        node = ownData(node, token);
      }
    } catch {
      // A hostile value: what was computed so far orders well enough.
    }
    return key;
  };
  const decorated = drafts.map((item, index) => ({ item, index, key: keyOf(item.pointer) }));
  decorated.sort(
    (a, b) =>
      compareKeys(a.key, b.key) ||
      (a.item.span?.start ?? -1) - (b.item.span?.start ?? -1) ||
      (a.item.span?.end ?? -1) - (b.item.span?.end ?? -1) ||
      a.index - b.index,
  );
  return decorated.map((entry) => entry.item);
}

/**
 * Sort by file offset (start, then end), stable otherwise.
 *
 * @example
 * sortByOffset([{ offset: { start: 9, end: 10 } }, { offset: { start: 2, end: 4 } }]) // start 2 first
 */
export function sortByOffset<T extends { readonly offset?: { readonly start: number; readonly end: number } | undefined }>(
  items: readonly T[],
): T[] {
  return items
    .map((item, index) => ({ item, index }))
    .sort(
      (a, b) =>
        (a.item.offset?.start ?? 0) - (b.item.offset?.start ?? 0) ||
        (a.item.offset?.end ?? 0) - (b.item.offset?.end ?? 0) ||
        a.index - b.index,
    )
    .map((entry) => entry.item);
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
