/**
 * Following a reference's path through a tool's output schema, for completion (which keys and
 * indexes exist there) and hover (the schema of the selected value). Unlike the linter's walker,
 * which proves what cannot exist, this one collects what can: every branch of `anyOf`, `oneOf` and
 * `allOf` is a candidate, and `open` says when the schema also allows values it does not describe.
 * Only local `$ref`s are followed, only own data properties are read, and the work is bounded.
 */
import type { PathStep } from "../lint/schema-walk.js";
import { resolveLocalRef } from "../shared/pointer.js";
import { isPlainObject, ownData } from "../shared/own-data.js";

/** The schemas a path can lead to. */
export interface SchemaLookup {
  /** Candidate schemas of the value at the end of the path (combinators not expanded). */
  readonly schemas: readonly unknown[];
  /** The schema also allows values there that it does not describe (no `properties` entry, `true`, …). */
  readonly open: boolean;
}

/** What can follow a path: keys with their schemas, and tuple indexes. */
export interface PathMembers {
  /** Known keys in schema order, each with the schemas that describe it. */
  readonly keys: ReadonlyMap<string, readonly unknown[]>;
  /** Tuple items known by position (`prefixItems`), as many as the longest tuple. */
  readonly tupleLength: number;
  /** Some candidate is an array. */
  readonly array: boolean;
}

/** Schema nodes visited per lookup at most. */
const BUDGET = 2_000;
const STRUCTURAL = [
  "type",
  "properties",
  "additionalProperties",
  "patternProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "const",
  "enum",
];
const COMBINATORS = ["allOf", "anyOf", "oneOf"];

interface Context {
  readonly root: unknown;
  visited: number;
  open: boolean;
}

/**
 * The schemas of the value that `path` selects in a value described by `schema`.
 *
 * @example
 * schemasAt({ type: "object", properties: { city: { type: "string" } } }, [{ kind: "key", name: "city" }])
 * // { schemas: [{ type: "string" }], open: false }
 */
export function schemasAt(schema: unknown, path: readonly PathStep[]): SchemaLookup {
  const context: Context = { root: schema, visited: 0, open: false };
  let current: unknown[] = [schema];
  for (const step of path) {
    const next: unknown[] = [];
    for (const candidate of current) {
      for (const facet of facets(candidate, context)) applyStep(facet, step, next, context);
    }
    current = next;
    if (current.length === 0) break;
  }
  return { schemas: current, open: context.open };
}

/**
 * The keys and tuple indexes that can follow `path`.
 *
 * @example
 * membersAt({ properties: { lat: {}, lon: {} } }, []).keys // Map { "lat" => [{}], "lon" => [{}] }
 */
export function membersAt(schema: unknown, path: readonly PathStep[]): PathMembers {
  const context: Context = { root: schema, visited: 0, open: false };
  const keys = new Map<string, unknown[]>();
  let tupleLength = 0;
  let array = false;
  for (const candidate of schemasAt(schema, path).schemas) {
    for (const facet of facets(candidate, context)) {
      if (!isPlainObject(facet)) continue;
      const properties = ownData(facet, "properties");
      if (isPlainObject(properties)) {
        for (const name of Object.keys(properties)) {
          const list = keys.get(name) ?? [];
          list.push(ownData(properties, name));
          keys.set(name, list);
        }
      }
      const tuple = tupleOf(facet);
      if (tuple !== undefined) tupleLength = Math.max(tupleLength, tuple.items.length);
      const types = typeNames(facet);
      if (tuple !== undefined || ownData(facet, "items") !== undefined || types?.includes("array") === true) array = true;
    }
  }
  return { keys, tupleLength, array };
}

/** A schema and the branches it combines (local `$ref`, `allOf`, `anyOf`, `oneOf`), flattened. */
function facets(schema: unknown, context: Context): unknown[] {
  const out: unknown[] = [];
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (++context.visited > BUDGET) {
      context.open = true;
      break;
    }
    if (!isPlainObject(node)) {
      // `true` (or anything that is not a schema object) allows any value; `false` allows none.
      if (node !== false) out.push(node);
      continue;
    }
    const branches: unknown[] = [];
    const ref = ownData(node, "$ref");
    if (typeof ref === "string") branches.push(resolveLocalRef(context.root, ref) ?? true);
    for (const keyword of COMBINATORS) {
      const list = ownData(node, keyword);
      if (Array.isArray(list)) branches.push(...(list as unknown[]));
    }
    const structural = STRUCTURAL.some((keyword) => ownData(node, keyword) !== undefined);
    if (structural || branches.length === 0) out.push(node);
    for (let i = branches.length - 1; i >= 0; i--) stack.push(branches[i]);
  }
  return out;
}

/** Apply one path step to one facet, pushing the schemas it leads to. */
function applyStep(facet: unknown, step: PathStep, next: unknown[], context: Context): void {
  if (!isPlainObject(facet)) {
    context.open = true;
    return;
  }
  const types = typeNames(facet);
  if (step.kind === "key") {
    if (types !== undefined && !types.includes("object")) return;
    const properties = ownData(facet, "properties");
    const child = isPlainObject(properties) ? ownData(properties, step.name) : undefined;
    if (child !== undefined) return void next.push(child);
    if (ownData(facet, "patternProperties") !== undefined) return void (context.open = true);
    return rest(ownData(facet, "additionalProperties"), next, context);
  }
  if (types !== undefined && !types.includes("array")) return;
  const tuple = tupleOf(facet);
  if (tuple === undefined) return rest(ownData(facet, "items"), next, context);
  if (step.index < tuple.items.length) return void next.push(tuple.items[step.index]);
  return rest(tuple.rest, next, context);
}

/** `additionalProperties` / `items` / `additionalItems`: absent or `true` is open, `false` is nothing. */
function rest(schema: unknown, next: unknown[], context: Context): void {
  if (schema === false) return;
  if (schema === undefined || schema === true) context.open = true;
  else next.push(schema);
}

/** A tuple schema's positional items and what follows them (2020-12 `prefixItems`, or draft-07 array `items`). */
function tupleOf(facet: Record<string, unknown>): { items: unknown[]; rest: unknown } | undefined {
  const prefix = ownData(facet, "prefixItems");
  const items = ownData(facet, "items");
  if (Array.isArray(prefix)) return { items: prefix, rest: items };
  if (Array.isArray(items)) return { items, rest: ownData(facet, "additionalItems") };
  return undefined;
}

/**
 * The names in a schema's `type`, when it has one.
 *
 * @example
 * typeNames({ type: ["string", "null"] }) // ["string", "null"]
 */
export function typeNames(schema: unknown): string[] | undefined {
  const type = ownData(schema, "type");
  if (typeof type === "string") return [type];
  if (Array.isArray(type) && type.every((name) => typeof name === "string")) return type;
  return undefined;
}

/**
 * The schema a bare `{ "$ref": "#/…" }` stands for (a few hops at most), for showing it.
 *
 * @example
 * dereference({ $defs: { city: { type: "string" } } }, { $ref: "#/$defs/city" }) // { type: "string" }
 */
export function dereference(root: unknown, schema: unknown): unknown {
  let node = schema;
  for (let hop = 0; hop < 8; hop++) {
    const ref = ownData(node, "$ref");
    if (typeof ref !== "string" || !isPlainObject(node) || Object.keys(node).length !== 1) return node;
    node = resolveLocalRef(root, ref) ?? true; // a $ref it cannot follow allows any value
  }
  return node;
}
