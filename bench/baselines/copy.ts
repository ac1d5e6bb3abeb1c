/** The floors: copying the arguments without resolving anything. */

type Dict = Readonly<Record<string, unknown>>;

/** A plain shallow copy of the arguments: the least any resolver must do. */
export function shallowCopy(args: Dict): Record<string, unknown> {
  return { ...args };
}

/** A plain recursive copy of a tree of objects and arrays: the least a deep resolver must do. */
export function deepCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(deepCopy);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = deepCopy(item);
    return out;
  }
  return value;
}
