/**
 * `resolveRefs`: the public entry of the evaluator. It walks a tool call's arguments, classifies each
 * string with the grammar and evaluates the placeholders, returning a new object and never touching
 * its inputs.
 */
import { classifyString } from "../grammar/parse.js";
import { atArgument, RefError } from "../shared/errors.js";
import { pointerToken } from "../shared/pointer.js";
import { normalizeOptions, type NormalizedOptions, type ResolveOptions } from "../shared/options.js";
import { safeText } from "../shared/text.js";
import { assertResults, describeValue, isPlainArray, isPlainObject, rethrowAsAccess, stackLimit, type Results } from "./access.js";
import { evaluateAst } from "./evaluate.js";


/**
 * Resolve the placeholders in a tool call's arguments against the results of earlier steps.
 *
 * Returns a new plain object with the same own keys in the same order; values that are not
 * placeholders come back as the very same values. With no options this is exactly the seed language:
 * top-level string values `$n` and `$n.key` only. Throws `KeyError` for a missing step or key (with
 * `arg`, a JSON Pointer into `args`), `RefError` for invalid input.
 *
 * @example
 * resolveRefs({ q: "$1.city", units: "metric" }, { 1: { city: "Paris" } })
 * // { q: "Paris", units: "metric" }
 * @example
 * resolveRefs({ q: "Weather in ${1.city}" }, { 1: { city: "Paris" } }, { templates: true })
 * // { q: "Weather in Paris" }
 */
export function resolveRefs(args: Readonly<Record<string, unknown>>, results: Results, options?: ResolveOptions): Record<string, unknown> {
  const normalized = normalizeOptions(options);
  assertArgs(args);
  assertResults(results);
  const walker = new Walker(results, normalized);
  try {
    return walker.resolveTop(args);
  } catch (error) {
    throw stackLimit(error);
  }
}

/** Throws `RefError` code `invalid-args` unless `args` is an object (shared with compile-args.ts). */
export function assertArgs(args: unknown): asserts args is Record<string, unknown> {
  const ok = rethrowAsAccess("args", () => typeof args === "object" && args !== null && !Array.isArray(args));
  if (!ok) throw new RefError("invalid-args", `args must be an object of named arguments, not ${describeValue(args)}`);
}

/** `pointer/key` as a JSON Pointer; most keys need no escaping, so skip that work for them. */
export function childPointer(pointer: string, key: string): string {
  return key.includes("~") || key.includes("/") ? `${pointer}/${pointerToken(key)}` : `${pointer}/${key}`;
}

/** Define an own data property, so that a `__proto__` key stays an ordinary own key. */
export function defineOwn(target: Record<string, unknown> | unknown[], key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    (target as Record<string, unknown>)[key] = value;
  }
}

/** Own enumerable data entries of an args container; a getter is refused rather than invoked. */
export function ownEntries(container: object, pointer: string): [string, unknown][] {
  return rethrowAsAccess(`args at ${pointer || "(root)"}`, () => {
    const entries: [string, unknown][] = [];
    for (const key of Object.keys(container)) {
      const descriptor = Object.getOwnPropertyDescriptor(container, key);
      if (descriptor === undefined) continue;
      if (!("value" in descriptor)) {
        throw new RefError("access", `argument ${safeText(`${pointer}/${pointerToken(key)}`, 120)} is a getter; plan-refs never invokes getters`, { arg: `${pointer}/${pointerToken(key)}` });
      }
      entries.push([key, descriptor.value]);
    }
    return entries;
  });
}

// Without `deep` no container is walked: the walker shares these empty placeholders instead of allocating.
const NO_CONTAINERS_DONE: Map<object, unknown> = new Map();
const NO_CONTAINERS_OPEN: Set<object> = new Set();

class Walker {
  #placeholders = 0;
  /** Containers already resolved (a shared sub-object resolves once and stays shared). Only `deep` walks containers. */
  readonly #done: Map<object, unknown>;
  /** Containers on the current path, to tell a cycle from a shared sub-object. */
  readonly #open: Set<object>;

  constructor(
    readonly results: Results,
    readonly options: NormalizedOptions,
  ) {
    this.#done = options.deep ? new Map() : NO_CONTAINERS_DONE;
    this.#open = options.deep ? new Set() : NO_CONTAINERS_OPEN;
  }

  resolveTop(args: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (this.options.deep) this.#open.add(args);
    for (const [key, value] of ownEntries(args, "")) {
      defineOwn(out, key, this.resolveValue(value, "", key, 1));
    }
    return out;
  }

  /** Resolve `value`, found at key `key` of the container at `parent` (the pointer is only built when needed). */
  resolveValue(value: unknown, parent: string, key: string, depth: number): unknown {
    if (typeof value === "string") return this.resolveString(value, parent, key);
    if (!this.options.deep || typeof value !== "object" || value === null) return value;
    const pointer = childPointer(parent, key);
    const plainArray = rethrowAsAccess(() => `args at ${pointer}`, () => isPlainArray(value));
    if (!plainArray && !rethrowAsAccess(() => `args at ${pointer}`, () => isPlainObject(value))) return value;
    if (this.#open.has(value)) throw new RefError("cycle", `args contain a cycle: ${safeText(pointer, 120)} refers back to one of its parents`, { arg: pointer });
    if (this.#done.has(value)) return this.#done.get(value);
    if (depth > this.options.maxDepth) throw new RefError("limit", `args are nested deeper than maxDepth (${this.options.maxDepth})`, { arg: pointer });
    this.#open.add(value);
    const resolved = plainArray ? this.resolveArray(value as unknown[], pointer, depth) : this.resolveObject(value as Record<string, unknown>, pointer, depth);
    this.#open.delete(value);
    this.#done.set(value, resolved);
    return resolved;
  }

  resolveString(text: string, parent: string, key: string): unknown {
    const classified = classifyString(text, this.options);
    switch (classified.kind) {
      case "literal":
        return text;
      case "error":
        throw atArgument(classified.error, childPointer(parent, key));
      case "ref":
        if (++this.#placeholders > this.options.maxPlaceholders) {
          throw new RefError("limit", `more than maxPlaceholders (${this.options.maxPlaceholders}) placeholders in one call`, { arg: childPointer(parent, key) });
        }
        try {
          return evaluateAst(classified.ast, this.results, { source: text, maxOutputLength: this.options.maxOutputLength, maxDepth: this.options.maxDepth });
        } catch (error) {
          if (error instanceof RefError) throw atArgument(error, childPointer(parent, key));
          throw error;
        }
    }
  }

  /** Copy an object only if something inside it changed (structural sharing). */
  resolveObject(object: Record<string, unknown>, pointer: string, depth: number): Record<string, unknown> {
    const entries = ownEntries(object, pointer);
    const resolved = entries.map(([key, value]) => this.resolveValue(value, pointer, key, depth + 1));
    // Object.is, not ===: a NaN that came back unchanged must not force a copy.
    if (resolved.every((value, i) => Object.is(value, entries[i]![1]))) return object;
    const out: Record<string, unknown> = Object.getPrototypeOf(object) === null ? Object.create(null) : {};
    entries.forEach(([key], i) => defineOwn(out, key, resolved[i]));
    return out;
  }

  resolveArray(array: unknown[], pointer: string, depth: number): unknown[] {
    const entries = ownEntries(array, pointer);
    const resolved = entries.map(([key, value]) => this.resolveValue(value, pointer, key, depth + 1));
    if (resolved.every((value, i) => Object.is(value, entries[i]![1]))) return array;
    const out = new Array<unknown>(array.length);
    entries.forEach(([key], i) => defineOwn(out, key, resolved[i]));
    return out;
  }
}
