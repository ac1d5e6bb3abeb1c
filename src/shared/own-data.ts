/**
 * The one policy for reading values that come from outside (plans, results, catalogs, schemas,
 * options): own data properties only. A getter is never invoked, an inherited or built-in member
 * (`constructor`, `__proto__`, `toString`, `length`) is never returned, and only plain objects and
 * plain arrays are walked. Every layer imports these functions rather than writing its own copy.
 *
 * The readers may throw when the value is a Proxy whose traps throw (or a revoked Proxy): each caller
 * decides what that means (the evaluator rethrows it as `RefError` code `access`, the editor falls back,
 * the linter reports it).
 */

/**
 * What `readOwnData` returns when there is no own data property. A module-private symbol, so no input
 * can hold it: the hot path returns the value itself rather than allocating a `{ found, value }` record.
 */
export const MISSING: unique symbol = Symbol("plan-refs: missing");

/**
 * An object whose prototype is `Object.prototype` or `null`: the only objects whose keys are read.
 *
 * @example
 * isPlainObject({ a: 1 })              // true
 * isPlainObject(Object.create(null))   // true
 * isPlainObject(new Map())             // false
 * isPlainObject([1, 2])                // false
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * An array whose prototype is `Array.prototype` (a subclass is treated as a class instance).
 *
 * @example
 * isPlainArray([1, 2])                      // true
 * isPlainArray(new (class extends Array {})) // false
 */
export function isPlainArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype;
}

/**
 * An own data property, or `MISSING` (an accessor or an inherited member counts as missing). May throw
 * (a Proxy trap): callers guard.
 *
 * @example
 * readOwnData({ a: 1 }, "a")          // 1
 * readOwnData({ a: 1 }, "toString")   // MISSING
 */
export function readOwnData(target: object, key: string | number): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(target, key);
  return descriptor !== undefined && "value" in descriptor ? descriptor.value : MISSING;
}

/**
 * An own data property of a value that may be anything, or `undefined` (not an object, no such own
 * data property, a getter). May throw (a Proxy trap): callers guard.
 *
 * @example
 * ownData({ a: 1 }, "a")               // 1
 * ownData({ a: 1 }, "toString")        // undefined
 * ownData({ get a() { return 1 } }, "a") // undefined (the getter never runs)
 * ownData("text", "length")            // undefined
 */
export function ownData(value: unknown, key: string | number): unknown {
  if (typeof value !== "object" || value === null) return undefined;
  const descriptor = Object.getOwnPropertyDescriptor(value, key);
  return descriptor !== undefined && "value" in descriptor ? descriptor.value : undefined;
}

/**
 * The own enumerable string-keyed data properties of an object, in `Object.keys` order (accessors
 * left out, never invoked). May throw (a Proxy trap): callers guard.
 *
 * @example
 * ownDataEntries({ a: 1, get b() { return 2 } }) // [["a", 1]]
 */
export function ownDataEntries(object: object): [string, unknown][] {
  const entries: [string, unknown][] = [];
  for (const key of Object.keys(object)) {
    const descriptor = Object.getOwnPropertyDescriptor(object, key);
    if (descriptor !== undefined && "value" in descriptor) entries.push([key, descriptor.value]);
  }
  return entries;
}

/**
 * The own elements of an array with their indexes, in order: holes left out, a getter read as
 * `undefined` (never invoked), anything but an array gives `[]`. Walks the keys there are, so a huge
 * sparse `length` costs nothing. May throw (a Proxy trap): callers guard.
 *
 * @example
 * ownElements(["a", , "c"]) // [["a", 0], ["c", 2]]
 */
export function ownElements(value: unknown): [unknown, number][] {
  if (!Array.isArray(value)) return [];
  const elements: [unknown, number][] = [];
  for (const key of Object.keys(value)) {
    const index = Number(key);
    if (!(index < value.length) || String(index) !== key) continue; // not an element index ("-0", "01", "x")
    const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
    elements.push(["value" in descriptor ? descriptor.value : undefined, index]);
  }
  return elements;
}

/**
 * Set an own data property, whatever its name (`__proto__` included: it stays a plain key), on an
 * object or array the caller has just created (`{}`, `Object.create(null)`, `new Array(n)`, a spread
 * copy): the one way every layer writes what it builds from untrusted keys.
 *
 * A plain assignment where that is the same thing, since it is several times faster than
 * `Object.defineProperty`: on such a target an assignment creates (or overwrites) a writable,
 * enumerable, configurable own data property unless the prototype chain has a setter for that key,
 * and the only setter that `Object.prototype` and `Array.prototype` have is `__proto__` (which
 * `--disable-proto=throw` turns into a throwing accessor). So `__proto__` alone is defined, never
 * assigned. A setter installed on `Object.prototype` by prototype pollution is out of scope: it would
 * compromise every object of the process, not only these writes (test/shared/own-data.test.ts checks
 * that the built-in prototypes have no other setter).
 *
 * @example
 * const target: Record<string, unknown> = {};
 * defineOwn(target, "__proto__", 1);
 * Object.keys(target) // ["__proto__"]
 */
export function defineOwn(target: Record<string, unknown> | unknown[], key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    (target as Record<string, unknown>)[key] = value;
  }
}
