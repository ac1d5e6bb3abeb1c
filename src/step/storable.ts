/**
 * What a step's result may be wherever it is written as JSON: exactly what JSON holds, so that what is
 * written reads back as the value the tool returned. Anything JSON would drop, change or refuse is the
 * step's `unserializable` error (`STEP_FAILURES.unserializable`), never written silently different.
 * The one rule of every JSON form: a worker storing a result for its dependents (the step fails), and
 * `reportToJSON` (`runPlan`'s JSON report, the command line's `--results`, the plan tools' answer: the
 * in-memory report keeps the value, and only its JSON form refuses it).
 */
import { describeThrown } from "../shared/errors.js";
import { isPlainArray, isPlainObject } from "../shared/own-data.js";
import { safeText } from "../shared/text.js";

/** Nesting a result written as JSON may have (JSON.stringify would run out of stack somewhere past it). */
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
 * A result as JSON text, or why it cannot be written unchanged: a BigInt, a cycle, a
 * function, a symbol, NaN or an infinity, `undefined` in an array, a Map, a Set, a Date, a class
 * instance, an array hole, a getter. `undefined` itself is no text (`null`: a worker stores no result
 * text and reads back `undefined`, a JSON report writes `null`); a property whose value is `undefined` is left out, as JSON leaves it out.
 * Never runs a getter, never throws.
 *
 * @example
 * toStorableJSON({ city: "Lisbon" }) // { ok: true, text: '{"city":"Lisbon"}' }
 * toStorableJSON(new Map())          // { ok: false, reason: "it contains a Map (JSON writes {})" }
 */
export function toStorableJSON(value: unknown): { ok: true; text: string | null } | { ok: false; reason: string } {
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
