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
import { classifyString } from "../grammar/classify.js";
import { atArgument, RefError } from "../shared/errors.js";
import type { NormalizedOptions } from "../shared/options.js";
import { defineOwn, isPlainArray, isPlainObject } from "../shared/own-data.js";
import { pointerToken } from "../shared/pointer.js";
import { safeText } from "../shared/text.js";
import { accessError, describeValue } from "./access.js";
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
  if (!ok) throw new RefError("invalid-args", `args must be an object of named arguments, not ${describeValue(args)}`);
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
 * error in a later entry's read comes before one in an earlier entry's value, in both forms): returns
 * the keys in `Object.keys` order and pushes their values onto `values`. A getter is refused, never
 * invoked; a throwing Proxy trap becomes code `access`.
 */
function readEntries(container: object, pointer: string, values: unknown[]): string[] {
  try {
    // The array Object.keys returns is this walk's own: a key listed but gone (a Proxy) is dropped in place.
    const keys = Object.keys(container);
    let kept = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const descriptor = Object.getOwnPropertyDescriptor(container, key);
      if (descriptor === undefined) continue;
      if (!("value" in descriptor)) throw getterError(childPointer(pointer, key));
      keys[kept++] = key;
      values.push(descriptor.value);
    }
    if (kept < keys.length) keys.length = kept;
    return keys;
  } catch (error) {
    throw accessError(() => argsAt(pointer), error);
  }
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
  protected abstract container(container: Record<string, unknown> | unknown[], plainArray: boolean, keys: readonly string[], values: readonly unknown[], built: readonly T[], pointer: string): T;
  /** A container met again (shared, not a cycle): what it built the first time. */
  protected again(built: T): T {
    return built;
  }

  /**
   * Walk the top-level arguments: returns their keys in order and leaves in `built` what each value
   * built (each value is read into `built`, then replaced by what it built: one array for both).
   */
  protected walkTop(args: Record<string, unknown>, built: T[]): string[] {
    this.#open?.add(args);
    const values = built as unknown[];
    const keys = readEntries(args, "", values);
    for (let i = 0; i < keys.length; i++) built[i] = this.walkValue(values[i], "", keys[i]!, 1);
    return keys;
  }

  /** `value`, found at key `key` of the container at `parent` (the pointer is built only when needed). */
  protected walkValue(value: unknown, parent: string, key: string, depth: number): T {
    if (typeof value === "string") return this.walkString(value, parent, key);
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
    const values: unknown[] = [];
    const keys = readEntries(value, pointer, values);
    const built = new Array<T>(keys.length);
    for (let i = 0; i < keys.length; i++) built[i] = this.walkValue(values[i], pointer, keys[i]!, depth + 1);
    const result = this.container(value as Record<string, unknown> | unknown[], plainArray, keys, values, built, pointer);
    this.#open.delete(value);
    this.#done!.set(value, result);
    return result;
  }

  private walkString(text: string, parent: string, key: string): T {
    const classified = classifyString(text, this.options);
    switch (classified.kind) {
      case "literal":
        return this.constant(text);
      case "error":
        throw atArgument(classified.error, childPointer(parent, key));
      case "ref":
        if (++this.#placeholders > this.options.maxPlaceholders) throw placeholderLimitError(this.options.maxPlaceholders, childPointer(parent, key));
        return this.placeholder(classified.ast, text, parent, key);
    }
  }
}
