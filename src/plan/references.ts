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
}

/**
 * Scan a step's arguments for references. Never throws: invalid strings are reported as `malformed`.
 * Nesting is walked up to `options.maxDepth`, and each container once.
 */
export function scanArgs(args: unknown, options: NormalizedOptions): ArgScan {
  const refs: ArgReference[] = [];
  const malformed: MalformedArg[] = [];
  const unresolvedNested: { pointer: string; text: string }[] = [];
  const strict = { ...options, strict: true };
  const seen = new Set<object>();

  const visit = (value: unknown, pointer: string, depth: number): void => {
    if (typeof value === "string") {
      const classified = classifyString(value, strict);
      if (classified.kind === "literal") return;
      if (depth > 1 && !options.deep) {
        if (classified.kind === "ref") unresolvedNested.push({ pointer, text: value });
        return;
      }
      if (classified.kind === "error") malformed.push({ pointer, text: value, error: classified.error });
      else refs.push({ pointer, text: value, ast: classified.ast, references: referencesIn(classified.ast) });
      return;
    }
    if (typeof value !== "object" || value === null || depth > options.maxDepth || seen.has(value)) return;
    let entries: [string, unknown][];
    try {
      if (!isPlainObject(value) && !isPlainArray(value)) return;
      entries = Object.keys(value).map((key) => {
        const descriptor = Object.getOwnPropertyDescriptor(value, key);
        return [key, descriptor && "value" in descriptor ? descriptor.value : undefined];
      });
    } catch {
      return; // A hostile object: nothing in it can be scanned.
    }
    seen.add(value);
    for (const [key, item] of entries) visit(item, `${pointer}/${pointerToken(key)}`, depth + 1);
  };

  visit(args, "", 0);
  return { refs, malformed, unresolvedNested };
}
