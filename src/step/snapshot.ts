/**
 * Snapshots of a step's arguments for `runPlan`: a structural copy of the own data that the linter and
 * the resolver read, taken once when the step is read, so that the run lints, schedules and calls
 * exactly the same arguments however the caller's plan object changes while it runs. What the
 * arguments reference is found afterwards, on the copy, by the linter's scan (prepare.ts).
 */
import { defineOwn } from "../resolve/walk-args.js"; // the fast form (plain assignment but for `__proto__`): the snapshot is on every step's path
import { isPlainArray, isPlainObject } from "../shared/own-data.js";

type Container = Record<string, unknown> | unknown[];

/** An empty container of the same kind: an array of the same length, or an object with the same (plain) prototype. */
function shell(source: Container): Container {
  if (Array.isArray(source)) return new Array<unknown>(source.length);
  return Object.getPrototypeOf(source) === null ? (Object.create(null) as Record<string, unknown>) : {};
}

/**
 * The copy of arguments with `Object.prototype` that hold neither a container nor an accessor (most
 * steps' arguments: strings and numbers), made in one pass and without the walk's bookkeeping; `undefined`
 * for any other, which the walk then copies from the start (a Proxy's traps may so run twice: what they
 * answer the second time is the copy).
 */
function flatCopy(args: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  if (Array.isArray(args) || Object.getPrototypeOf(args) !== Object.prototype) return undefined;
  const keys = Object.keys(args);
  const copy: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const descriptor = Object.getOwnPropertyDescriptor(args, key);
    if (descriptor === undefined) continue; // gone between Object.keys and here (a Proxy)
    if (!("value" in descriptor)) return undefined;
    const value: unknown = descriptor.value;
    if (typeof value === "object" && value !== null && (isPlainObject(value) || isPlainArray(value))) return undefined;
    defineOwn(copy, key, value);
  }
  return copy;
}

/**
 * Copies steps' arguments; one per run (it keeps no argument between calls, only its scratch space).
 *
 * The copy: every plain object and plain array (the containers the resolver and the linter walk), own
 * enumerable keys in order, holes kept, `__proto__` kept as an own key; shared sub-objects stay shared
 * and cycles stay cycles (the resolver reports them as before). Other values are kept as they are:
 * strings, numbers, and objects that plan-refs never looks inside (class instances, Dates, Maps),
 * which the resolver hands to the tool untouched. A getter is copied as the same getter, never
 * invoked, so the resolver refuses it exactly as it refuses the original.
 *
 * Walks with an explicit stack (no recursion); throws what a hostile container throws (a Proxy trap),
 * which the caller turns into the step's error.
 *
 * @example
 * const snapshots = new ArgsSnapshotter();
 * const args = { q: "$1.city", filters: [{ at: "$2.lat" }] };
 * const copy = snapshots.take(args);
 * args.filters[0].at = "changed"; // copy.filters[0].at is still "$2.lat"
 */
export class ArgsSnapshotter {
  /**
   * Whether the last copy may have its top-level placeholders resolved into it and give what
   * `resolveRefs` gives: an object with `Object.prototype`, no getter among its own keys, and not
   * contained in itself (through a cycle, the resolved values would show where resolveRefs keeps the
   * original strings).
   */
  inPlace = true;
  /** Whether the last copy has own data properties only, every container in it (no accessor was copied): then it is read directly. */
  ownDataOnly = true;
  /** Whether the last copy holds no container (and so no accessor): nothing in it can change once a tool has a copy of its top level. */
  flat = true;
  #args: Container | undefined;
  #root: Container | undefined;
  #copies: Map<object, Container> | undefined;
  /** Containers still to fill, two entries each: source, copy. */
  readonly #stack: Container[] = [];

  take(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
    const flat = flatCopy(args);
    if (flat !== undefined) {
      this.inPlace = this.ownDataOnly = this.flat = true;
      return flat;
    }
    this.flat = false;
    const root = shell(args);
    this.inPlace = Object.getPrototypeOf(root) !== null;
    this.ownDataOnly = true;
    this.#args = args;
    this.#root = root;
    const stack = this.#stack;
    try {
      this.#fill(args, root, true);
      while (stack.length > 0) {
        const target = stack.pop()!;
        const source = stack.pop()!;
        this.#fill(source, target, false);
      }
    } finally {
      stack.length = 0;
      this.#args = this.#root = this.#copies = undefined;
    }
    return root as Record<string, unknown>;
  }

  #fill(source: Container, target: Container, top: boolean): void {
    const keys = Object.keys(source);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const descriptor = Object.getOwnPropertyDescriptor(source, key);
      if (descriptor === undefined) continue; // gone between Object.keys and here (a Proxy)
      if (!("value" in descriptor)) {
        if (top) this.inPlace = false; // resolveRefs refuses it, with its own error
        this.ownDataOnly = false;
        Object.defineProperty(target, key, { ...descriptor, enumerable: true, configurable: true }); // its get and set
        continue;
      }
      let value: unknown = descriptor.value;
      if (typeof value === "object" && value !== null && (isPlainObject(value) || isPlainArray(value))) value = this.#nested(value);
      defineOwn(target, key, value);
    }
  }

  /** The copy of a nested container: made once (shared stays shared, a cycle stays a cycle), filled later. */
  #nested(source: Container): Container {
    this.#copies ??= new Map<object, Container>([[this.#args!, this.#root!]]);
    if (source === this.#args) this.inPlace = false;
    let copy = this.#copies.get(source);
    if (copy === undefined) {
      copy = shell(source);
      this.#copies.set(source, copy);
      this.#stack.push(source, copy);
    }
    return copy;
  }
}
