/**
 * What a worker can store as a step's result: exactly what JSON holds, so that a dependent reads from
 * the database what `runPlan` would have handed it in memory. Anything JSON would drop, change or
 * refuse is the step's `unserializable` error, never stored silently different.
 */
import { describeThrown } from "../shared/errors.js";
import { isPlainArray, isPlainObject } from "../shared/own-data.js";
import { safeText } from "../shared/text.js";

/** Nesting a stored result may have (JSON.stringify would run out of stack somewhere past it). */
export const MAX_RESULT_DEPTH = 4_096;

/** Why a value is not plain JSON data, or `undefined` when it is. */
function notPlain(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : `it contains ${String(value)} (JSON writes null)`;
    case "bigint":
      return "it contains a BigInt";
    case "function":
      return "it contains a function";
    case "symbol":
      return "it contains a symbol";
    case "undefined":
      // In an object JSON drops the property (a dependent reading it is told the key is missing); in an array it would become null.
      return undefined;
    default:
      if (value === null || isPlainObject(value) || isPlainArray(value)) return undefined;
      if (value instanceof Map) return "it contains a Map (JSON writes {})";
      if (value instanceof Set) return "it contains a Set (JSON writes {})";
      if (value instanceof Date) return "it contains a Date (JSON writes a string)";
      return "it contains an object that is not plain data (a class instance, JSON would not keep it as it is)";
  }
}

/**
 * A result as JSON text for the database, or why it cannot be stored unchanged: a BigInt, a cycle, a
 * function, a symbol, NaN or an infinity, `undefined` in an array, a Map, a Set, a Date, a class
 * instance, an array hole, a getter. `undefined` itself is stored as no result text (`null`), and read
 * back as `undefined`; a property whose value is `undefined` is left out, as JSON leaves it out.
 * Never runs a getter, never throws.
 *
 * @example
 * toJSONText({ city: "Lisbon" }) // { ok: true, text: '{"city":"Lisbon"}' }
 * toJSONText(new Map())          // { ok: false, reason: "it contains a Map (JSON writes {})" }
 */
export function toJSONText(value: unknown): { ok: true; text: string | null } | { ok: false; reason: string } {
  if (value === undefined) return { ok: true, text: null };
  try {
    const reason = check(value);
    if (reason !== undefined) return { ok: false, reason };
    return { ok: true, text: JSON.stringify(value) };
  } catch (error) {
    return { ok: false, reason: safeText(describeThrown(error).split("\n")[0]!, 200) };
  }
}

/** Walk the value (an explicit stack: no recursion) and say what JSON would not keep. */
function check(root: unknown): string | undefined {
  const ancestors = new Set<object>();
  const stack: { value: unknown; depth: number; leave: boolean }[] = [{ value: root, depth: 0, leave: false }];
  while (stack.length > 0) {
    const { value, depth, leave } = stack.pop()!;
    if (leave) {
      ancestors.delete(value as object);
      continue;
    }
    const reason = notPlain(value);
    if (reason !== undefined) return reason;
    if (typeof value !== "object" || value === null) continue;
    if (ancestors.has(value)) return "it contains a cycle";
    if (depth >= MAX_RESULT_DEPTH) return `it is nested deeper than ${MAX_RESULT_DEPTH} levels`;
    ancestors.add(value);
    stack.push({ value, depth, leave: true });
    const keys = Object.keys(value);
    if (Array.isArray(value) && keys.length !== value.length) return "it contains an array hole (JSON writes null)";
    for (const key of keys) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor === undefined) continue;
      if (!("value" in descriptor)) return "it contains a getter";
      if (descriptor.value === undefined && Array.isArray(value)) return "it contains undefined in an array (JSON writes null)";
      stack.push({ value: descriptor.value, depth: depth + 1, leave: false });
    }
  }
  return undefined;
}
