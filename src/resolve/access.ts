/**
 * Reading results safely: own data properties only. No getter is ever invoked, no inherited or
 * built-in member (`constructor`, `__proto__`, `length`, `map`) is ever returned, and a Proxy whose
 * traps throw becomes a `RefError` with code `access` rather than a raw `TypeError`.
 */
import { asRefError, RefError } from "../shared/errors.js";
import { isPlainArray, isPlainObject, MISSING, readOwnData } from "../shared/own-data.js";
import { valueKind } from "../shared/text.js";

// The reading policy itself lives in src/shared/own-data.ts; re-exported for the evaluator's modules.
export { isPlainArray, isPlainObject, MISSING, readOwnData };

/** The step results `resolveRefs` reads: a Map keyed by step number, a plain object as `JSON.parse` gives it, or an array. */
export type Results = ReadonlyMap<number | string, unknown> | Readonly<Record<string, unknown>> | readonly unknown[];

/** The container cannot take that kind of member (a key of a string, an index of an object). A module-private symbol, as `MISSING`. */
export const NOT_INDEXABLE: unique symbol = Symbol("plan-refs: not indexable");

/** Run `read`, turning any non-`RefError` failure (a throwing Proxy trap, a revoked Proxy) into `RefError` code `access`. */
export function rethrowAsAccess<T>(what: string | (() => string), read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw accessError(what, error);
  }
}

/** The error to throw for a failure while reading: `RefError`s as they are, anything else as code `access`. */
export function accessError(what: string | (() => string), error: unknown): RefError {
  // asRefError never throws itself, whatever was thrown (a Proxy, an object whose toString throws).
  return asRefError(error, typeof what === "function" ? what() : what);
}

/**
 * The last line of defence of the evaluator's entry points: a call stack exhausted by nesting that the
 * caller's own limits allowed (a huge `maxDepth` or `maxSegments`) becomes `RefError` code `limit`,
 * and any other non-`RefError` code `access`, so no raw `RangeError` or `TypeError` ever escapes.
 */
export function stackLimit(error: unknown): RefError {
  return asRefError(error, "the input");
}

/** Check that `results` is a Map, a plain object or an array; throws `RefError` code `invalid-results`. */
export function assertResults(results: unknown): asserts results is Results {
  let ok: boolean;
  try {
    ok = isPlainObject(results) || Array.isArray(results) || results instanceof Map;
  } catch (error) {
    throw accessError("results", error);
  }
  if (!ok) {
    throw new RefError("invalid-results", `results must be a Map, a plain object or an array of step results, not ${valueKind(results)}`);
  }
}

/**
 * The result of step `id` (canonical digits), or `MISSING`. A step above `Number.MAX_SAFE_INTEGER` is
 * always missing: such a number has no exact step, so it must neither be rounded to a neighbour nor
 * match a key by its text. May throw (a Proxy trap): callers guard.
 */
export function readStep(results: Results, id: string): unknown {
  const numeric = Number(id);
  if (!Number.isSafeInteger(numeric)) return MISSING;
  if (results instanceof Map) {
    if (Map.prototype.has.call(results, numeric)) return Map.prototype.get.call(results, numeric) as unknown;
    if (Map.prototype.has.call(results, id)) return Map.prototype.get.call(results, id) as unknown;
    return MISSING;
  }
  if (Array.isArray(results) && numeric >= results.length) return MISSING;
  return readOwnData(results, id);
}

/** The value of `key` in a plain object or a Map, `MISSING`, or `NOT_INDEXABLE` for anything else. May throw: callers guard. */
export function readKey(container: unknown, key: string): unknown {
  if (typeof container !== "object" || container === null) return NOT_INDEXABLE;
  // The common case first: a plain object (one prototype read), then Maps.
  const proto: unknown = Object.getPrototypeOf(container);
  if ((proto === Object.prototype || proto === null) && !Array.isArray(container)) return readOwnData(container, key);
  if (container instanceof Map)
    return Map.prototype.has.call(container, key) ? (Map.prototype.get.call(container, key) as unknown) : MISSING;
  return NOT_INDEXABLE;
}

/** Element `index` of a plain array (within bounds, not a hole), `MISSING`, or `NOT_INDEXABLE`. May throw: callers guard. */
export function readIndex(container: unknown, index: number): unknown {
  if (!isPlainArray(container)) return NOT_INDEXABLE;
  if (!Number.isSafeInteger(index) || index >= container.length) return MISSING;
  return readOwnData(container, index);
}

/**
 * Up to `max` own keys of a container and how many it has (`null` when unknown), for error messages,
 * from one listing of its keys: a result with a million keys is listed once per message, not twice.
 */
export function keySample(container: unknown, max = 9): { readonly keys: string[]; readonly total: number | null } {
  try {
    if (container instanceof Map) {
      const keys: string[] = [];
      for (const key of Map.prototype.keys.call(container) as IterableIterator<unknown>) {
        if (keys.length >= max) break;
        keys.push(String(key));
      }
      return { keys, total: container.size };
    }
    if (typeof container === "object" && container !== null) {
      const all = Object.keys(container);
      return { keys: all.slice(0, max), total: all.length };
    }
  } catch {
    // A hostile container: the message simply lists no keys.
  }
  return { keys: [], total: null };
}

/** How many entries a container has, for error messages (`undefined` when unknown). */
export function sizeOf(container: unknown): number | undefined {
  try {
    if (container instanceof Map) return container.size;
    if (Array.isArray(container)) return container.length;
    if (typeof container === "object" && container !== null) return Object.keys(container).length;
  } catch {
    // Unknown.
  }
  return undefined;
}
