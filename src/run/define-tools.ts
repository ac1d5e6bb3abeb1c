/**
 * `defineTools`: declare the tools given to `runPlan` with typed arguments. `runPlan` calls every
 * tool with `Record<string, unknown>` (the arguments a plan resolved to), so a function that declares
 * `(args: { city: string }) => …` is not a `ToolFunction` under `--strict`; `defineTools` takes such
 * functions and gives back the same object typed as tools `runPlan` accepts, without a cast. With a
 * catalog, the tool names must be the catalog's and each tool's arguments are typed from its input
 * JSON Schema.
 *
 * The argument types are a promise the tool makes about what it is given, not a check: `runPlan`
 * resolves arguments without validating them against the types. With a catalog, `lintPlan` (run by
 * `runPlan` before any tool) checks that referenced outputs match the input schemas.
 */
import { didYouMean } from "../lint/did-you-mean.js";
import { readTools, type ToolCatalog } from "../plan/plan.js";
import { isPlainObject, ownData } from "../shared/own-data.js";
import { asRefError, RefError } from "../shared/errors.js";
import { listSome, quoted } from "../shared/text.js";
import type { ToolContext, ToolFunction } from "./run-plan.js";
import type { StandardTypedV1 } from "@standard-schema/spec";

/** A tool whose arguments have a declared type: `runPlan` calls it with the resolved arguments. */
export type TypedTool<Args extends object = Record<string, unknown>> = (args: Args, context: ToolContext) => unknown;

/** What `defineTools` gives back: the same tools, each a `ToolFunction`, so `runPlan` accepts them. */
export type DefinedTools<Names extends PropertyKey> = { readonly [Name in Names]: ToolFunction };

/**
 * The TypeScript type of a value that a JSON Schema describes, for the schema keywords that have one:
 * `const`, `enum`, `type` (one or a list), `properties` with `required`, `items`. Anything else (and
 * a schema whose type is not a literal, such as one read from a `.json` file) is `unknown`.
 */
export type SchemaValue<Schema> = Schema extends { readonly const: infer Value }
  ? Value
  : Schema extends { readonly enum: readonly (infer Value)[] }
    ? Value
    : Schema extends { readonly type: infer Type }
      ? ValueOfType<Type, Schema>
      : Schema extends { readonly properties: object }
        ? SchemaObject<Schema>
        : unknown;

type ValueOfType<Type, Schema> = Type extends "string"
  ? string
  : Type extends "number" | "integer"
    ? number
    : Type extends "boolean"
      ? boolean
      : Type extends "null"
        ? null
        : Type extends "array"
          ? Schema extends { readonly items: infer Items }
            ? SchemaValue<Items>[]
            : unknown[]
          : Type extends "object"
            ? SchemaObject<Schema>
            : Type extends readonly (infer One)[]
              ? ValueOfType<One, Schema>
              : unknown;

type RequiredNames<Schema> = Schema extends { readonly required: readonly (infer Name)[] } ? Name : never;

type SchemaObject<Schema> = Schema extends { readonly properties: infer Properties }
  ? Flatten<
      { [Name in keyof Properties & RequiredNames<Schema>]: SchemaValue<Properties[Name]> } & {
        [Name in Exclude<keyof Properties, RequiredNames<Schema>>]?: SchemaValue<Properties[Name]>;
      }
    >
  : Record<string, unknown>;

type Flatten<T> = { [K in keyof T]: T[K] };

/**
 * The arguments of a catalog's tool, typed from its input schema: a schema library's schema (Standard
 * Schema) gives its inferred input type; a JSON Schema an object with the schema's `properties` (those
 * in `required` required); else `Record<string, unknown>`.
 */
export type ToolArgs<Spec> = Spec extends { readonly input: infer Input }
  ? ArgsOf<Input extends StandardTypedV1 ? StandardTypedV1.InferInput<Input> : SchemaValue<Input>>
  : Record<string, unknown>;

type ArgsOf<Value> = [Value] extends [object]
  ? [Value] extends [readonly unknown[]]
    ? Record<string, unknown>
    : Value
  : Record<string, unknown>;

/**
 * Any tool, whatever its declared arguments: a method's parameter is compared both ways, so a tool
 * that takes `{ city: string }` fits, and an argument with no declared type is `Record<string, unknown>`.
 */
type AnyTool = { tool(args: Record<string, unknown>, context: ToolContext): unknown }["tool"];

/** The same for arguments declared by an interface. */
type AnyObjectTool = { tool(args: object, context: ToolContext): unknown }["tool"];

/** The implementations a catalog asks for: one per tool, its arguments typed by the input schema. */
export type CatalogTools<Catalog extends ToolCatalog> = { readonly [Name in keyof Catalog]: TypedTool<ToolArgs<Catalog[Name]>> };

/**
 * Declare tools with typed arguments; the same object comes back, typed so that `runPlan` takes it.
 *
 * @example
 * const tools = defineTools({
 *   geocode: async ({ city }: { city: string }, { signal }) => lookUp(city, { signal }),
 *   weather: ({ lat, lon }: { lat: number; lon: number }) => forecast(lat, lon),
 * });
 * await runPlan(plan, tools);
 */
export function defineTools<const Tools extends { readonly [name: string]: AnyTool }>(tools: Tools): DefinedTools<keyof Tools>;
/**
 * Declare tools with typed arguments, some declared by an `interface` (which `Record<string, unknown>`
 * does not describe): an argument with no declared type is then `object`.
 *
 * @example
 * interface Place { city: string }
 * const tools = defineTools({ geocode: ({ city }: Place) => lookUp(city) });
 */
export function defineTools<const Tools extends { readonly [name: string]: AnyObjectTool }>(tools: Tools): DefinedTools<keyof Tools>;
/**
 * Declare the tools of a catalog: the names must be the catalog's (each one implemented, no other),
 * and each tool's arguments are typed from its input schema (declare the catalog `as const`).
 *
 * @example
 * const catalog = {
 *   geocode: { input: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
 * } as const;
 * const tools = defineTools(catalog, { geocode: async ({ city }) => lookUp(city) }); // city: string
 * await runPlan(plan, tools, { catalog });
 *
 * @example
 * // A schema library's schemas (Zod, ArkType, …): the arguments have the schema's input type.
 * const catalog = { geocode: { input: z.object({ city: z.string() }) } };
 * const tools = defineTools(catalog, { geocode: async ({ city }) => lookUp(city) }); // city: string
 */
export function defineTools<const Catalog extends ToolCatalog>(catalog: Catalog, tools: CatalogTools<Catalog>): DefinedTools<keyof Catalog>;
export function defineTools(...args: readonly unknown[]): unknown {
  try {
    if (args.length === 1) return checkTools(args[0]);
    if (args.length === 2) return checkCatalogTools(args[0], args[1]);
  } catch (error) {
    throw asRefError(error, "the tools given to defineTools");
  }
  throw new RefError("invalid-args", `defineTools takes the tools, or a catalog and the tools (it was given ${args.length} arguments)`);
}

/** The tools, if every own property is a function held as data (getters never run); else a RefError. */
function checkTools(tools: unknown): unknown {
  if (!isPlainObject(tools))
    throw new RefError("invalid-args", "defineTools: the tools must be a plain object mapping tool names to functions");
  for (const name of Object.keys(tools)) {
    if (typeof ownData(tools, name) !== "function") {
      throw new RefError("invalid-args", `defineTools: tool ${quoted(name, 40)} must be a function`);
    }
  }
  return tools;
}

function checkCatalogTools(catalogValue: unknown, tools: unknown): unknown {
  const problems: string[] = [];
  const catalog = readTools(
    catalogValue,
    (pointer, message) => void problems.push(pointer === "" ? message : `at ${pointer}: ${message}`),
    "",
  );
  if (catalog === undefined || problems.length > 0) {
    throw new RefError(
      "invalid-args",
      `defineTools: the catalog is not a tool catalog: ${problems[0] ?? "it must be an object mapping tool names to { description, input, output }"}`,
    );
  }
  checkTools(tools);
  const names = Object.keys(tools as object);
  const known = Object.keys(catalog);
  const extra = names.find((name) => !Object.hasOwn(catalog, name));
  if (extra !== undefined) {
    const near = didYouMean(extra, known);
    throw new RefError(
      "invalid-args",
      `defineTools: tool ${quoted(extra, 40)} is not in the catalog; ${near === undefined ? `its tools: ${listSome(known)}` : `did you mean ${quoted(near, 40)}?`}`,
    );
  }
  const missing = known.find((name) => !Object.hasOwn(tools as object, name));
  if (missing !== undefined) throw new RefError("invalid-args", `defineTools: the catalog's tool ${quoted(missing, 40)} has no function`);
  return tools;
}
