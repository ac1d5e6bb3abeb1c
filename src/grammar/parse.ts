/**
 * The public parser: turns strings into the AST defined by the grammar in `language.ts`, with typed
 * errors, limits and a bounded cache. Everything else in plan-refs (evaluator, linter, editor tools)
 * parses through here, so the language has exactly one definition.
 */
import { asRefError, copyError, RefError, RefSyntaxError, withoutStack } from "../shared/errors.js";
import { normalizeOptions, type NormalizedOptions, type ResolveOptions, type SyntaxOptions } from "../shared/options.js";
import type { AstNode, Expression, LiteralNode, RefAst, TemplateNode } from "./ast.js";
import { BoundedCache } from "./cache.js";
import { pathLanguage, runRule, seedLanguage, type RefLanguage, type RuleResult } from "./language.js";
import { scanPlaceholder } from "./scanner.js";
import { DOLLAR, DOT, isDigit, OPEN_BRACKET, QUESTION, QUOTE, SPACE } from "./tokens.js";

/** A value or an error, for callers that go on after a failure. */
export type Result<T, E = RefError> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/**
 * How the resolver sees a string: `literal` passes through unchanged, `ref` is resolved, `error` is a
 * string that is not valid where validity is required (strict mode, templates, limits).
 */
export type Classification =
  | { readonly kind: "literal" }
  | { readonly kind: "ref"; readonly ast: RefAst }
  | { readonly kind: "error"; readonly error: RefError };

const LITERAL: Classification = Object.freeze({ kind: "literal" });

/**
 * What parsing a string gave in one syntax mode, before the options that do not change parsing
 * (`strict`, `maxSegments`, `maxInterpolations`) are applied, so one cached parse serves every option set.
 */
type Outcome =
  /** Not a placeholder nor a template in this mode, whatever `strict` says. */
  | { readonly kind: "literal" }
  /**
   * Parsed; `segments` (of its longest reference) is checked against `maxSegments` and `interpolations`
   * against `maxInterpolations` on every use. `cheap`: the scanner parsed it.
   */
  | { readonly kind: "ref"; readonly segments: number; readonly interpolations: number; readonly classification: Classification; readonly cheap: boolean }
  /** Starts like a placeholder (`$` and a digit) but is not one: literal, or an error under `strict`. */
  | { readonly kind: "not-placeholder"; readonly text: string; readonly offset: number; readonly expected: readonly string[]; strictError?: Classification }
  /** An invalid template: always an error. */
  | { readonly kind: "invalid"; readonly classification: Classification };

const LITERAL_OUTCOME: Outcome = Object.freeze({ kind: "literal" });

/** The outcomes of one string in the four syntax modes (seed, seed+templates, path, path+templates). */
type CacheEntry = (Outcome | undefined)[];

/** Default bound of the parse cache (entries). */
export const DEFAULT_PARSE_CACHE_SIZE = 10_000;
/** Strings longer than this are parsed every time rather than cached, so the cache's memory stays bounded. */
const CACHEABLE_LENGTH = 512;
/** Keyed by the text itself: a string keeps its hash, so a hit costs one `Map.get`. */
const cache = new BoundedCache<CacheEntry>(DEFAULT_PARSE_CACHE_SIZE);
/**
 * Admission (as in TinyLFU): a placeholder the scanner parses is cached the second time it is seen,
 * not the first. Scanning costs about as much as a regular expression, while caching every fresh
 * string (an id in every argument) would churn the cache and the garbage collector for strings never
 * seen again. The doorkeeper is a fixed table of string hashes: no allocation, nothing retained. A
 * collision only caches a string one sighting early, an overwritten slot one sighting late. Whatever
 * needs the grammar (templates, near-misses) is cached at once.
 */
const DOORKEEPER_SLOTS = 1 << 14;
const doorkeeper = new Int32Array(DOORKEEPER_SLOTS);

/** Whether `text` was (probably) seen since its slot was last taken; marks it seen. */
function seenBefore(text: string): boolean {
  // FNV-1a over the UTF-16 code units; 0 marks an empty slot, so no hash is 0.
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  // Murmur3's finalizer: FNV alone leaves short strings' hashes clustered.
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  hash = (hash ^ (hash >>> 16)) | 1;
  const slot = hash >>> 18;
  if (doorkeeper[slot] === hash) return true;
  doorkeeper[slot] = hash;
  return false;
}

/**
 * Set how many parsed strings the cache keeps (0 turns caching off). Returns the previous bound.
 * The cache never holds more entries than this bound, and strings longer than 512 characters are
 * never cached, so its memory is bounded whatever goes through the parser.
 *
 * @example
 * setParseCacheSize(50_000) // 10000, the default
 */
export function setParseCacheSize(maxEntries: number): number {
  if (!Number.isInteger(maxEntries) || maxEntries < 0) throw new RefError("invalid-options", "the parse cache size must be a non-negative integer");
  const previous = cache.maxEntries;
  cache.resize(maxEntries);
  return previous;
}

/**
 * How many strings the parse cache holds now, and its bound.
 *
 * @example
 * parseCacheStats() // { size: 12, maxEntries: 10000 }
 */
export function parseCacheStats(): { size: number; maxEntries: number } {
  return { size: cache.size, maxEntries: cache.maxEntries };
}

/**
 * Empty the parse cache.
 *
 * @example
 * clearParseCache()
 * parseCacheStats().size // 0
 */
export function clearParseCache(): void {
  cache.clear();
  doorkeeper.fill(0);
}

function languageOf(options: NormalizedOptions): RefLanguage {
  return options.syntax === "path" ? pathLanguage : seedLanguage;
}

/** The whole-string placeholder rule: the scanner when it accepts the text, else the grammar (which also explains failures). */
function parsePlaceholder(text: string, options: NormalizedOptions): RuleResult<Expression> {
  const scanned = scanPlaceholder(text, options.syntax);
  if (scanned !== undefined) return { ok: true, value: scanned };
  return runRule(languageOf(options).placeholder, text);
}

/**
 * Classify a string the way `resolveRefs` does, with options already normalized. Fast for the common
 * case: a string that cannot be a placeholder or template is recognized without parsing, and a string
 * seen before is looked up in the bounded cache.
 *
 * @example
 * classifyString("$1.city", normalizeOptions(undefined)).kind // "ref"
 * classifyString("$5 off", normalizeOptions(undefined)).kind  // "literal"
 */
export function classifyString(text: string, options: NormalizedOptions): Classification {
  return classify(text, options, options.strict);
}

/** `classifyString` with `strict` given apart from the options (so callers need not copy them). */
function classify(text: string, options: NormalizedOptions, strict: boolean): Classification {
  const startsWithDollar = text.charCodeAt(0) === DOLLAR;
  if (!startsWithDollar && !(options.templates && text.includes("${"))) return LITERAL;
  if (startsWithDollar && !options.templates && !isDigit(text.charCodeAt(1))) return LITERAL;
  // An over-long string is refused only if it could be a placeholder or template; other text (`$5 off …`) passes.
  if (text.length > options.maxRefLength && mightBeRef(text, options)) return { kind: "error", error: lengthLimit(text, options, "placeholder") };
  const mode = (options.syntax === "path" ? 2 : 0) + (options.templates ? 1 : 0);
  let outcome: Outcome | undefined;
  if (text.length > CACHEABLE_LENGTH) {
    outcome = parseOutcome(text, options);
  } else {
    let entry = cache.get(text);
    outcome = entry?.[mode];
    if (outcome === undefined) {
      outcome = parseOutcome(text, options);
      const cheap = outcome.kind === "literal" || (outcome.kind === "ref" && outcome.cheap);
      if (entry !== undefined || !cheap || seenBefore(text)) {
        if (entry === undefined) {
          entry = [undefined, undefined, undefined, undefined];
          cache.set(text, entry);
        }
        // Cached ASTs are shared by every later caller: frozen, so no caller can change another's.
        if (outcome.kind === "ref" && outcome.classification.kind === "ref") {
          freezeAst(outcome.classification.ast);
          Object.freeze(outcome.classification);
        }
        entry[mode] = outcome;
      }
    }
  }
  switch (outcome.kind) {
    case "ref":
      return overLimit(outcome.segments, outcome.interpolations, text, options) ?? outcome.classification;
    case "literal":
      return LITERAL;
    case "invalid":
      return outcome.classification;
    case "not-placeholder":
      if (!strict) return LITERAL;
      outcome.strictError ??= { kind: "error", error: withoutStack(() => new RefSyntaxError(outcome.text, outcome.offset, outcome.expected)) };
      return outcome.strictError;
  }
}

const STEP_DIGITS = /[0-9]*/y;

/**
 * Whether `text` could be a placeholder or template in the mode of `options`, judged from its start
 * (and, with templates, one search for `${`): `$` digits then the end or `.` (seed), or also `[` and a
 * digit or quote, or spaces and `??` (path). Linear at worst, and cheap enough to run before any parsing.
 */
function mightBeRef(text: string, options: NormalizedOptions): boolean {
  if (options.templates && (text.startsWith("$$") || text.includes("${"))) return true;
  if (text.charCodeAt(0) !== DOLLAR) return false;
  // A regular expression runs through a megabyte of digits several times faster than a loop.
  STEP_DIGITS.lastIndex = 1;
  STEP_DIGITS.test(text);
  let at = STEP_DIGITS.lastIndex;
  if (at === 1) return false;
  if (at === text.length) return true;
  const next = text.charCodeAt(at);
  if (next === DOT) return true;
  if (options.syntax !== "path") return false;
  // Path syntax: a segment `[0]`/`["k"]`, or a default ` ?? ` (spaces, then `??`).
  if (next === OPEN_BRACKET) return isDigit(text.charCodeAt(at + 1)) || text.charCodeAt(at + 1) === QUOTE;
  while (text.charCodeAt(at) === SPACE) at++;
  return text.charCodeAt(at) === QUESTION && text.charCodeAt(at + 1) === QUESTION;
}

function lengthLimit(text: string, options: NormalizedOptions, what: "placeholder" | "template"): RefError {
  return new RefError("limit", `${what} of ${text.length} characters exceeds maxRefLength (${options.maxRefLength})`, { ref: text.slice(0, 40) });
}

/** Parse `text` in the syntax mode of `options` (strict and maxSegments aside). */
function parseOutcome(text: string, options: NormalizedOptions): Outcome {
  const isTemplate = options.templates && (text.startsWith("$$") || text.includes("${"));
  if (isDigit(text.charCodeAt(1)) && text.charCodeAt(0) === DOLLAR) {
    const scanned = scanPlaceholder(text, options.syntax);
    if (scanned !== undefined) return refOutcome(scanned, true);
    // Not a placeholder: the grammar says where and why (the scanner reports nothing).
    const parsed = runRule(languageOf(options).placeholder, text);
    if (parsed.ok) return refOutcome(parsed.value, false);
    if (!isTemplate) return { kind: "not-placeholder", text, offset: parsed.offset, expected: parsed.expected };
  } else if (!isTemplate) {
    return LITERAL_OUTCOME;
  }
  const parsed = runRule(languageOf(options).template, text);
  if (!parsed.ok) return { kind: "invalid", classification: { kind: "error", error: withoutStack(() => new RefSyntaxError(text, parsed.offset, parsed.expected)) } };
  return refOutcome(parsed.value, false);
}

function refOutcome(ast: RefAst, cheap: boolean): Outcome {
  return { kind: "ref", segments: countSegments(ast), interpolations: countInterpolations(ast), classification: { kind: "ref", ast }, cheap };
}

/** The `limit` error when a parse is over `maxSegments` or `maxInterpolations`, else `undefined`. */
function overLimit(segments: number, interpolations: number, text: string, options: NormalizedOptions): Classification | undefined {
  if (interpolations > options.maxInterpolations) {
    return { kind: "error", error: new RefError("limit", `template has ${interpolations} interpolations, over maxInterpolations (${options.maxInterpolations})`, { ref: text.slice(0, 40) }) };
  }
  if (segments > options.maxSegments) {
    return { kind: "error", error: new RefError("limit", `reference has ${segments} path segments and defaults, over maxSegments (${options.maxSegments})`, { ref: text.slice(0, 40) }) };
  }
  return undefined;
}

/** Enforce the segment and interpolation limits on a parsed AST. */
function checked(ast: RefAst, text: string, options: NormalizedOptions): Classification {
  return overLimit(countSegments(ast), countInterpolations(ast), text, options) ?? { kind: "ref", ast };
}

/** How many `${…}` a template holds (0 for a placeholder). */
function countInterpolations(ast: RefAst): number {
  if (ast.type !== "template") return 0;
  let count = 0;
  for (const part of ast.parts) if (part.type === "interpolation") count++;
  return count;
}

/**
 * Path segments plus one per `??`; for a template, those of its longest interpolation (each is a
 * reference of its own). A chain of defaults nests to the right: counted in a loop, so a long chain
 * cannot exhaust the stack.
 */
function countSegments(ast: RefAst): number {
  if (ast.type === "template") {
    let most = 0;
    for (const part of ast.parts) if (part.type === "interpolation") most = Math.max(most, countSegments(part.expression));
    return most;
  }
  let count = 0;
  let node: Expression | LiteralNode = ast;
  while (node.type === "default") {
    count += 1 + node.reference.path.length;
    node = node.fallback;
  }
  return node.type === "reference" ? count + node.path.length : count;
}

/**
 * Parse a placeholder (or, with `templates`, a template) into its AST. Throws `RefSyntaxError` with
 * the offset and what was expected when the string is not valid.
 *
 * @example
 * parseRef("$1.city")
 * // { type: "reference", syntax: "seed", step: { id: "1", … }, path: [{ type: "key", name: "city", … }], span: { start: 0, end: 7 } }
 */
export function parseRef(text: string, options?: SyntaxOptions): RefAst {
  const result = tryParseRef(text, options);
  if (result.ok) return result.value;
  // The error may come from the cache, built without a stack: give the one thrown here the caller's.
  Error.captureStackTrace(result.error, parseRef);
  throw result.error;
}

/**
 * Like `parseRef`, but never throws: returns `{ ok: true, value }` or `{ ok: false, error }`.
 *
 * @example
 * tryParseRef("$1.") // { ok: false, error: RefSyntaxError { offset: 3, expected: ["a key"] } }
 */
export function tryParseRef(text: string, options?: SyntaxOptions): Result<RefAst> {
  let normalized: NormalizedOptions;
  try {
    normalized = normalizedOf(options);
  } catch (error) {
    return { ok: false, error: error as RefError };
  }
  if (typeof text !== "string") return { ok: false, error: new RefError("syntax", `a reference must be a string, not ${typeof text}`) };
  // Over maxRefLength: a `limit` error if it could be a placeholder (classify decides), else the syntax error below.
  const classified = classify(text, normalized, true);
  switch (classified.kind) {
    case "ref":
      return { ok: true, value: classified.ast };
    case "error":
      // A cached error is shared: the caller gets its own copy (callers do amend errors they rethrow).
      return { ok: false, error: copyError(classified.error) };
    case "literal": {
      // Not a placeholder at all: classify parses every string that could be one (a "$", a digit, or a
      // template), so the grammar fails on this one too, and says where.
      const parsed = runRule(languageOf(normalized).placeholder, text) as Extract<RuleResult<Expression>, { ok: false }>;
      return { ok: false, error: withoutStack(() => new RefSyntaxError(text, parsed.offset, parsed.expected)) };
    }
  }
}

/** The last options object normalized, with a copy of its fields, to skip validating the same options again. */
let lastOptions: ResolveOptions | undefined;
let lastCopy: ResolveOptions | undefined;
let lastNormalized: NormalizedOptions | undefined;

function sameFields(a: ResolveOptions, b: ResolveOptions): boolean {
  return (
    a.syntax === b.syntax &&
    a.templates === b.templates &&
    a.strict === b.strict &&
    a.maxRefLength === b.maxRefLength &&
    a.maxSegments === b.maxSegments &&
    a.maxInterpolations === b.maxInterpolations &&
    a.deep === b.deep &&
    a.maxDepth === b.maxDepth &&
    a.maxPlaceholders === b.maxPlaceholders &&
    a.maxOutputLength === b.maxOutputLength
  );
}

/** `normalizeOptions`, remembering the last object: callers pass the same options (a constant) again and again. */
function normalizedOf(options: ResolveOptions | undefined): NormalizedOptions {
  if (options === undefined || options === null || typeof options !== "object") return normalizeOptions(options);
  try {
    // Every field is compared, so an options object changed since the last call is normalized afresh.
    if (options === lastOptions && sameFields(options, lastCopy!)) return lastNormalized!;
    // Each field is read once (a getter may answer differently each time): the copy is what gets normalized.
    const { syntax, templates, strict, maxRefLength, maxSegments, maxInterpolations, deep, maxDepth, maxPlaceholders, maxOutputLength } = options;
    const copy = { syntax, templates, strict, maxRefLength, maxSegments, maxInterpolations, deep, maxDepth, maxPlaceholders, maxOutputLength };
    const normalized = normalizeOptions(copy);
    lastCopy = copy;
    lastOptions = options;
    lastNormalized = normalized;
    return normalized;
  } catch (error) {
    // A getter or Proxy trap that throws: code `access`, with the original as cause.
    throw asRefError(error, "the options");
  }
}

/**
 * Parse a whole string as a template (text parts and reference parts, with spans), whatever the
 * `templates` option says. A whole-string placeholder (`$1.city`) is a template with one `bare` part.
 * Throws `RefSyntaxError` for an unclosed `${` or an invalid reference inside one.
 *
 * @example
 * parseTemplate("Weather in ${1.city} today").parts.map((p) => p.type) // ["text", "interpolation", "text"]
 */
export function parseTemplate(text: string, options?: SyntaxOptions): TemplateNode {
  const given = normalizedOf(options);
  const normalized = given.templates ? given : normalizeOptions({ ...given, templates: true });
  if (typeof text !== "string") throw new RefError("syntax", `a template must be a string, not ${typeof text}`);
  if (text.length > normalized.maxRefLength) {
    if (mightBeRef(text, normalized)) throw lengthLimit(text, normalized, "template");
    // No `${`, no leading `$$`, not a placeholder: the whole text is one text part (every `$` in it is literal).
    return { type: "template", span: { start: 0, end: text.length }, parts: [{ type: "text", span: { start: 0, end: text.length }, value: text }] };
  }
  if (text.charCodeAt(0) === DOLLAR && isDigit(text.charCodeAt(1))) {
    const whole = parsePlaceholder(text, normalized);
    if (whole.ok) {
      const expression: Expression = whole.value;
      const classified = checked(expression, text, normalized);
      if (classified.kind === "error") throw classified.error;
      return { type: "template", span: expression.span, parts: [{ type: "interpolation", span: expression.span, form: "bare", expression }] };
    }
  }
  const parsed = runRule(languageOf(normalized).template, text);
  if (!parsed.ok) throw new RefSyntaxError(text, parsed.offset, parsed.expected);
  const classified = checked(parsed.value, text, normalized);
  if (classified.kind === "error") throw classified.error;
  return parsed.value;
}

/**
 * Freeze an AST deeply before it enters the cache, where every later caller shares it. An AST that is
 * not cached belongs to its caller alone and is left as built: freezing costs more than parsing.
 * Walks node by node in a loop (a chain of defaults may be thousands of nodes deep).
 */
function freezeAst<T extends RefAst>(root: T): T {
  if (Object.isFrozen(root)) return root;
  const pending: AstNode[] = [root];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    Object.freeze(node.span);
    switch (node.type) {
      case "reference":
        pending.push(node.step, ...node.path);
        Object.freeze(node.path);
        break;
      case "default":
        pending.push(node.reference, node.fallback);
        break;
      case "template":
        pending.push(...node.parts);
        Object.freeze(node.parts);
        break;
      case "interpolation":
        pending.push(node.expression);
        break;
      default:
        break;
    }
    Object.freeze(node);
  }
  return root;
}

/**
 * Whether `resolveRefs` would treat `value` as a placeholder (or, with `templates`, a template) rather
 * than pass it through. Malformed strings are not placeholders.
 *
 * @example
 * isPlaceholder("$1.city") // true
 * isPlaceholder("$5 off")  // false
 */
export function isPlaceholder(value: unknown, options?: SyntaxOptions): boolean {
  if (typeof value !== "string") return false;
  const normalized = normalizedOf(options);
  return classify(value, normalized, false).kind === "ref";
}
