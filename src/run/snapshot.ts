/**
 * Snapshots of a step's arguments for `runPlan`: a structural copy of the own data that the linter and
 * the resolver read, taken once when the step is read, so that the run lints, schedules and calls
 * exactly the same arguments however the caller's plan object changes while it runs. The same walk
 * finds the steps the arguments reference, which is what the scheduler needs.
 */
import { referencesIn, type RefAst } from "../grammar/ast.js";
import { classifyString } from "../grammar/parse.js";
import { isPlainArray, isPlainObject } from "../resolve/access.js";
import { defineOwn } from "../resolve/resolve-refs.js";
import type { NormalizedOptions } from "../shared/options.js";

type Container = Record<string, unknown> | unknown[];

/** A step's arguments, copied, and the step ids they reference (each once, in order of appearance). */
export interface ArgsSnapshot {
  readonly args: Record<string, unknown>;
  readonly dependencies: readonly number[];
}

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
function stepIds(ast: RefAst): readonly number[] {
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

/**
 * Copy a step's arguments and find the steps they reference.
 *
 * The copy: every plain object and plain array (the containers the resolver and the linter walk), own
 * enumerable keys in order, holes kept, `__proto__` kept as an own key; shared sub-objects stay shared
 * and cycles stay cycles (the resolver reports them as before). Other values are kept as they are:
 * strings, numbers, and objects that plan-refs never looks inside (class instances, Dates, Maps),
 * which the resolver hands to the tool untouched. A getter is copied as the same getter, never
 * invoked, so the resolver refuses it exactly as it refuses the original.
 *
 * The references: those of the strings `resolveRefs` resolves with `options` (top-level values, or
 * every string within `maxDepth` with `deep`), as `scanArgs` finds them.
 *
 * Walks with an explicit stack (no recursion); throws what a hostile container throws (a Proxy trap),
 * which the caller turns into the step's error.
 *
 * @example
 * const args = { q: "$1.city", filters: [{ at: "$2.lat" }] };
 * const { args: copy, dependencies } = snapshotArgs(args, normalizeOptions({ deep: true }));
 * args.filters[0].at = "changed"; // copy.filters[0].at is still "$2.lat"; dependencies: [1, 2]
 */
export function snapshotArgs(args: Readonly<Record<string, unknown>>, options: NormalizedOptions): ArgsSnapshot {
  const root = shell(args as Container);
  const walk = new SnapshotWalk(args as Container, root, options);
  walk.fill(args as Container, root, 0);
  // Nested containers (met by copy) wait here, each with its copy and its depth (the arguments are depth 0).
  while (walk.stack.length > 0) {
    const depth = walk.stack.pop() as number;
    const target = walk.stack.pop() as Container;
    const source = walk.stack.pop() as Container;
    walk.fill(source, target, depth);
  }
  return { args: root as Record<string, unknown>, dependencies: walk.dependencies ?? NONE };
}

const NONE: readonly number[] = Object.freeze([]);

class SnapshotWalk {
  dependencies: number[] | undefined;
  #seen: Set<number> | undefined;
  #copies: Map<object, Container> | undefined;
  /** Containers still to fill, three entries each: source, copy, depth (flat, so a flat args object allocates nothing here). */
  readonly stack: unknown[] = [];

  constructor(
    readonly args: Container,
    readonly root: Container,
    readonly options: NormalizedOptions,
  ) {}

  fill(source: Container, target: Container, depth: number): void {
    const { options } = this;
    // The strings resolveRefs resolves: those of the arguments object, and with `deep` those of every container within maxDepth.
    const resolved = depth === 0 || (options.deep && depth <= options.maxDepth);
    const keys = Object.keys(source);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const descriptor = Object.getOwnPropertyDescriptor(source, key);
      if (descriptor === undefined) continue; // gone between Object.keys and here (a Proxy)
      if (!("value" in descriptor)) {
        Object.defineProperty(target, key, { get: descriptor.get, set: descriptor.set, enumerable: true, configurable: true });
        continue;
      }
      let value: unknown = descriptor.value;
      if (typeof value === "string") {
        if (resolved) {
          const classified = classifyString(value, options);
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
    this.#copies ??= new Map<object, Container>([[this.args, this.root]]);
    let copy = this.#copies.get(source);
    if (copy === undefined) {
      copy = shell(source);
      this.#copies.set(source, copy);
      this.stack.push(source, copy, depth);
    }
    return copy;
  }

  #depend(ids: readonly number[]): void {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const dependencies = (this.dependencies ??= []);
      if (this.#seen === undefined && dependencies.length < 16) {
        if (!dependencies.includes(id)) dependencies.push(id);
      } else if (!(this.#seen ??= new Set(dependencies)).has(id)) {
        this.#seen.add(id);
        dependencies.push(id);
      }
    }
  }
}
