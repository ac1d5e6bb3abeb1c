/**
 * Snapshots of a step's arguments for `runPlan`: a structural copy of the own data that the linter and
 * the resolver read, taken once when the step is read, so that the run lints, schedules and calls
 * exactly the same arguments however the caller's plan object changes while it runs. What the
 * arguments reference is found afterwards, on the copy, by the linter's scan (prepare.ts).
 */
import { referencesIn, type RefAst } from "../grammar/ast.js";
import { classifyString } from "../grammar/parse.js";
import { defineOwn } from "../resolve/walk-args.js"; // the fast form (plain assignment but for `__proto__`): the snapshot is on every step's path
import { isPlainArray, isPlainObject } from "../shared/own-data.js";
import type { NormalizedOptions } from "../shared/options.js";

type Container = Record<string, unknown> | unknown[];

/** An empty container of the same kind: an array of the same length, or an object with the same (plain) prototype. */
function shell(source: Container): Container {
  if (Array.isArray(source)) return new Array<unknown>(source.length);
  return Object.getPrototypeOf(source) === null ? (Object.create(null) as Record<string, unknown>) : {};
}

/**
 * The step ids one parsed placeholder references, each once. Parsed ASTs are shared by the parse cache,
 * so a placeholder written in many steps (`$0.city` in a fan-out) is walked once.
 */
const stepIdsOf = new WeakMap<RefAst, readonly number[]>();
export function stepIds(ast: RefAst): readonly number[] {
  let ids = stepIdsOf.get(ast);
  if (ids === undefined) {
    const found: number[] = [];
    // Digits beyond Number.MAX_SAFE_INTEGER round to a number that is never a step id (readPlan
    // refuses unsafe ids), so such a reference waits for a step that never comes.
    for (const node of referencesIn(ast)) {
      const id = Number(node.step.id);
      if (!found.includes(id)) found.push(id);
    }
    ids = Object.freeze(found);
    stepIdsOf.set(ast, ids);
  }
  return ids;
}

const NONE: readonly number[] = Object.freeze([]);
/**
 * Copies steps' arguments and finds the steps they reference; one per run (it keeps no argument
 * between calls, only its scratch space).
 *
 * The copy: every plain object and plain array (the containers the resolver and the linter walk), own
 * enumerable keys in order, holes kept, `__proto__` kept as an own key; shared sub-objects stay shared
 * and cycles stay cycles (the resolver reports them as before). Other values are kept as they are:
 * strings, numbers, and objects that plan-refs never looks inside (class instances, Dates, Maps),
 * which the resolver hands to the tool untouched. A getter is copied as the same getter, never
 * invoked, so the resolver refuses it exactly as it refuses the original.
 *
 * With `options` (submitPlan's use, until it prepares its steps with prepare.ts as runPlan does), the
 * walk also finds the steps referenced by the strings `resolveRefs` resolves with `options`.
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
  /** The step ids the arguments of the last `take` reference, each once (a shared, frozen array: never change it). */
  dependencies: readonly number[] = NONE;
  /**
   * Whether the last copy may have its top-level placeholders resolved into it and give what
   * `resolveRefs` gives: an object with `Object.prototype`, no getter among its own keys, and not
   * contained in itself (through a cycle, the resolved values would show where resolveRefs keeps the
   * original strings).
   */
  inPlace = true;
  /** Whether `dependencies` is this walk's own array (else it is shared: copied before it grows). */
  #own = false;
  #seen: Set<number> | undefined;
  #args: Container | undefined;
  #root: Container | undefined;
  #copies: Map<object, Container> | undefined;
  /** Containers still to fill, three entries each: source, copy, depth (the arguments are depth 0). */
  readonly #stack: unknown[] = [];

  /** With `options`, `take` also finds `dependencies` (else only copies: the run takes them from the linter's scan). */
  constructor(readonly options?: NormalizedOptions) {}

  take(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
    this.dependencies = NONE;
    this.#own = false;
    this.#seen = undefined;
    const root = shell(args as Container);
    this.inPlace = Object.getPrototypeOf(root) !== null;
    this.#args = args as Container;
    this.#root = root;
    const stack = this.#stack;
    try {
      this.#fill(args as Container, root, 0);
      while (stack.length > 0) {
        const depth = stack.pop() as number;
        const target = stack.pop() as Container;
        const source = stack.pop() as Container;
        this.#fill(source, target, depth);
      }
    } finally {
      stack.length = 0;
      this.#args = this.#root = this.#copies = undefined;
    }
    return root as Record<string, unknown>;
  }

  #fill(source: Container, target: Container, depth: number): void {
    const { options } = this;
    // The strings resolveRefs resolves: those of the arguments object, and with `deep` those of every container within maxDepth.
    const resolved = options !== undefined && (depth === 0 || (options.deep && depth <= options.maxDepth));
    const keys = Object.keys(source);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const descriptor = Object.getOwnPropertyDescriptor(source, key);
      if (descriptor === undefined) continue; // gone between Object.keys and here (a Proxy)
      if (!("value" in descriptor)) {
        if (depth === 0) this.inPlace = false; // resolveRefs refuses it, with its own error
        Object.defineProperty(target, key, { get: descriptor.get, set: descriptor.set, enumerable: true, configurable: true });
        continue;
      }
      let value: unknown = descriptor.value;
      if (typeof value === "string") {
        if (resolved) {
          const classified = classifyString(value, options!);
          if (classified.kind === "ref") this.#depend(stepIds(classified.ast));
        }
      } else if (typeof value === "object" && value !== null && (isPlainObject(value) || isPlainArray(value))) {
        value = this.#nested(value as Container, depth + 1);
      }
      defineOwn(target, key, value);
    }
  }

  /** The copy of a nested container: made once (shared stays shared, a cycle stays a cycle), filled later. */
  #nested(source: Container, depth: number): Container {
    this.#copies ??= new Map<object, Container>([[this.#args!, this.#root!]]);
    if (source === this.#args) this.inPlace = false;
    let copy = this.#copies.get(source);
    if (copy === undefined) {
      copy = shell(source);
      this.#copies.set(source, copy);
      this.#stack.push(source, copy, depth);
    }
    return copy;
  }

  /** Add a placeholder's step ids (a fan-out's steps all share the placeholder's own frozen list). */
  #depend(ids: readonly number[]): void {
    if (ids.length === 0) return;
    if (this.dependencies.length === 0) {
      this.dependencies = ids;
      return;
    }
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (this.#has(id)) continue;
      if (!this.#own) {
        this.dependencies = [...this.dependencies];
        this.#own = true;
      }
      (this.dependencies as number[]).push(id);
      this.#seen?.add(id);
    }
  }

  #has(id: number): boolean {
    if (this.#seen === undefined && this.dependencies.length < 16) return this.dependencies.includes(id);
    this.#seen ??= new Set(this.dependencies);
    return this.#seen.has(id);
  }
}
