/**
 * Walking a JSON Schema along a reference's path, to tell which keys and indexes can exist and which
 * types the value at the end can have. Conservative by design: whatever the walker does not
 * understand (remote `$ref`, `patternProperties`, `if`/`then`, a schema too large for the budget)
 * counts as "anything is allowed", so the linter never reports a problem that is not certain.
 *
 * Keywords followed: `type`, `const`, `enum`, `properties`, `additionalProperties`, `items`,
 * `prefixItems` (and draft-07 tuple `items` with `additionalItems`), local `$ref` (`#`, `#/$defs/…`,
 * `#/definitions/…`, any local JSON Pointer), `allOf` (every branch applies), `anyOf` / `oneOf`
 * (some branch applies).
 */
import { isPlainObject, ownData as own } from "../shared/own-data.js";
import { asRefError, RefError } from "../shared/errors.js";
import { resolveLocalRef } from "../shared/pointer.js";

/** A JSON Schema type name. `integer` values are also `number`s. */
export type JsonType = "null" | "boolean" | "object" | "array" | "number" | "integer" | "string";

/** The types a value can have; `null` means any type (unknown). */
export type TypeSet = ReadonlySet<JsonType> | null;

/** One step of a path into a value. */
export type PathStep = { readonly kind: "key"; readonly name: string } | { readonly kind: "index"; readonly index: number };

/** What walking a path finds. */
export type WalkOutcome =
  | { readonly ok: true; readonly types: TypeSet }
  | {
      readonly ok: false;
      /** Index of the path step that cannot exist. */
      readonly at: number;
      readonly code: "unknown-key" | "not-indexable";
      /** With `unknown-key` on a key: the keys the schema allows there. */
      readonly keys: readonly string[];
      /** With `unknown-key` on an index: how many items the tuple has at most. */
      readonly maxItems?: number;
      /** With `not-indexable`: the types the value there can have. */
      readonly types: TypeSet;
    };

type Failure = Extract<WalkOutcome, { ok: false }>;

const ANY: WalkOutcome = Object.freeze({ ok: true, types: null });
const TYPE_NAMES = new Set<string>(["null", "boolean", "object", "array", "number", "integer", "string"]);
/** Keywords next to `properties` that may allow more keys than `properties` lists. */
const OPENING_KEYWORDS = [
  "$ref",
  "$dynamicRef",
  "allOf",
  "anyOf",
  "oneOf",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "patternProperties",
  "unevaluatedProperties",
];
/** Schema nodes visited per walk at most: recursive or huge schemas end as "anything". */
const BUDGET = 1_000;

/**
 * Walk `path` through `schema` (the root of its own local `$ref`s).
 *
 * @example
 * walkSchema({ type: "object", properties: { city: { type: "string" } }, additionalProperties: false }, [{ kind: "key", name: "ctiy" }])
 * // { ok: false, at: 0, code: "unknown-key", keys: ["city"], types: null }
 */
export function walkSchema(schema: unknown, path: readonly PathStep[]): WalkOutcome {
  try {
    if (!Array.isArray(path)) throw new RefError("invalid-args", "walkSchema needs a path array");
    return walk(schema, path, 0, { root: schema, visited: 0 });
  } catch (error) {
    // A schema or path that cannot be read (a throwing getter or Proxy trap): a RefError.
    throw asRefError(error, "the schema or path");
  }
}

interface Context {
  readonly root: unknown;
  visited: number;
}

/**
 * The property names a schema declares for the value itself (its `properties`, and those of the
 * branches of local `$ref`, `allOf`, `anyOf` and `oneOf`): the keys the schema knows by name, whether
 * or not it also allows others. Bounded like a walk; never throws (an unreadable schema declares nothing).
 *
 * @example
 * declaredKeys({ allOf: [{ properties: { a: {} } }, { properties: { b: {} } }] }) // Set { "a", "b" }
 */
export function declaredKeys(schema: unknown): Set<string> {
  const keys = new Set<string>();
  const context: Context = { root: schema, visited: 0 };
  const visit = (node: unknown): void => {
    if (++context.visited > BUDGET || !isPlainObject(node)) return;
    const properties = own(node, "properties");
    if (isPlainObject(properties)) for (const key of Object.keys(properties)) keys.add(key);
    const ref = own(node, "$ref");
    if (typeof ref === "string") visit(resolveLocalRef(context.root, ref));
    for (const keyword of ["allOf", "anyOf", "oneOf"]) {
      const branches = own(node, keyword);
      if (Array.isArray(branches)) for (const branch of branches) visit(branch);
    }
  };
  try {
    visit(schema);
  } catch {
    // A Proxy or a throwing trap somewhere in the schema: what was read so far.
  }
  return keys;
}

function walk(schema: unknown, path: readonly PathStep[], i: number, context: Context): WalkOutcome {
  if (++context.visited > BUDGET || !isPlainObject(schema)) return ANY;
  const outcomes: WalkOutcome[] = [local(schema, path, i, context)];
  const ref = own(schema, "$ref");
  if (typeof ref === "string") outcomes.push(walk(resolveLocalRef(context.root, ref), path, i, context));
  const allOf = own(schema, "allOf");
  if (Array.isArray(allOf)) for (const branch of allOf) outcomes.push(walk(branch, path, i, context));
  for (const keyword of ["anyOf", "oneOf"]) {
    const branches = own(schema, keyword);
    if (Array.isArray(branches) && branches.length > 0) outcomes.push(some(branches.map((branch) => walk(branch, path, i, context))));
  }
  return every(outcomes);
}

/** The schema's own keywords (not its combinators) applied to path step `i`. */
function local(schema: Record<string, unknown>, path: readonly PathStep[], i: number, context: Context): WalkOutcome {
  const types = typesOf(schema);
  const step = path[i];
  if (step === undefined) return { ok: true, types };
  if (step.kind === "key") {
    if (types !== null && !types.has("object")) return { ok: false, at: i, code: "not-indexable", keys: [], types };
    const properties = own(schema, "properties");
    if (isPlainObject(properties)) {
      const child = own(properties, step.name);
      if (child !== undefined) return walk(child, path, i + 1, context);
      if (own(schema, "additionalProperties") === false && OPENING_KEYWORDS.every((keyword) => own(schema, keyword) === undefined)) {
        return { ok: false, at: i, code: "unknown-key", keys: Object.keys(properties), types: null };
      }
    }
    if (own(schema, "patternProperties") !== undefined) return ANY;
    const additional = own(schema, "additionalProperties");
    return isPlainObject(additional) ? walk(additional, path, i + 1, context) : ANY;
  }
  if (types !== null && !types.has("array")) return { ok: false, at: i, code: "not-indexable", keys: [], types };
  const items = own(schema, "items");
  const tuple = own(schema, "prefixItems") ?? (Array.isArray(items) ? items : undefined);
  const rest = Array.isArray(items) ? own(schema, "additionalItems") : items;
  if (Array.isArray(tuple)) {
    if (step.index < tuple.length) return walk(own(tuple, String(step.index)), path, i + 1, context);
    if (
      rest === false &&
      own(schema, "unevaluatedItems") === undefined &&
      OPENING_KEYWORDS.every((keyword) => own(schema, keyword) === undefined)
    ) {
      return { ok: false, at: i, code: "unknown-key", keys: [], maxItems: tuple.length, types: null };
    }
  }
  return isPlainObject(rest) ? walk(rest, path, i + 1, context) : ANY;
}

/** Every outcome holds (allOf, and a schema's keywords together): the earliest certain failure wins. */
function every(outcomes: readonly WalkOutcome[]): WalkOutcome {
  let failure: Failure | undefined;
  let types: TypeSet = null;
  for (const outcome of outcomes) {
    if (!outcome.ok) {
      if (failure === undefined || outcome.at < failure.at) failure = outcome;
    } else if (outcome.types !== null) {
      types = types === null ? outcome.types : intersectTypes(types, outcome.types);
    }
  }
  if (failure !== undefined) return failure;
  // Contradictory types mean no value fits: say nothing rather than something odd.
  return types !== null && types.size === 0 ? ANY : { ok: true, types };
}

/** Some outcome holds (anyOf, oneOf): a failure only when every branch fails; the furthest one is reported. */
function some(outcomes: readonly WalkOutcome[]): WalkOutcome {
  const failures: Failure[] = [];
  let types: Set<JsonType> | null = new Set();
  for (const outcome of outcomes) {
    if (!outcome.ok) failures.push(outcome);
    else if (outcome.types === null || types === null) types = null;
    else for (const type of outcome.types) types.add(type);
  }
  if (failures.length < outcomes.length) return { ok: true, types };
  const at = failures.reduce((max, failure) => Math.max(max, failure.at), 0);
  const furthest = failures.filter((failure) => failure.at === at);
  const unknownKey = furthest.filter((failure) => failure.code === "unknown-key");
  if (unknownKey.length > 0) {
    const maxItems = unknownKey.map((failure) => failure.maxItems).filter((n): n is number => n !== undefined);
    return {
      ok: false,
      at,
      code: "unknown-key",
      keys: [...new Set(unknownKey.flatMap((failure) => failure.keys))],
      ...(maxItems.length > 0 ? { maxItems: maxItems.reduce((a, b) => Math.max(a, b)) } : {}),
      types: null,
    };
  }
  return { ok: false, at, code: "not-indexable", keys: [], types: unionTypes(furthest.map((failure) => failure.types)) };
}

/**
 * The types a schema's own `type`, `const` and `enum` allow (`null`: not constrained).
 *
 * @example
 * typesOf({ type: ["string", "null"] }) // Set { "string", "null" }
 */
export function typesOf(schema: Record<string, unknown>): TypeSet {
  let types: TypeSet = null;
  const type = own(schema, "type");
  const names = typeof type === "string" ? [type] : Array.isArray(type) ? type : undefined;
  if (names !== undefined && names.every((name) => typeof name === "string" && TYPE_NAMES.has(name))) types = new Set(names as JsonType[]);
  if (Object.hasOwn(schema, "const")) types = narrow(types, new Set([typeOfValue(own(schema, "const"))]));
  const values = own(schema, "enum");
  if (Array.isArray(values)) types = narrow(types, new Set(values.map(typeOfValue)));
  return types;
}

function narrow(types: TypeSet, by: ReadonlySet<JsonType>): TypeSet {
  return types === null ? by : intersectTypes(types, by);
}

/**
 * The JSON type of a value (`integer` for whole numbers).
 *
 * @example
 * typeOfValue(3) // "integer"
 */
export function typeOfValue(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "number":
    case "bigint":
      return Number.isInteger(Number(value)) ? "integer" : "number";
    default:
      return "object";
  }
}

/**
 * The types both sets allow; `integer` is part of `number`.
 *
 * @example
 * intersectTypes(new Set(["number"]), new Set(["integer", "string"])) // Set { "integer" }
 */
export function intersectTypes(a: ReadonlySet<JsonType>, b: ReadonlySet<JsonType>): Set<JsonType> {
  const out = new Set<JsonType>();
  for (const type of a) if (b.has(type)) out.add(type);
  if ((a.has("integer") && b.has("number")) || (a.has("number") && b.has("integer"))) out.add("integer");
  return out;
}

/**
 * The union of type sets (`null`, any type, absorbs everything).
 *
 * @example
 * unionTypes([new Set(["string"]), new Set(["null"])]) // Set { "string", "null" }
 */
export function unionTypes(sets: readonly TypeSet[]): TypeSet {
  const out = new Set<JsonType>();
  for (const set of sets) {
    if (set === null) return null;
    for (const type of set) out.add(type);
  }
  return out;
}

const TYPE_WORDS: Record<JsonType, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  null: "null",
  object: "an object",
  array: "an array",
};

/**
 * "a string", "a number or null"… for messages.
 *
 * @example
 * describeTypes(new Set(["number", "null"])) // "a number or null"
 */
export function describeTypes(types: TypeSet): string {
  if (types === null) return "any value";
  const words = [...types].map((type) => TYPE_WORDS[type]);
  return words.length === 0 ? "nothing" : words.length === 1 ? words[0]! : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;
}
