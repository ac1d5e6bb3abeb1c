/**
 * Finding the references in a step's arguments, with the same grammar and the same rules about where
 * placeholders count (top level, or everywhere with `deep`) as `resolveRefs`.
 */
import { referencesIn, type ReferenceNode, type RefAst } from "../grammar/ast.js";
import { classifyString } from "../grammar/parse.js";
import { isPlainArray, isPlainObject } from "../resolve/access.js";
import type { RefError } from "../shared/errors.js";
import type { NormalizedOptions } from "../shared/options.js";
import { pointerToken } from "../shared/pointer.js";

/** A string argument that is a placeholder or template. */
export interface ArgReference {
  /** Where in `args`, as a JSON Pointer (`/q`, `/filters/0/city`). */
  readonly pointer: string;
  /** The whole string. */
  readonly text: string;
  readonly ast: RefAst;
  /** Every reference inside, defaults and template parts included, in source order. */
  readonly references: readonly ReferenceNode[];
}

/** A string that looks like a placeholder (or template) but is not valid. */
export interface MalformedArg {
  readonly pointer: string;
  readonly text: string;
  readonly error: RefError;
}

/** What `scanArgs` finds in one step's arguments. */
export interface ArgScan {
  readonly refs: readonly ArgReference[];
  readonly malformed: readonly MalformedArg[];
  /** Placeholders nested inside objects or arrays that are not resolved because `deep` is off. */
  readonly unresolvedNested: readonly { readonly pointer: string; readonly text: string }[];
  /**
   * Strings the resolver reads (top level, or anywhere with `deep`) that pass through as text only
   * because `templates` is off, though they hold `${` and a digit (`"Weather in ${1.city}"`).
   */
  readonly templateLike: readonly { readonly pointer: string; readonly text: string }[];
  /** With `deep`: the first container nested deeper than `maxDepth` (the resolver throws a `limit` error there). */
  readonly tooDeep: string | undefined;
}

const TEMPLATE_LIKE = /\$\{[0-9]/;

/** The same options with `strict` on, made once per options object (scanning calls this per step). */
const strictOptions = new WeakMap<NormalizedOptions, NormalizedOptions>();
function strictOf(options: NormalizedOptions): NormalizedOptions {
  let strict = strictOptions.get(options);
  if (strict === undefined) {
    strict = { ...options, strict: true };
    strictOptions.set(options, strict);
  }
  return strict;
}

/** A JSON Pointer token; most keys need no escaping, so skip the replacements for them. */
function token(key: string): string {
  return key.includes("~") || key.includes("/") ? pointerToken(key) : key;
}

/**
 * Scan a step's arguments for references. Never throws: invalid strings are reported as `malformed`.
 * Nesting is walked up to `options.maxDepth`, and each container once.
 */
export function scanArgs(args: unknown, options: NormalizedOptions): ArgScan {
  const refs: ArgReference[] = [];
  const malformed: MalformedArg[] = [];
  const unresolvedNested: { pointer: string; text: string }[] = [];
  const templateLike: { pointer: string; text: string }[] = [];
  let tooDeep: string | undefined;
  const strict = strictOf(options);
  const seen = new Set<object>();

  const visitString = (value: string, pointer: string, depth: number): void => {
    const classified = classifyString(value, strict);
    if (classified.kind === "literal") {
      if (!options.templates && (depth <= 1 || options.deep) && value.includes("${") && TEMPLATE_LIKE.test(value)) templateLike.push({ pointer, text: value });
      return;
    }
    if (depth > 1 && !options.deep) {
      if (classified.kind === "ref") unresolvedNested.push({ pointer, text: value });
      return;
    }
    if (classified.kind === "error") malformed.push({ pointer, text: value, error: classified.error });
    else refs.push({ pointer, text: value, ast: classified.ast, references: referencesIn(classified.ast) });
  };

  // An explicit stack (children pushed in reverse) visits in document order without recursion.
  const stack: { value: unknown; pointer: string; depth: number }[] = [{ value: args, pointer: "", depth: 0 }];
  while (stack.length > 0) {
    const { value, pointer, depth } = stack.pop()!;
    if (typeof value === "string") {
      visitString(value, pointer, depth);
      continue;
    }
    if (typeof value !== "object" || value === null || seen.has(value)) continue;
    if (depth > options.maxDepth) {
      if (options.deep && tooDeep === undefined) tooDeep = pointer;
      continue;
    }
    let entries: [string, unknown][];
    try {
      if (!isPlainObject(value) && !isPlainArray(value)) continue;
      entries = Object.keys(value).map((key) => {
        const descriptor = Object.getOwnPropertyDescriptor(value, key);
        return [key, descriptor && "value" in descriptor ? descriptor.value : undefined];
      });
    } catch {
      continue; // A hostile object: nothing in it can be scanned.
    }
    seen.add(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i]!;
      stack.push({ value: item, pointer: `${pointer}/${token(key)}`, depth: depth + 1 });
    }
  }

  return { refs, malformed, unresolvedNested, templateLike, tooDeep };
}
