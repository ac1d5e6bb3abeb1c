/**
 * Options shared by the parser, the evaluator and everything built on them, with their defaults.
 * Every option is opt-in: with none, plan-refs speaks exactly the seed language.
 */
import { asRefError, RefError } from "./errors.js";

/** The reference syntaxes, in the order messages list them. */
export const SYNTAXES = ["seed", "path"] as const;

/** Which reference syntax to speak. */
export type Syntax = (typeof SYNTAXES)[number];

/** Options of the language itself (parser, printer, `isPlaceholder`). */
export interface SyntaxOptions {
  /** `"seed"` (default): `$1.key` where the key is the whole rest of the string. `"path"`: `$1.a.b[0]["c d"] ?? "x"`. */
  readonly syntax?: Syntax | undefined;
  /** Interpolate `${1.city}` inside strings (default `false`). */
  readonly templates?: boolean | undefined;
  /** Throw `RefSyntaxError` for a string that starts with `$` and a digit but is not a placeholder (default `false`). */
  readonly strict?: boolean | undefined;
  /** Longest placeholder or template string accepted, in UTF-16 code units (default 65,536). */
  readonly maxRefLength?: number | undefined;
  /** Most path segments in one reference (default 256); each interpolation of a template is one reference. */
  readonly maxSegments?: number | undefined;
  /** Most interpolations in one template (default 1,024). */
  readonly maxInterpolations?: number | undefined;
}

/** Options of `resolveRefs` (and of plans, which carry `syntax`, `templates` and `deep`). */
export interface ResolveOptions extends SyntaxOptions {
  /** Resolve placeholders inside nested plain objects and arrays too (default `false`: top-level values only). */
  readonly deep?: boolean | undefined;
  /** Deepest nesting of `args` walked with `deep` (default 256). */
  readonly maxDepth?: number | undefined;
  /** Most placeholders and templates resolved in one call (default 100,000). */
  readonly maxPlaceholders?: number | undefined;
  /** Longest string an interpolated template may produce (default 1,048,576). */
  readonly maxOutputLength?: number | undefined;
}

/** The kinds of option value, each with one validity rule and one way of saying it. */
type OptionKind = "syntax" | "boolean" | "limit";

/** One row of the options table. */
interface OptionSpec {
  readonly kind: OptionKind;
  readonly default: Syntax | boolean | number;
  /** Whether a plan may set it in its own `options` (the caller's options layer over the plan's). */
  readonly planSettable: boolean;
}

/**
 * The one table of language options: every name, its kind (validity rule and message), default and
 * whether a plan may set it come from here. Its order is the order options are checked and read (the
 * first bad one is the one thrown). Adding an option is a row here, its documented field in
 * `SyntaxOptions`/`ResolveOptions`, and its line in `readOptions` and in `sameOptionValues` (the
 * compiler and tests see to the last three).
 */
const OPTION_TABLE = {
  syntax: { kind: "syntax", default: "seed", planSettable: true },
  templates: { kind: "boolean", default: false, planSettable: true },
  strict: { kind: "boolean", default: false, planSettable: false },
  deep: { kind: "boolean", default: false, planSettable: true },
  maxRefLength: { kind: "limit", default: 65_536, planSettable: false },
  maxSegments: { kind: "limit", default: 256, planSettable: false },
  maxInterpolations: { kind: "limit", default: 1_024, planSettable: false },
  maxDepth: { kind: "limit", default: 256, planSettable: false },
  maxPlaceholders: { kind: "limit", default: 100_000, planSettable: false },
  maxOutputLength: { kind: "limit", default: 1_048_576, planSettable: false },
} as const satisfies Record<keyof Required<ResolveOptions>, OptionSpec>;

type OptionTable = typeof OPTION_TABLE;

/** The name of one language option. */
export type OptionName = keyof OptionTable;

type LimitName = { [N in OptionName]: OptionTable[N]["kind"] extends "limit" ? N : never }[OptionName];
type PlanOptionName = { [N in OptionName]: OptionTable[N]["planSettable"] extends true ? N : never }[OptionName];

/** Options with every default filled in. */
export type NormalizedOptions = {
  readonly [N in OptionName]: OptionTable[N]["kind"] extends "syntax"
    ? Syntax
    : OptionTable[N]["kind"] extends "boolean"
      ? boolean
      : number;
};

/** The names of every language option, in the order they are checked (the first bad one is the one thrown). */
export const OPTION_NAMES = Object.freeze(Object.keys(OPTION_TABLE) as OptionName[]);

/** The options a plan may set for itself in its `options` (the caller's options layer over them). */
export const PLAN_OPTION_NAMES = Object.freeze(OPTION_NAMES.filter((name) => OPTION_TABLE[name].planSettable) as PlanOptionName[]);

const normalizedDefaults = Object.freeze(
  Object.fromEntries(OPTION_NAMES.map((name) => [name, OPTION_TABLE[name].default])),
) as NormalizedOptions;

/** The defaults of every numeric limit. */
export const DEFAULT_LIMITS: Readonly<Pick<NormalizedOptions, LimitName>> = Object.freeze(
  Object.fromEntries(
    OPTION_NAMES.filter((name) => OPTION_TABLE[name].kind === "limit").map((name) => [name, OPTION_TABLE[name].default]),
  ) as Pick<NormalizedOptions, LimitName>,
);

const KIND_REQUIREMENTS: Readonly<Record<OptionKind, string>> = Object.freeze({
  syntax: SYNTAXES.map((syntax) => `"${syntax}"`).join(" or "),
  boolean: "a boolean",
  limit: "a non-negative integer",
});

/**
 * Whether two options objects hold the same value (`===`) for every option name: how the parser's
 * memo (grammar/options-memo.ts) sees that the options object it was given last has not changed.
 * Written out name by name because it runs for every string parsed: a loop over `OPTION_NAMES`
 * reads every field through one megamorphic property access, and measured a quarter of a fresh
 * parse. A test changes each name of `OPTION_NAMES` in turn, so a name left out here fails it.
 *
 * @example
 * sameOptionValues({ syntax: "path" }, { syntax: "path" }) // true
 * sameOptionValues({ syntax: "path" }, { syntax: "path", deep: true }) // false
 */
export function sameOptionValues(a: ResolveOptions, b: ResolveOptions): boolean {
  return (
    a.syntax === b.syntax &&
    a.templates === b.templates &&
    a.strict === b.strict &&
    a.deep === b.deep &&
    a.maxRefLength === b.maxRefLength &&
    a.maxSegments === b.maxSegments &&
    a.maxInterpolations === b.maxInterpolations &&
    a.maxDepth === b.maxDepth &&
    a.maxPlaceholders === b.maxPlaceholders &&
    a.maxOutputLength === b.maxOutputLength
  );
}

/** What a value of each option must be, as said in messages ("option deep must be a boolean"). */
export const OPTION_REQUIREMENTS: Readonly<Record<OptionName, string>> = Object.freeze(
  Object.fromEntries(OPTION_NAMES.map((name) => [name, KIND_REQUIREMENTS[OPTION_TABLE[name].kind]])) as Record<OptionName, string>,
);

/**
 * Whether `value` is a valid value of option `name` (`undefined`, "not set", is valid; so is a `null`
 * syntax, which means the default).
 *
 * @example
 * isValidOption("syntax", "path") // true
 * isValidOption("maxDepth", -1)   // false
 */
export function isValidOption(name: OptionName, value: unknown): boolean {
  if (value === undefined) return true;
  const kind: OptionKind = OPTION_TABLE[name].kind;
  switch (kind) {
    case "syntax":
      return value === null || (SYNTAXES as readonly unknown[]).includes(value);
    case "boolean":
      return typeof value === "boolean";
    case "limit":
      return typeof value === "number" && Number.isInteger(value) && value >= 0;
    default:
      return kind satisfies never;
  }
}

/** Validate options and fill in defaults. Throws `RefError` code `invalid-options` for a bad value. */
export function normalizeOptions(options: ResolveOptions | undefined): NormalizedOptions {
  if (options === undefined) return normalizedDefaults;
  if (options === null || typeof options !== "object") {
    throw new RefError("invalid-options", "options must be an object");
  }
  try {
    return readOptions(options);
  } catch (error) {
    // A getter or Proxy trap that throws, a revoked Proxy: code `access`, with the original as cause.
    throw asRefError(error, "the options");
  }
}

/**
 * Every option read, checked and defaulted. Written out name by name, like `sameOptionValues` and for
 * the same reason: a loop over `OPTION_NAMES` reads each option through one megamorphic keyed access
 * and measured four times slower per call (resolveRefs normalizes its options on every call). A test
 * sets each name of `OPTION_NAMES` in turn, so a name left out here fails it.
 */
function readOptions(options: ResolveOptions): NormalizedOptions {
  return {
    syntax: checked("syntax", options.syntax) as Syntax,
    templates: checked("templates", options.templates) as boolean,
    strict: checked("strict", options.strict) as boolean,
    deep: checked("deep", options.deep) as boolean,
    maxRefLength: checked("maxRefLength", options.maxRefLength) as number,
    maxSegments: checked("maxSegments", options.maxSegments) as number,
    maxInterpolations: checked("maxInterpolations", options.maxInterpolations) as number,
    maxDepth: checked("maxDepth", options.maxDepth) as number,
    maxPlaceholders: checked("maxPlaceholders", options.maxPlaceholders) as number,
    maxOutputLength: checked("maxOutputLength", options.maxOutputLength) as number,
  };
}

/** The value of an option, its default when not set; throws `invalid-options` for a bad one. */
function checked(name: OptionName, value: unknown): unknown {
  if (value === undefined || (value === null && name === "syntax")) return normalizedDefaults[name];
  if (!isValidOption(name, value)) throw new RefError("invalid-options", optionMessage(name));
  return value;
}

function optionMessage(name: OptionName): string {
  return `option ${name} must be ${OPTION_REQUIREMENTS[name]}`;
}

/** One problem found while layering options: a bad value (ignored), options that are not an object or cannot be read. */
export interface OptionProblem {
  /** `invalid-options` for a bad value or a non-object; `access` when reading the options threw (a Proxy trap). */
  readonly code: "invalid-options" | "access";
  /** The option, when the problem is one option's value. */
  readonly option?: OptionName;
  readonly message: string;
  /** What reading threw, for `access`. */
  readonly cause?: unknown;
}

/** What `layerOptions` returns: usable options whatever was given, and the problems found. */
export interface LayeredOptions {
  readonly options: NormalizedOptions;
  readonly problems: readonly OptionProblem[];
}

/**
 * The one rule for how a plan's `options` and a caller's options combine, used by every entry point
 * (`planGraph`, `lintPlan`, the editor functions, the drawings):
 *
 * - the plan's options are read first (its `syntax`, `templates`, `deep` only: `PLAN_OPTION_NAMES`),
 *   then the caller's (every name of `OPTION_NAMES`) override them where they set a value;
 *   `undefined` sets nothing, so `{ syntax: undefined }` keeps the plan's syntax;
 * - each option is read once, as `normalizeOptions` reads options (a getter runs, and what it throws
 *   is a problem with code `access`); other names are ignored here (they are the entry point's own,
 *   such as `tools`; a plan's unknown options are `readPlan`'s `invalid-plan`);
 * - a bad value is a problem and is ignored, so the layer below it (or the default) stands; options
 *   that are not an object, or that throw when read, are a problem and ignored as a whole.
 *
 * Problems are returned as data: the linter reports each as an `invalid-options` diagnostic, the
 * editor functions use the options as they are (the linter shows the problem), and every other entry
 * point throws the first one (`layeredOptions`).
 *
 * @example
 * layerOptions({ syntax: "path" }, { deep: true, syntax: undefined }).options.syntax // "path"
 * layerOptions({ syntax: "path" }, { syntax: "yaml" }).problems[0].message // 'option syntax must be "seed" or "path"'
 */
export function layerOptions(planOptions: unknown, callerOptions: unknown): LayeredOptions {
  const problems: OptionProblem[] = [];
  const merged: Partial<Record<OptionName, unknown>> = {};
  readLayer(planOptions, PLAN_OPTION_NAMES, merged, problems);
  readLayer(callerOptions, OPTION_NAMES, merged, problems);
  return { options: Object.keys(merged).length === 0 ? normalizedDefaults : readOptions(merged as ResolveOptions), problems };
}

/**
 * `layerOptions` for the entry points that throw: the options, or the first problem as a `RefError`
 * (code `invalid-options`, or `access` with what was thrown as its cause).
 *
 * @example
 * layeredOptions(undefined, { templates: true }).templates // true
 * layeredOptions(undefined, { maxDepth: -1 })              // throws RefError invalid-options
 */
export function layeredOptions(planOptions: unknown, callerOptions: unknown): NormalizedOptions {
  const { options, problems } = layerOptions(planOptions, callerOptions);
  const first = problems[0];
  if (first === undefined) return options;
  if (first.code === "access") throw asRefError(first.cause, "the options");
  throw new RefError("invalid-options", first.message);
}

function readLayer(
  layer: unknown,
  names: readonly OptionName[],
  merged: Partial<Record<OptionName, unknown>>,
  problems: OptionProblem[],
): void {
  if (layer === undefined) return;
  if (layer === null || typeof layer !== "object") {
    problems.push({ code: "invalid-options", message: "options must be an object" });
    return;
  }
  const values: unknown[] = [];
  try {
    for (const name of names) values.push((layer as Record<string, unknown>)[name]);
  } catch (error) {
    problems.push({ code: "access", message: asRefError(error, "the options").message, cause: error });
    return;
  }
  names.forEach((name, i) => {
    const value = values[i];
    if (value === undefined) return;
    if (isValidOption(name, value)) merged[name] = value;
    else problems.push({ code: "invalid-options", option: name, message: optionMessage(name) });
  });
}
