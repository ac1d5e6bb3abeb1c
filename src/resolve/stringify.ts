/**
 * Turning an interpolated value into text, as `templates` do: strings as they are, numbers, booleans
 * and null with `String`, objects and arrays as compact JSON. Unlike `JSON.stringify`, it reads own
 * data properties only (no getters, no `toJSON`), survives null-prototype objects and BigInts, and
 * turns cycles and runaway sizes into `RefError`s instead of crashing.
 */
import { RefError } from "../shared/errors.js";
import { isPlainArray, MISSING, ownDataEntries, readOwnData } from "../shared/own-data.js";
import { rethrowAsAccess } from "./access.js";
import { depthLimitError, InterpolationTooLong, outputLimitError } from "./limits.js";

// The error of an interpolated value longer than the room left for it (the template turns it into its own).
export { InterpolationTooLong };

/** Text of one interpolated value, at most `maxLength` characters (else `InterpolationTooLong`, code `limit`). */
export function interpolationText(value: unknown, maxLength: number, maxDepth: number): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null) return compactJson(value, maxLength, maxDepth);
  return String(scalarText(value));
}

function scalarText(value: unknown): string {
  if (typeof value === "symbol") return value.description === undefined ? "Symbol()" : `Symbol(${value.description})`;
  if (typeof value === "function") return "[function]";
  return String(value);
}

function compactJson(root: object, maxLength: number, maxDepth: number): string {
  const parts: string[] = [];
  let length = 0;
  const ancestors = new Set<object>();
  const push = (text: string): void => {
    length += text.length;
    if (length > maxLength) throw outputLimitError("interpolated value", maxLength);
    parts.push(text);
  };

  const write = (value: unknown, depth: number): void => {
    switch (typeof value) {
      case "string":
        return push(JSON.stringify(value));
      case "number":
        return push(Number.isFinite(value) ? String(value) : "null");
      case "boolean":
        return push(String(value));
      case "bigint":
        return push(value.toString());
      case "undefined":
      case "function":
      case "symbol":
        return push("null");
      case "object":
        break; // null and the containers, below
    }
    if (value === null) return push("null");
    const object = value;
    if (depth > maxDepth) throw depthLimitError("interpolated value", maxDepth);
    if (ancestors.has(object)) throw new RefError("cycle", "interpolated value contains a cycle");
    ancestors.add(object);
    rethrowAsAccess("an interpolated value", () => {
      if (object instanceof Date) {
        push(Number.isNaN(object.getTime()) ? "null" : JSON.stringify(object.toISOString()));
      } else if (Array.isArray(object)) {
        push("[");
        const length = isPlainArray(object) ? object.length : 0;
        for (let i = 0; i < length; i++) {
          if (i > 0) push(",");
          const item = readOwnData(object, i);
          write(item === MISSING ? null : item, depth + 1);
        }
        push("]");
      } else {
        push("{");
        let first = true;
        const entries: [string, unknown][] =
          object instanceof Map
            ? [...(Map.prototype.entries.call(object) as IterableIterator<[unknown, unknown]>)].map(([k, v]) => [String(k), v])
            : ownDataEntries(object);
        for (const [key, item] of entries) {
          if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
          push(`${first ? "" : ","}${JSON.stringify(key)}:`);
          first = false;
          write(item, depth + 1);
        }
        push("}");
      }
    });
    ancestors.delete(object);
  };

  write(root, 0);
  return parts.join("");
}
