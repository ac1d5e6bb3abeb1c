/**
 * Options shared by the parser, the evaluator and everything built on them, with their defaults.
 * Every option is opt-in: with none, plan-refs speaks exactly the seed language.
 */
import { asRefError, RefError } from "./errors.js";

/** Which reference syntax to speak. */
export type Syntax = "seed" | "path";

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

/** The defaults of every numeric limit. */
export const DEFAULT_LIMITS = Object.freeze({
  maxRefLength: 65_536,
  maxSegments: 256,
  maxInterpolations: 1_024,
  maxDepth: 256,
  maxPlaceholders: 100_000,
  maxOutputLength: 1_048_576,
});

/** Options with every default filled in. */
export interface NormalizedOptions {
  readonly syntax: Syntax;
  readonly templates: boolean;
  readonly strict: boolean;
  readonly deep: boolean;
  readonly maxRefLength: number;
  readonly maxSegments: number;
  readonly maxInterpolations: number;
  readonly maxDepth: number;
  readonly maxPlaceholders: number;
  readonly maxOutputLength: number;
}

const normalizedDefaults: NormalizedOptions = Object.freeze({
  syntax: "seed",
  templates: false,
  strict: false,
  deep: false,
  ...DEFAULT_LIMITS,
});

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

function readOptions(options: ResolveOptions): NormalizedOptions {
  const syntax = options.syntax ?? "seed";
  if (syntax !== "seed" && syntax !== "path") {
    throw new RefError("invalid-options", `option syntax must be "seed" or "path"`);
  }
  return {
    syntax,
    templates: flag(options.templates, "templates"),
    strict: flag(options.strict, "strict"),
    deep: flag(options.deep, "deep"),
    maxRefLength: limit(options.maxRefLength, "maxRefLength"),
    maxSegments: limit(options.maxSegments, "maxSegments"),
    maxInterpolations: limit(options.maxInterpolations, "maxInterpolations"),
    maxDepth: limit(options.maxDepth, "maxDepth"),
    maxPlaceholders: limit(options.maxPlaceholders, "maxPlaceholders"),
    maxOutputLength: limit(options.maxOutputLength, "maxOutputLength"),
  };
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") throw new RefError("invalid-options", `option ${name} must be a boolean`);
  return value;
}

function limit(value: unknown, name: keyof typeof DEFAULT_LIMITS): number {
  if (value === undefined) return DEFAULT_LIMITS[name];
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new RefError("invalid-options", `option ${name} must be a non-negative integer`);
  }
  return value;
}
