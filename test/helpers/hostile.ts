/**
 * Shared by the hostile-input tests (test/resolve/hostile.test.ts, test/cli/hostile.test.ts): the corpus in
 * test/cases/hostile.json with its size macros expanded, a fingerprint of a value's own properties
 * (to prove inputs are never changed), and values no JSON parser can produce (throwing getters,
 * Proxies whose traps throw, revoked Proxies).
 */
import { loadCases, type ResolveCase } from "./cases.js";

/** `{ "$text": [part, …] }` and `{ "$nest": value, "key": k, "depth": n }` (see the corpus' $comment), expanded everywhere. */
export function expandMacros(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(expandMacros);
  if (typeof value !== "object" || value === null) return value;
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, "$text")) {
    return (record["$text"] as (string | [string, number])[])
      .map((part) => (typeof part === "string" ? part : part[0].repeat(part[1])))
      .join("");
  }
  if (Object.hasOwn(record, "$nest")) {
    let nested = expandMacros(record["$nest"]);
    for (let i = 0; i < (record["depth"] as number); i++) nested = ownObject([[record["key"] as string, nested]]);
    return nested;
  }
  return ownObject(Object.keys(record).map((key) => [key, expandMacros(record[key])]));
}

/** An object with these own keys (`__proto__` included, as `JSON.parse` makes it). */
export function ownObject(entries: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** The rows of test/cases/hostile.json, macros expanded. */
export function hostileCases(): ResolveCase[] {
  return loadCases("hostile.json").map((row) => {
    const out: Record<string, unknown> = { ...row };
    for (const field of ["input", "args", "results", "expected"] as const) {
      if (Object.hasOwn(row, field)) out[field] = expandMacros(row[field]);
    }
    return out as unknown as ResolveCase;
  });
}

/** The options the command line can express as flags. */
export const CLI_OPTIONS = new Set(["syntax", "templates", "deep", "strict"]);

/** Whether the command line can run a row (only flag options, and results a JSON file can hold). */
export function runsInCli(row: ResolveCase): boolean {
  return row.resultsKind !== "map" && Object.keys(row.options ?? {}).every((name) => CLI_OPTIONS.has(name));
}

/**
 * A description of everything a value holds in its own properties, prototypes and Map entries, deep:
 * two fingerprints are equal when nothing observable through own properties changed. Never invokes a
 * getter (accessors are described, not read) and never throws (unreadable parts are described as such).
 */
export function fingerprint(value: unknown, seen = new Map<object, number>()): unknown {
  if (typeof value === "number") return Object.is(value, -0) ? "number:-0" : `number:${String(value)}`;
  if (typeof value === "bigint") return `bigint:${value}`;
  if (typeof value === "symbol") return `symbol:${String(value.description)}`;
  if (typeof value !== "object" && typeof value !== "function") return value;
  if (value === null) return null;
  const known = seen.get(value);
  if (known !== undefined) return `ref:${known}`;
  seen.set(value, seen.size);
  try {
    const proto = Object.getPrototypeOf(value) as object | null;
    const own = Reflect.ownKeys(value).map((key) => {
      const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
      const name = typeof key === "symbol" ? `symbol:${String(key.description)}` : key;
      if (!("value" in descriptor)) return [name, "accessor", descriptor.enumerable, descriptor.configurable];
      return [name, fingerprint(descriptor.value, seen), descriptor.enumerable, descriptor.writable, descriptor.configurable];
    });
    const entries =
      value instanceof Map
        ? [...Map.prototype.entries.call(value)].map(([k, v]) => [fingerprint(k, seen), fingerprint(v, seen)])
        : undefined;
    const time = value instanceof Date ? Date.prototype.getTime.call(value) : undefined;
    return { proto: protoName(proto), frozen: Object.isFrozen(value), extensible: Object.isExtensible(value), own, entries, time };
  } catch {
    return "unreadable";
  }
}

function protoName(proto: object | null): string {
  if (proto === null) return "null";
  for (const [name, candidate] of [
    ["Object", Object.prototype],
    ["Array", Array.prototype],
    ["Map", Map.prototype],
    ["Date", Date.prototype],
    ["Function", Function.prototype],
  ] as const) {
    if (proto === candidate) return name;
  }
  return "other";
}

/** A thrown error of our own, to recognize as the `cause` of an `access` error. */
export class Boom extends Error {
  override name = "Boom";
}

/** A Proxy whose every trap throws a fresh `Boom`. */
export function throwingProxy(target: object = {}): object {
  const trap = (): never => {
    throw new Boom("trap");
  };
  return new Proxy(target, {
    get: trap,
    has: trap,
    ownKeys: trap,
    getOwnPropertyDescriptor: trap,
    getPrototypeOf: trap,
    defineProperty: trap,
    set: trap,
    deleteProperty: trap,
    isExtensible: trap,
    preventExtensions: trap,
    setPrototypeOf: trap,
    apply: trap,
    construct: trap,
  });
}

/** A revoked Proxy: every operation on it throws a TypeError. */
export function revokedProxy(target: object = {}): object {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

/** An object whose listed keys are getters that count their calls and throw. */
export function getterObject(keys: readonly string[], calls: { count: number }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    Object.defineProperty(out, key, {
      enumerable: true,
      configurable: true,
      get() {
        calls.count++;
        throw new Boom(`getter ${key}`);
      },
    });
  }
  return out;
}
