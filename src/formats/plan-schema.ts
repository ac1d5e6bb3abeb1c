/**
 * `planSchema(catalog, options)`: a JSON Schema of a plan over a tool catalog, for a model's structured
 * output. Each step is one branch per tool (`tool` is that tool's name, `args` follow its input schema);
 * wherever a value may be a reference, a string matching `referencePattern` is accepted too.
 *
 * Dialect `"openai-strict"` rewrites the schema into the subset that OpenAI's strict structured output
 * accepts; every rewrite is listed in `STRICT_REWRITES` and in docs/agents.md ("Plans from models").
 */
import { readTools, type JsonSchema, type ToolCatalog } from "../plan/plan.js";
import { describeThrown, RefError } from "../shared/errors.js";
import { layeredOptions, type ResolveOptions, type Syntax } from "../shared/options.js";
import { resolveLocalRef } from "../shared/pointer.js";
import { quoted, safeText } from "../shared/text.js";
import { defineOwn as define, isPlainObject, MISSING, ownData as own, readOwnData } from "../shared/own-data.js";
import { referencePattern } from "./reference-pattern.js";

/** Which JSON Schema to produce: full JSON Schema 2020-12, or OpenAI's strict structured-output subset. */
export type SchemaDialect = "json-schema" | "openai-strict";

/**
 * Options of `planSchema`: the dialect, and the plan's language options (`syntax`, `templates`, `deep`,
 * as in `ResolveOptions`); pass the same language options to `runPlan`.
 */
export interface PlanSchemaOptions extends Pick<ResolveOptions, "syntax" | "templates" | "deep"> {
  /** `"json-schema"` (default): JSON Schema 2020-12. `"openai-strict"`: the strict structured-output subset. */
  readonly dialect?: SchemaDialect | undefined;
}

/** The largest catalog `planSchema` reads: this many tools. */
export const MAX_SCHEMA_TOOLS = 1_000;
/** The deepest nesting of a tool's input schema that `planSchema` follows; deeper is a `limit` error. */
export const MAX_SCHEMA_DEPTH = 64;

/** The one check of `MAX_SCHEMA_DEPTH`: a `limit` error naming the tool whose input schema is too deep, when known. */
function checkSchemaDepth(depth: number, tool?: string): void {
  if (depth <= MAX_SCHEMA_DEPTH) return;
  throw new RefError(
    "limit",
    tool === undefined
      ? `a value in a tool's schema is nested deeper than ${MAX_SCHEMA_DEPTH}`
      : `the input schema of tool ${quoted(tool, 40)} is nested deeper than ${MAX_SCHEMA_DEPTH}`,
  );
}
/** The most schema nodes `planSchema` writes for one catalog; more is a `limit` error. */
export const MAX_SCHEMA_NODES = 100_000;

/** The formats that OpenAI's strict mode accepts on strings; any other `format` is dropped. */
export const STRICT_FORMATS: readonly string[] = Object.freeze([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);

/** The keywords an `openai-strict` schema may contain (any other is dropped or rewritten). */
export const STRICT_KEYWORDS: readonly string[] = Object.freeze([
  "type",
  "description",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "anyOf",
  "$ref",
  "$defs",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);

/** The JSON Schema types, in the order `openai-strict` splits a list of types. */
const TYPES = ["object", "array", "string", "number", "integer", "boolean", "null"] as const;
type TypeName = (typeof TYPES)[number];

/** Number keywords kept by `openai-strict`. */
const NUMBER_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"];
const ANNOTATIONS = ["title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"];
/** Keywords with one subschema. */
const ONE_SCHEMA = [
  "additionalProperties",
  "propertyNames",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "additionalItems",
];
/** Keywords with a list of subschemas. */
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
/** Keywords with a map of subschemas. */
const SCHEMA_MAPS = ["properties", "patternProperties", "dependentSchemas"];
/** Keywords dropped from an embedded tool schema: its definitions are hoisted when referenced, its identity is the plan's. */
const DROPPED = new Set(["$defs", "definitions", "$id", "$schema", "$anchor", "$dynamicAnchor", "$dynamicRef", "$vocabulary"]);

const REFERENCE_DEF = "reference";

/** Where a schema being rewritten comes from: a tool's input schema (its own `#` root). */
interface Origin {
  readonly tool: string;
  readonly root: JsonSchema;
}

/**
 * A JSON Schema for a plan over `catalog`, to give a model as its structured output format: an object
 * `{ steps: [{ id, tool, args }] }` where `tool` is one of the catalog's names and `args` follow that
 * tool's input schema; wherever a value may be a reference (top-level arguments, or every nested
 * value with `deep`), a string matching the reference language (`referencePattern`) is accepted too.
 * With `dialect: "openai-strict"` the schema is rewritten into the subset OpenAI's strict mode accepts.
 * Throws `RefError` `invalid-options` for a catalog or options it cannot use, `limit` past the limits.
 *
 * @example
 * const schema = planSchema({ geocode: { input: { type: "object", properties: { city: { type: "string" } } } } });
 * schema.properties.steps.items.anyOf[0]!.properties.tool // { type: "string", enum: ["geocode"] }
 */
export function planSchema(catalog: ToolCatalog, options: PlanSchemaOptions = {}): PlanSchema {
  const settings = readSchemaOptions(options);
  const tools = readCatalogOrThrow(catalog);
  try {
    return new SchemaWriter(settings).plan(tools);
  } catch (error) {
    if (error instanceof RefError) throw error;
    throw new RefError("invalid-options", `the catalog could not be read: ${safeText(describeThrown(error), 120)}`);
  }
}

const OUTPUT_DESCRIPTION =
  "Optional: what the plan gives back when every step has run, written like a step's args ($2 is step 2's result, $1.city its key city).";

/** A plan's `output`: an object shaped like `args`. */
const PLAIN_OUTPUT = Object.freeze({ type: "object", description: OUTPUT_DESCRIPTION });

/**
 * Strict mode has no object of free keys: the output is a list of name and value pairs (a value is a
 * string: a reference, a template or text), or null for none. `fromStrictOutput` turns it back.
 */
const STRICT_OUTPUT = Object.freeze({
  anyOf: [
    {
      type: "array",
      description: `${OUTPUT_DESCRIPTION} Each entry is one key of the output and its value.`,
      items: {
        type: "object",
        properties: { name: { type: "string" }, value: { type: "string" } },
        required: ["name", "value"],
        additionalProperties: false,
      },
    },
    { type: "null" },
  ],
});

/** The shape of what `planSchema` returns (a plain JSON value). */
export interface PlanSchema {
  readonly [keyword: string]: unknown;
  readonly type: "object";
  readonly properties: {
    readonly steps: { readonly type: "array"; readonly items: { readonly anyOf: readonly StepBranch[] } };
    readonly output: unknown;
  };
  readonly $defs: Readonly<Record<string, unknown>>;
}

/** One tool's branch of the step schema. */
export interface StepBranch {
  readonly [keyword: string]: unknown;
  readonly type: "object";
  readonly properties: {
    readonly id: unknown;
    readonly tool: { readonly type: "string"; readonly enum: readonly [string] };
    readonly args: unknown;
  };
}

interface Settings {
  readonly strict: boolean;
  readonly syntax: Syntax;
  readonly templates: boolean;
  readonly deep: boolean;
}

function readSchemaOptions(options: PlanSchemaOptions): Settings {
  if (typeof options !== "object" || options === null) throw new RefError("invalid-options", "planSchema options must be an object");
  const read = (name: string): unknown => {
    try {
      const value = readOwnData(options, name);
      return value === MISSING ? undefined : value;
    } catch (error) {
      throw new RefError("invalid-options", `planSchema option ${name} could not be read: ${safeText(describeThrown(error), 80)}`);
    }
  };
  const dialect = read("dialect") ?? "json-schema";
  if (dialect !== "json-schema" && dialect !== "openai-strict")
    throw new RefError("invalid-options", `option dialect must be "json-schema" or "openai-strict"`);
  // The language options are checked by the one rule every entry point shares (src/shared/options.ts).
  const { syntax, templates, deep } = layeredOptions(undefined, {
    syntax: read("syntax"),
    templates: read("templates"),
    deep: read("deep"),
  });
  return { strict: dialect === "openai-strict", syntax, templates, deep };
}

function readCatalogOrThrow(catalog: unknown): [string, JsonSchema | undefined, string | undefined][] {
  const problems: string[] = [];
  const tools = readTools(catalog, (pointer, message) => void problems.push(`${pointer || "/"}: ${message}`), "");
  if (problems.length > 0 || tools === undefined) {
    throw new RefError(
      "invalid-options",
      `planSchema needs a tool catalog: ${problems[0] ?? "an object mapping tool names to { input, output }"}`,
    );
  }
  const names = Object.keys(tools);
  if (names.length === 0) throw new RefError("invalid-options", "planSchema needs a catalog with at least one tool");
  if (names.length > MAX_SCHEMA_TOOLS)
    throw new RefError("limit", `the catalog has ${names.length} tools, over the limit of ${MAX_SCHEMA_TOOLS}`);
  return names.map((name) => {
    const spec = readOwnData(tools, name) as object;
    const input = readOwnData(spec, "input");
    const description = readOwnData(spec, "description");
    return [
      name,
      input === MISSING ? undefined : (input as JsonSchema | undefined),
      typeof description === "string" ? description : undefined,
    ];
  });
}

/** A deep copy of a JSON value (own data only): enum values, defaults, examples. */
function copyData(value: unknown, depth = 0): unknown {
  checkSchemaDepth(depth);
  if (Array.isArray(value)) return Array.from({ length: value.length }, (_, index) => copyData(own(value, String(index)), depth + 1));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) define(out, key, copyData(own(value, key), depth + 1));
    return out;
  }
  return typeof value === "number" && !Number.isFinite(value) ? null : value;
}

class SchemaWriter {
  readonly #defs: Record<string, unknown> = {};
  /** Definition names by tool and JSON Pointer of the referenced schema. */
  readonly #defNames = new Map<string, string>();
  readonly #usedNames = new Set<string>([REFERENCE_DEF]);
  #nodes = 0;

  constructor(readonly settings: Settings) {}

  plan(tools: [string, JsonSchema | undefined, string | undefined][]): PlanSchema {
    const strict = this.settings.strict;
    const branches = tools.map(([name, input, description]): StepBranch => {
      const properties = {
        id: { type: "integer", minimum: 0, description: "The step number; $1 in a later step is this step's result." },
        tool: { type: "string" as const, enum: [name] as const },
        args: this.args({ tool: name, root: input ?? true }),
      };
      // The tool's description tells the model what the tool is for.
      return {
        type: "object",
        ...(description === undefined ? {} : { description }),
        properties,
        required: ["id", "tool", "args"],
        additionalProperties: false,
      };
    });
    const reference = {
      type: "string",
      pattern: referencePattern(this.settings),
      description:
        this.settings.syntax === "path"
          ? "A reference to an earlier step's result: $1, $1.city, $1.items[0]."
          : "A reference to an earlier step's result: $1 (the whole result) or $1.key.",
    };
    const defs: Record<string, unknown> = {};
    define(defs, REFERENCE_DEF, reference);
    for (const key of Object.keys(this.#defs)) define(defs, key, this.#defs[key]);
    const steps = {
      type: "array" as const,
      description: "The tool calls, in order. A step may use the results of the steps before it.",
      items: { anyOf: branches },
    };
    return {
      ...(strict ? {} : { $schema: "https://json-schema.org/draft/2020-12/schema" }),
      type: "object",
      properties: { steps, output: strict ? STRICT_OUTPUT : PLAIN_OUTPUT },
      required: strict ? ["steps", "output"] : ["steps"],
      additionalProperties: false,
      $defs: defs,
    };
  }

  /** The schema of a tool's `args`: always an object (the plan format requires one). */
  args(origin: Origin): unknown {
    let schema = origin.root;
    // An input schema that is only a local `$ref` (`{ "$ref": "#/$defs/Args" }`): its target is the args object.
    for (let hops = 0; isPlainObject(schema) && typeof own(schema, "$ref") === "string" && hops < 8; hops++) {
      const target = this.resolveLocal(origin, own(schema, "$ref") as string);
      if (target === undefined) break;
      schema = target;
    }
    if (
      schema === true ||
      schema === undefined ||
      (isPlainObject(schema) && Object.keys(schema).every((key) => DROPPED.has(key) || ANNOTATIONS.includes(key)))
    ) {
      const free = this.settings.strict
        ? { type: "object", properties: {}, required: [], additionalProperties: false }
        : { type: "object" };
      return free;
    }
    if (schema === false)
      return this.settings.strict ? { type: "object", properties: {}, required: [], additionalProperties: false } : false;
    const args = this.schema(origin, schema, 0, "args");
    // A plan's args is always an object: say so where the tool's schema does not (Ajv's strict mode wants it beside "properties").
    return isPlainObject(args) && !Object.hasOwn(args, "type") && !Object.hasOwn(args, "$ref") ? { type: "object", ...args } : args;
  }

  /**
   * Rewrite one schema. `position`: `"args"` for the arguments object, `"top"` for a top-level argument's
   * value, `"nested"` for anything deeper. A value position where a reference may stand gets the
   * reference alternative.
   */
  schema(origin: Origin, schema: unknown, depth: number, position: "args" | "top" | "nested"): unknown {
    checkSchemaDepth(depth, origin.tool);
    if (++this.#nodes > MAX_SCHEMA_NODES) throw new RefError("limit", `the plan schema would have more than ${MAX_SCHEMA_NODES} nodes`);
    const isArgs = position === "args";
    const body = this.settings.strict ? this.strictBody(origin, schema, depth, isArgs) : this.plainBody(origin, schema, depth, isArgs);
    const referable = position === "top" || (position === "nested" && this.settings.deep);
    if (!referable || body === true) return body;
    if (isPlainObject(body) && Object.keys(body).length === 0) return body;
    // Any string is already accepted: a reference adds nothing.
    if (isPlainObject(body) && body["type"] === "string" && Object.keys(body).every((key) => key === "type" || key === "description"))
      return body;
    const reference = { $ref: `#/$defs/${REFERENCE_DEF}` };
    // One flat anyOf: a body that is only an anyOf gets the reference as one more branch.
    if (isPlainObject(body) && Object.keys(body).length === 1 && Array.isArray(body["anyOf"]))
      return { anyOf: [...(body["anyOf"] as unknown[]), reference] };
    return { anyOf: [body, reference] };
  }

  /** The position of a subschema below one at `depth`: a property of `args` is a top-level value. */
  #below(parentIsArgs: boolean): "top" | "nested" {
    return parentIsArgs ? "top" : "nested";
  }

  /** JSON Schema 2020-12: the tool's schema as written, with local `$ref`s hoisted and reference alternatives added. */
  plainBody(origin: Origin, schema: unknown, depth: number, isArgs: boolean): unknown {
    checkSchemaDepth(depth, origin.tool);
    if (typeof schema === "boolean") return schema;
    if (!isPlainObject(schema)) return true; // not a schema (readTools checked the root only): no constraint
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(schema)) {
      if (DROPPED.has(key)) continue;
      const value = own(schema, key);
      if (key === "$ref") {
        const name = typeof value === "string" ? this.defFor(origin, value, depth) : undefined;
        if (name !== undefined) out["$ref"] = `#/$defs/${name}`;
      } else if (SCHEMA_MAPS.includes(key) && isPlainObject(value)) {
        const map: Record<string, unknown> = {};
        const values = key === "properties" || key === "patternProperties";
        for (const name of Object.keys(value))
          define(map, name, this.schema(origin, own(value, name), depth + 1, values ? this.#below(isArgs) : "nested"));
        out[key] = map;
      } else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) {
        // Branches of anyOf/oneOf/allOf describe this same value: they stay at this position's level.
        const itemPosition = key === "prefixItems" ? this.#below(false) : "nested";
        out[key] = Array.from({ length: value.length }, (_, index) =>
          key === "prefixItems"
            ? this.schema(origin, own(value, String(index)), depth + 1, itemPosition)
            : this.plainBody(origin, own(value, String(index)), depth + 1, isArgs),
        );
      } else if (key === "items") {
        out[key] = Array.isArray(value)
          ? Array.from({ length: value.length }, (_, index) => this.schema(origin, own(value, String(index)), depth + 1, "nested"))
          : this.schema(origin, value, depth + 1, "nested");
      } else if (key === "additionalProperties" && typeof value === "object") {
        out[key] = this.schema(origin, value, depth + 1, this.#below(isArgs));
      } else if (ONE_SCHEMA.includes(key)) {
        out[key] = this.plainBody(origin, value, depth + 1, false);
      } else {
        define(out, key, copyData(value));
      }
    }
    return out;
  }

  /** OpenAI strict: see `STRICT_REWRITES`. */
  strictBody(origin: Origin, schema: unknown, depth: number, isArgs: boolean): unknown {
    checkSchemaDepth(depth, origin.tool);
    if (schema === true || schema === undefined) return anyScalar();
    if (schema === false || !isPlainObject(schema)) return { type: "null" };
    const description = own(schema, "description");
    const described = (out: Record<string, unknown>): Record<string, unknown> =>
      typeof description === "string" && !("description" in out) ? { ...out, description } : out;
    const ref = own(schema, "$ref");
    if (typeof ref === "string") {
      const name = this.defFor(origin, ref, depth);
      return name === undefined ? anyScalar() : described({ $ref: `#/$defs/${name}` });
    }
    // allOf: merged into the schema (properties and required combined, other keywords of later branches win).
    const allOf = own(schema, "allOf");
    if (Array.isArray(allOf) && allOf.length > 0) {
      const merged = mergeAll(schema, allOf);
      return this.strictBody(origin, merged, depth + 1, isArgs);
    }
    // anyOf / oneOf: one anyOf, each branch merged with the keywords beside it.
    const branches = own(schema, "anyOf") ?? own(schema, "oneOf");
    if (Array.isArray(branches) && branches.length > 0) {
      const base = withoutKeys(schema, ["anyOf", "oneOf"]);
      const anyOf = Array.from({ length: branches.length }, (_, index) => {
        const branch = own(branches, String(index));
        return this.strictBody(
          origin,
          isPlainObject(branch) ? { ...base, ...copyShallow(branch) } : branch === false ? false : base,
          depth + 1,
          isArgs,
        );
      });
      return described({ anyOf });
    }
    const types = typesOf(schema);
    if (types.length > 1) {
      return described({ anyOf: types.map((type) => this.strictBody(origin, { ...copyShallow(schema), type }, depth + 1, isArgs)) });
    }
    const type = types[0];
    const out: Record<string, unknown> = {};
    if (type !== undefined) out["type"] = type;
    if (typeof description === "string") out["description"] = description;
    const enumValues = own(schema, "enum");
    const constValue = own(schema, "const");
    if (Array.isArray(enumValues)) out["enum"] = copyData(enumValues);
    else if (constValue !== undefined) out["enum"] = [copyData(constValue)];
    if (out["enum"] !== undefined && type === undefined) {
      const inferred = inferType(out["enum"] as unknown[]);
      if (inferred !== undefined) out["type"] = inferred;
      return out;
    }
    if (type === undefined)
      return out["enum"] !== undefined ? out : { ...anyScalar(), ...(typeof description === "string" ? { description } : {}) };
    if (type === "object") {
      const properties = own(schema, "properties");
      const required = own(schema, "required");
      const requiredSet = new Set(Array.isArray(required) ? required.filter((name): name is string => typeof name === "string") : []);
      const map: Record<string, unknown> = {};
      const names = isPlainObject(properties) ? Object.keys(properties) : [];
      for (const name of names) {
        const value = this.schema(origin, own(properties, name), depth + 1, this.#below(isArgs));
        define(map, name, requiredSet.has(name) ? value : nullable(value));
      }
      out["properties"] = map;
      out["required"] = names;
      out["additionalProperties"] = false;
    } else if (type === "array") {
      const items = own(schema, "items");
      const prefix = own(schema, "prefixItems");
      const tuple = Array.isArray(prefix) ? prefix : Array.isArray(items) ? items : undefined;
      if (tuple !== undefined && tuple.length > 0) {
        const entries = Array.from({ length: tuple.length }, (_, index) =>
          this.schema(origin, own(tuple, String(index)), depth + 1, "nested"),
        );
        out["items"] = entries.length === 1 ? entries[0] : { anyOf: entries };
      } else {
        out["items"] = this.schema(origin, items === undefined || Array.isArray(items) ? true : items, depth + 1, "nested");
      }
      for (const key of ["minItems", "maxItems"]) if (typeof own(schema, key) === "number") out[key] = own(schema, key);
    } else if (type === "string") {
      const pattern = own(schema, "pattern");
      const format = own(schema, "format");
      if (typeof pattern === "string") out["pattern"] = pattern;
      if (typeof format === "string" && STRICT_FORMATS.includes(format)) out["format"] = format;
    } else if (type === "number" || type === "integer") {
      for (const key of NUMBER_KEYWORDS) if (typeof own(schema, key) === "number") out[key] = own(schema, key);
    }
    return out;
  }

  /** The plan-level definition for a local `$ref` of a tool schema (hoisted once), or undefined for a remote one. */
  defFor(origin: Origin, ref: string, depth: number): string | undefined {
    const key = `${origin.tool}\u0000${ref}`;
    const known = this.#defNames.get(key);
    if (known !== undefined) return known;
    const target = this.resolveLocal(origin, ref);
    if (target === undefined) return undefined;
    const base = `${origin.tool}_${ref.slice(ref.lastIndexOf("/") + 1) || "root"}`.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 60);
    let name = base;
    for (let n = 2; this.#usedNames.has(name); n++) name = `${base}_${n}`;
    this.#usedNames.add(name);
    this.#defNames.set(key, name);
    // Reserved before it is written, so a recursive schema refers to itself.
    define(this.#defs, name, true);
    define(
      this.#defs,
      name,
      this.settings.strict ? this.strictBody(origin, target, depth + 1, false) : this.plainBody(origin, target, depth + 1, false),
    );
    return name;
  }

  /** The schema a local `$ref` (`#`, `#/$defs/x`, any JSON Pointer) points at in the tool's schema, or undefined. */
  resolveLocal(origin: Origin, ref: string): JsonSchema | undefined {
    const value = resolveLocalRef(origin.root, ref);
    return typeof value === "boolean" || isPlainObject(value) ? value : undefined;
  }
}

/** A value of any JSON type but object and array: what strict mode can say of "anything". */
function anyScalar(): Record<string, unknown> {
  return { anyOf: [{ type: "string" }, { type: "number" }, { type: "boolean" }, { type: "null" }] };
}

/** `schema` or null (an optional property in strict mode, where every property is required). */
function nullable(schema: unknown): unknown {
  if (isPlainObject(schema) && Object.keys(schema).length === 1 && Array.isArray(schema["anyOf"])) {
    const branches = schema["anyOf"] as unknown[];
    if (branches.some((branch) => isPlainObject(branch) && branch["type"] === "null" && Object.keys(branch).length === 1)) return schema;
    return { anyOf: [...branches, { type: "null" }] };
  }
  return { anyOf: [schema, { type: "null" }] };
}

function typesOf(schema: Record<string, unknown>): TypeName[] {
  const type = own(schema, "type");
  const list = Array.isArray(type) ? type : type === undefined ? [] : [type];
  const types = TYPES.filter((name) => list.includes(name));
  if (types.length > 0) return types;
  if (own(schema, "properties") !== undefined || own(schema, "additionalProperties") !== undefined) return ["object"];
  if (own(schema, "items") !== undefined || own(schema, "prefixItems") !== undefined) return ["array"];
  return [];
}

function inferType(values: readonly unknown[]): TypeName | undefined {
  if (values.length === 0) return undefined;
  if (values.every((value) => typeof value === "string")) return "string";
  if (values.every((value) => typeof value === "boolean")) return "boolean";
  if (values.every((value) => typeof value === "number")) return values.every((value) => Number.isInteger(value)) ? "integer" : "number";
  return undefined;
}

function copyShallow(schema: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(schema)) define(out, key, own(schema, key));
  return out;
}

function withoutKeys(schema: object, keys: readonly string[]): Record<string, unknown> {
  const out = copyShallow(schema);
  for (const key of keys) delete out[key];
  return out;
}

/** `allOf` merged into its schema: properties and required combined, other keywords of later branches win. */
function mergeAll(schema: Record<string, unknown>, allOf: unknown[]): Record<string, unknown> {
  let merged = withoutKeys(schema, ["allOf"]);
  for (let index = 0; index < allOf.length; index++) {
    const branch = own(allOf, String(index));
    if (!isPlainObject(branch)) continue;
    const next = { ...merged, ...copyShallow(branch) };
    const properties = {
      ...(isPlainObject(merged["properties"]) ? copyShallow(merged["properties"]) : {}),
      ...(isPlainObject(branch["properties"]) ? copyShallow(branch["properties"]) : {}),
    };
    if (Object.keys(properties).length > 0) next["properties"] = properties;
    const required = [
      ...(Array.isArray(merged["required"]) ? (merged["required"] as unknown[]) : []),
      ...(Array.isArray(own(branch, "required")) ? (own(branch, "required") as unknown[]) : []),
    ];
    if (required.length > 0) next["required"] = [...new Set(required)];
    merged = next;
  }
  return merged;
}

/**
 * What `dialect: "openai-strict"` rewrites, in the order docs/agents.md lists it: each entry is the
 * construct and what it becomes.
 */
export const STRICT_REWRITES: readonly (readonly [construct: string, becomes: string])[] = Object.freeze([
  ["an optional property", "required, and its schema or null (anyOf [schema, {type: null}]); a null means the argument was left out"],
  ["an object", "additionalProperties: false; an object with no declared properties (a free-form map) becomes the empty object"],
  ["a list of types (type: [a, b])", "anyOf of one schema per type"],
  ["oneOf", "anyOf (any branch, not exactly one)"],
  ["allOf", "merged into one schema (properties and required combined)"],
  ["const", "an enum of one value"],
  ["no type, enum or branches (true, {})", "any scalar: anyOf string, number, boolean, null"],
  ["an array without items, or a tuple", "items: any scalar, or anyOf of the tuple's entries"],
  ["a local $ref", "a $ref into the plan's $defs (both dialects); a remote $ref becomes any scalar"],
  [
    "the plan's output (an object of any keys)",
    "a list of { name, value } pairs (each value a string: a reference, a template or text), or null for none; fromStrictOutput turns it back into the object",
  ],
  [
    "not, if/then/else, patternProperties, propertyNames, dependentSchemas, min/maxProperties, minLength, maxLength, uniqueItems, contains, default, examples, title, a format strict mode does not know",
    "dropped (the schema gets looser; lintPlan checks the plan against the catalog as written)",
  ],
]);
