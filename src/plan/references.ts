/**
 * Finding the references in a step's arguments, with the same grammar and the same rules about where
 * placeholders count (top level, or everywhere with `deep`) as `resolveRefs`.
 */
import { referencesIn, type ReferenceNode, type RefAst } from "../grammar/ast.js";
import { classifyString } from "../grammar/parse.js";
import type { RefError } from "../shared/errors.js";
import { normalizeOptions, type NormalizedOptions, type ResolveOptions } from "../shared/options.js";
import { isPlainArray, isPlainObject, ownData } from "../shared/own-data.js";
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
const NONE: readonly never[] = Object.freeze([]);

/**
 * The options, checked and filled in, with `strict` on: made once per options object (scanning calls
 * this per step). Throws `RefError` (`invalid-options`, or `access` for an unreadable options object).
 */
const strictOptions = new WeakMap<object, NormalizedOptions>();
const STRICT_DEFAULTS = normalizeOptions({ strict: true });
function strictOf(options: NormalizedOptions | ResolveOptions | undefined): NormalizedOptions {
  if (options === undefined) return STRICT_DEFAULTS;
  if (typeof options !== "object" || options === null) return normalizeOptions(options);
  let strict = strictOptions.get(options);
  if (strict === undefined) {
    strict = normalizeOptions({ ...normalizeOptions(options), strict: true });
    strictOptions.set(options, strict);
  }
  return strict;
}

/** The pointer of `key` inside `parent` (`parent` itself without a key). */
function join(parent: string, key: string | undefined): string {
  return key === undefined ? parent : `${parent}/${token(key)}`;
}

/** A JSON Pointer token; most keys need no escaping, so skip the replacements for them. */
function token(key: string): string {
  return key.includes("~") || key.includes("/") ? pointerToken(key) : key;
}

/**
 * Scan a step's arguments for references. Never throws on any `args`: invalid strings are reported as
 * `malformed`, unreadable containers are skipped. Nesting is walked up to `options.maxDepth`, and each
 * container once. `options` (read once per options object) are checked: a bad one is a `RefError`.
 *
 * @example
 * scanArgs({ q: "$1.city", f: { x: "$2" } }).refs.map((r) => r.pointer) // ["/q"]
 */
export function scanArgs(args: unknown, given?: NormalizedOptions | ResolveOptions): ArgScan {
  return scan(args, given, false);
}

/**
 * `scanArgs` of arguments that plan-refs copied itself with own data properties only (a snapshot of
 * the runner with no accessor in it): the same scan, reading each value directly. Internal: never for
 * a caller's values (a getter there would run).
 *
 * @example
 * scanSnapshot(snapshots.take(step.args), options) // when the snapshot copied no accessor
 */
export function scanSnapshot(copy: Readonly<Record<string, unknown>>, given: NormalizedOptions): ArgScan {
  return scan(copy, given, true);
}

function scan(args: unknown, given: NormalizedOptions | ResolveOptions | undefined, ownDataOnly: boolean): ArgScan {
  // Lists are made only when something goes in them: a large plan scans many steps that have none.
  let refs: ArgReference[] | undefined;
  let malformed: MalformedArg[] | undefined;
  let unresolvedNested: { pointer: string; text: string }[] | undefined;
  let templateLike: { pointer: string; text: string }[] | undefined;
  let tooDeep: string | undefined;
  let seen: Set<object> | undefined;
  const strict = strictOf(given);
  const options = strict;

  // The pointer is built only for strings that are recorded.
  const visitString = (value: string, parent: string, key: string | undefined, depth: number): void => {
    const classified = classifyString(value, strict);
    if (classified.kind === "literal") {
      if (!options.templates && (depth <= 1 || options.deep) && value.includes("${") && TEMPLATE_LIKE.test(value))
        (templateLike ??= []).push({ pointer: join(parent, key), text: value });
      return;
    }
    if (depth > 1 && !options.deep) {
      if (classified.kind === "ref") (unresolvedNested ??= []).push({ pointer: join(parent, key), text: value });
      return;
    }
    if (classified.kind === "error") (malformed ??= []).push({ pointer: join(parent, key), text: value, error: classified.error });
    else (refs ??= []).push({ pointer: join(parent, key), text: value, ast: classified.ast, references: referencesIn(classified.ast) });
  };

  // Depth-first with an explicit stack of open containers and their keys: document order, no recursion.
  const stack: { container: object; keys: string[]; next: number; pointer: string; depth: number }[] = [];
  const enter = (value: object, pointer: string, depth: number): void => {
    if (depth > 0) {
      seen ??= new Set(typeof args === "object" && args !== null ? [args] : []);
      if (seen.has(value)) return;
    }
    if (depth > options.maxDepth) {
      if (options.deep && tooDeep === undefined) tooDeep = pointer;
      return;
    }
    try {
      if (!isPlainObject(value) && !isPlainArray(value)) return;
      stack.push({ container: value, keys: Object.keys(value), next: 0, pointer, depth });
    } catch {
      return; // A hostile object: nothing in it can be scanned.
    }
    seen?.add(value);
  };

  if (typeof args === "string") visitString(args, "", undefined, 0);
  else if (typeof args === "object" && args !== null) enter(args, "", 0);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next >= frame.keys.length) {
      stack.pop();
      continue;
    }
    const key = frame.keys[frame.next++]!;
    let item: unknown;
    try {
      // A snapshot plan-refs made has own data properties only: its values are read directly.
      item = ownDataOnly ? (frame.container as Record<string, unknown>)[key] : ownData(frame.container, key);
    } catch {
      continue;
    }
    if (typeof item === "string") visitString(item, frame.pointer, key, frame.depth + 1);
    else if (typeof item === "object" && item !== null) enter(item, `${frame.pointer}/${token(key)}`, frame.depth + 1);
  }

  return {
    refs: refs ?? NONE,
    malformed: malformed ?? NONE,
    unresolvedNested: unresolvedNested ?? NONE,
    templateLike: templateLike ?? NONE,
    tooDeep,
  };
}
