/**
 * The one walk of a tool call's arguments, shared by `resolveRefs` (resolve-refs.ts, which builds the
 * resolved values as it goes) and `compileArgs` (compile-args.ts, which builds a program to run once
 * per set of results), the way jsonc-parser builds `parse` and `parseTree` on one `visit()`.
 *
 * Everything both forms must agree on lives here once: which values are read (own data properties
 * only, a getter refused, never invoked), in which order, how each string is classified, the walk's
 * rules (cycles, `maxDepth`, `maxPlaceholders`, the `arg` pointer of every error) and their errors.
 * A form says only what it builds from a constant, a placeholder and a walked container.
 */
import type { RefAst } from "../grammar/ast.js";
import { classifyString, type Classification } from "../grammar/classify.js";
import { cacheable } from "../grammar/parse-cache.js";
import { atArgument, RefError } from "../shared/errors.js";
import type { NormalizedOptions } from "../shared/options.js";
import { defineOwn, isPlainArray, isPlainObject } from "../shared/own-data.js";
import { pointerToken } from "../shared/pointer.js";
import { safeText, valueKind } from "../shared/text.js";
import { accessError } from "./access.js";
import { depthLimitError, placeholderLimitError } from "./limits.js";

// The one way to write an own data property lives in src/shared/own-data.ts; re-exported for the runner.
export { defineOwn };

/** Throws `RefError` code `invalid-args` unless `args` is an object (an array or a primitive is refused). */
export function assertArgs(args: unknown): asserts args is Record<string, unknown> {
  let ok: boolean;
  try {
    ok = typeof args === "object" && args !== null && !Array.isArray(args);
  } catch (error) {
    throw accessError("args", error);
  }
  if (!ok) throw new RefError("invalid-args", `args must be an object of named arguments, not ${valueKind(args)}`);
}

/** `pointer/key` as a JSON Pointer; most keys need no escaping, so skip that work for them. */
export function childPointer(pointer: string, key: string): string {
  return key.includes("~") || key.includes("/") ? `${pointer}/${pointerToken(key)}` : `${pointer}/${key}`;
}

/** `RefError` code `access`: an argument is an accessor property (plan-refs never invokes getters). */
export function getterError(pointer: string): RefError {
  return new RefError("access", `argument ${safeText(pointer, 120)} is a getter; plan-refs never invokes getters`, { arg: pointer });
}

/** `RefError` code `cycle`: a container of `args` (with `deep`) contains one of its parents. */
export function cycleError(pointer: string): RefError {
  return new RefError("cycle", `args contain a cycle: ${safeText(pointer, 120)} refers back to one of its parents`, { arg: pointer });
}

/** What `args at …` an unreadable container is called in an `access` error. */
function argsAt(pointer: string): string {
  return `args at ${pointer || "(root)"}`;
}

/**
 * The own enumerable data entries of a container of `args`, all read before any is walked (so an
 * error in a later entry's read comes before one in an earlier entry's value, in both forms): their
 * keys in `Object.keys` order and their values. A getter is refused, never invoked; a throwing Proxy
 * trap becomes code `access`.
 */
function readEntries(container: object, pointer: string): { readonly keys: string[]; readonly values: unknown[] } {
  try {
    // The array Object.keys returns is this walk's own: a key listed but gone (a Proxy) is dropped in place.
    const keys = Object.keys(container);
    const values = new Array<unknown>(keys.length);
    let kept = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const descriptor = Object.getOwnPropertyDescriptor(container, key);
      if (descriptor === undefined) continue;
      if (!("value" in descriptor)) throw getterError(childPointer(pointer, key));
      keys[kept] = key;
      values[kept++] = descriptor.value;
    }
    if (kept < keys.length) keys.length = values.length = kept;
    return { keys, values };
  } catch (error) {
    throw accessError(() => argsAt(pointer), error);
  }
}

/**
 * The shape of the top-level arguments, remembered from one call to the next: calls with the same keys
 * in the same order (the same tool call again, a plan run again) reuse it. It holds
 *
 * - `object`, those keys in that order, each `undefined`, for `resolveRefs` to copy with a spread (own
 *   data properties, `__proto__` included) and overwrite: cheaper than adding the keys one at a time,
 *   each addition changing the object's hidden class;
 * - per key, the last string met there and how it was classified, with which options, so the same
 *   string under the same options is not looked up in the parse cache again (a string is compared
 *   first, by `===`, with the one remembered). Only strings the parse cache would keep (`cacheable`).
 *
 * A shape is made on the second call in a row with those keys (arguments of ever-changing shapes pay
 * one comparison of keys, nothing more), for at most `MAX_SHAPE_KEYS` keys. Only keys and strings are
 * kept, never another value of the caller's; reentrant calls (a Proxy trap that resolves) only ever
 * replace a whole per-key entry, so an entry's text, options and classification always belong together.
 */
export interface TopShape {
  readonly keys: readonly string[];
  readonly object: Record<string, unknown>;
  readonly strings: (ClassifiedString | undefined)[];
}

/** A string met at one key, the options it was classified with, and the classification. */
interface ClassifiedString {
  readonly text: string;
  readonly options: NormalizedOptions;
  readonly classified: Classification;
}

const NO_KEYS: readonly string[] = Object.freeze([]);
/** Arguments with more keys than this get no shape (its memory stays small). */
const MAX_SHAPE_KEYS = 256;
let shape: TopShape | undefined;
/** The keys of the previous call, until they are seen twice in a row and become `shape`. */
let lastKeys: readonly string[] | undefined;

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The remembered shape of top-level arguments with these keys, made on their second call in a row; else `undefined`. */
function shapeOf(keys: readonly string[]): TopShape | undefined {
  if (shape !== undefined && sameKeys(keys, shape.keys)) return shape;
  if (keys.length > MAX_SHAPE_KEYS) return undefined;
  if (lastKeys === undefined || !sameKeys(keys, lastKeys)) {
    lastKeys = keys;
    return undefined;
  }
  const object: Record<string, unknown> = {};
  for (const key of keys) defineOwn(object, key, undefined);
  shape = { keys, object, strings: new Array<ClassifiedString | undefined>(keys.length) };
  return shape;
}

/**
 * One walk of `args` in `resolveRefs`' order: top-level entries in `Object.keys` order, each value
 * depth first. `T` is what the form builds for one value (the resolved value, or a node of a program).
 */
export abstract class ArgsWalk<T> {
  #placeholders = 0;
  /** Containers already walked (with `deep`): a shared sub-object is walked once and what it built is shared. */
  readonly #done: Map<object, T> | undefined;
  /** Containers on the current path (with `deep`), to tell a cycle from a shared sub-object. */
  readonly #open: Set<object> | undefined;

  constructor(readonly options: NormalizedOptions) {
    if (options.deep) {
      this.#done = new Map();
      this.#open = new Set();
    }
  }

  /** A value that is not a placeholder (nor a container walked with `deep`). */
  protected abstract constant(value: unknown): T;
  /** A placeholder or template, the string `text` at key `key` of the container at pointer `parent`. */
  protected abstract placeholder(ast: RefAst, text: string, parent: string, key: string): T;
  /** A container walked with `deep`: its entries' keys, the values read and what each one built. */
  protected abstract container(
    container: Record<string, unknown> | unknown[],
    plainArray: boolean,
    keys: readonly string[],
    values: readonly unknown[],
    built: readonly T[],
    pointer: string,
  ): T;
  /** A container met again (shared, not a cycle): what it built the first time. */
  protected again(built: T): T {
    return built;
  }

  /** The keys of the top-level arguments, in order, once `walkTop` has read them. */
  protected topKeys: readonly string[] = NO_KEYS;
  /** The remembered shape of the top-level arguments, when they have one (see `TopShape`). */
  protected topShape: TopShape | undefined;

  /**
   * Walk the top-level arguments: returns what each value built, in the order of `topKeys` (each value
   * is read into the array, then replaced by what it built: one array for both).
   */
  protected walkTop(args: Record<string, unknown>): T[] {
    this.#open?.add(args);
    const { keys, values } = readEntries(args, "");
    const top = shapeOf(keys);
    this.topKeys = keys;
    this.topShape = top;
    const built = values as T[];
    for (let i = 0; i < keys.length; i++) {
      const value = values[i];
      built[i] =
        typeof value === "string" && top !== undefined
          ? this.walkString(value, "", keys[i]!, this.#remembered(top, i, value))
          : this.walkValue(value, "", keys[i]!, 1);
    }
    return built;
  }

  /** How `text`, the string at top-level entry `index`, is classified: as remembered by the shape, or classified now (and remembered). */
  #remembered(top: TopShape, index: number, text: string): Classification {
    const seen = top.strings[index];
    if (seen !== undefined && seen.text === text && seen.options === this.options) return seen.classified;
    const classified = classifyString(text, this.options);
    if (cacheable(text)) top.strings[index] = { text, options: this.options, classified };
    return classified;
  }

  /** `value`, found at key `key` of the container at `parent` (the pointer is built only when needed). */
  protected walkValue(value: unknown, parent: string, key: string, depth: number): T {
    if (typeof value === "string") return this.walkString(value, parent, key, classifyString(value, this.options));
    if (this.#open === undefined || typeof value !== "object" || value === null) return this.constant(value);
    const pointer = childPointer(parent, key);
    let plainArray: boolean;
    let plain: boolean;
    try {
      plainArray = isPlainArray(value);
      plain = plainArray || isPlainObject(value);
    } catch (error) {
      throw accessError(() => `args at ${pointer}`, error);
    }
    if (!plain) return this.constant(value);
    if (this.#open.has(value)) throw cycleError(pointer);
    const done = this.#done!.get(value);
    if (done !== undefined) return this.again(done);
    if (depth > this.options.maxDepth) throw depthLimitError("args", this.options.maxDepth, pointer);
    this.#open.add(value);
    const { keys, values } = readEntries(value, pointer);
    const built = new Array<T>(keys.length);
    for (let i = 0; i < keys.length; i++) built[i] = this.walkValue(values[i], pointer, keys[i]!, depth + 1);
    const result = this.container(value as Record<string, unknown> | unknown[], plainArray, keys, values, built, pointer);
    this.#open.delete(value);
    this.#done!.set(value, result);
    return result;
  }

  /** The string `text`, classified as `classified`, at key `key` of the container at `parent`. */
  private walkString(text: string, parent: string, key: string, classified: Classification): T {
    switch (classified.kind) {
      case "literal":
        return this.constant(text);
      case "error":
        throw atArgument(classified.error, childPointer(parent, key));
      case "ref":
        if (++this.#placeholders > this.options.maxPlaceholders)
          throw placeholderLimitError(this.options.maxPlaceholders, childPointer(parent, key));
        return this.placeholder(classified.ast, text, parent, key);
    }
  }
}
