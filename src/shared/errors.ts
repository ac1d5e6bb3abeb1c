/**
 * The library's error classes. Every error plan-refs throws is a `RefError` with a stable kebab-case
 * `code`, so callers can branch on `error.code` rather than on message text.
 */
import type { Span } from "./span.js";
import { cutText, safeText } from "./text.js";

/** Every code a `RefError` can carry. */
export type RefErrorCode =
  | "syntax"
  | "missing-step"
  | "missing-key"
  | "not-indexable"
  | "invalid-args"
  | "invalid-results"
  | "invalid-options"
  | "cycle"
  | "limit"
  | "access"
  | "unserializable"
  | "tool-error"
  | "unknown-tool"
  | "unresolved-args"
  | "timeout"
  | "aborted"
  | "invalid-output"
  | "invalid-input"
  | "missing-dependency"
  | "invalid-step"
  | "unresolved-output"
  | "denied"
  | "plan-mismatch"
  | "not-awaiting-approval"
  | "unknown-run"
  | "invalid-report";

/** Where an error happened, as far as it is known. */
export interface RefErrorDetails {
  /** The placeholder or template text being resolved. */
  readonly ref?: string | undefined;
  /** Where in `args` it happened, as a JSON Pointer (`/filters/0/city`). */
  readonly arg?: string | undefined;
  /** The span inside `ref` that failed. */
  readonly span?: Span | undefined;
  /** The original error, for `access` errors raised by getters or Proxies. */
  readonly cause?: unknown;
}

/**
 * The base class of every error plan-refs throws.
 *
 * @example
 * try { resolveRefs(args, results) } catch (e) { if (e instanceof RefError) console.log(e.code) }
 */
export class RefError extends Error {
  override name = "RefError";
  readonly code: RefErrorCode;
  readonly ref: string | undefined;
  readonly arg: string | undefined;
  readonly span: Span | undefined;
  /** The message without the `arg` suffix, used when an outer layer adds where it happened. */
  readonly detail: string;

  constructor(code: RefErrorCode, detail: string, details: RefErrorDetails = {}) {
    super(withArg(detail, details.arg), details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.detail = detail;
    this.ref = details.ref;
    this.arg = details.arg;
    this.span = details.span;
  }
}

/** What a `KeyError` carries beyond a `RefError`. */
export interface KeyErrorDetails extends RefErrorDetails {
  /** The step number, or `null` when its digits exceed `Number.MAX_SAFE_INTEGER`. */
  readonly step: number | null;
  /** The step's canonical digits (no leading zeros): exact even for huge numbers. */
  readonly stepText: string;
  /** The missing key or index, when a key or index was missing. */
  readonly key?: string | number | undefined;
  /** Which path segment failed (0-based), when a segment failed. */
  readonly segment?: number | undefined;
}

/**
 * A step or key that a reference names is missing, or a key was applied to a value that has no keys.
 * Codes: `missing-step`, `missing-key`, `not-indexable`.
 *
 * @example
 * resolveRefs({ q: "$2" }, { 1: "x" }) // throws KeyError: $2: no result for step 2 (steps with results: 1), in argument /q
 */
export class KeyError extends RefError {
  override name = "KeyError";
  readonly step: number | null;
  readonly stepText: string;
  readonly key: string | number | undefined;
  readonly segment: number | undefined;

  constructor(code: "missing-step" | "missing-key" | "not-indexable", detail: string, details: KeyErrorDetails) {
    super(code, detail, details);
    this.step = details.step;
    this.stepText = details.stepText;
    this.key = details.key;
    this.segment = details.segment;
  }
}

/**
 * A string is not valid reference syntax. `offset` is where parsing failed (0-based UTF-16 offset in
 * `text`), `expected` lists what would have been valid there.
 *
 * @example
 * parseRef("$1.") // throws RefSyntaxError: expected a key at offset 3
 */
export class RefSyntaxError extends RefError {
  override name = "RefSyntaxError";
  readonly offset: number;
  readonly expected: readonly string[];
  readonly text: string;

  constructor(text: string, offset: number, expected: readonly string[], details: RefErrorDetails = {}) {
    super("syntax", describeSyntax(text, offset, expected), {
      ...details,
      ref: details.ref ?? text,
      span: details.span ?? { start: offset, end: Math.min(offset + 1, text.length) },
    });
    this.offset = offset;
    this.expected = expected;
    this.text = text;
  }
}

function withArg(detail: string, arg: string | undefined): string {
  // The pointer is built from untrusted argument names: escaped and truncated like any other untrusted text.
  return arg === undefined ? detail : `${detail}, in argument ${arg === "" ? "(root)" : safeText(arg, 120)}`;
}

function describeSyntax(text: string, offset: number, expected: readonly string[]): string {
  const shown = JSON.stringify(cutText(text, 60, "…"));
  const found = offset >= text.length ? "end of text" : JSON.stringify(text.slice(offset, offset + 1));
  const wanted = expected.length === 0 ? "" : `, expected ${expected.slice(0, 6).join(" or ")}`;
  return `invalid reference ${shown} at offset ${offset}: found ${found}${wanted}`;
}

/**
 * A copy of an error with the same class and own properties (message, stack, cause, code…), for
 * handing out an error that is kept in a cache: whoever amends the copy changes no one else's.
 *
 * @example
 * const mine = copyError(cached) // mine !== cached, mine.code === cached.code
 */
export function copyError<E extends RefError>(error: E): E {
  return Object.create(Object.getPrototypeOf(error) as object, Object.getOwnPropertyDescriptors(error)) as E;
}

/**
 * Build an error without capturing a stack trace: for errors that the parse cache keeps or that are
 * returned as data (`tryParseRef`, the linter's near-misses such as `"$5 off"` in strict scans). Their
 * stack would describe only the first caller, and capturing and formatting it costs several times
 * more than the parse itself. `parseRef` records a fresh stack on the error it throws.
 *
 * @example
 * const error = withoutStack(() => new RefSyntaxError("$1.", 3, ["a key"]))
 */
export function withoutStack<E>(make: () => E): E {
  const limit: unknown = Error.stackTraceLimit;
  if (typeof limit !== "number") return make();
  try {
    Error.stackTraceLimit = 0;
  } catch {
    return make(); // A frozen Error (hardened realms): build it with a stack.
  }
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Copy an error with the argument pointer it happened at (errors are immutable once thrown). */
export function atArgument<E extends RefError>(error: E, arg: string): E {
  if (error.arg !== undefined) return error;
  const copy = copyError(error);
  Object.defineProperty(copy, "arg", { value: arg, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(copy, "message", { value: withArg(error.detail, arg), writable: true, enumerable: false, configurable: true });
  return copy;
}

/**
 * The `RefError` for a failure while reading a caller's values: a `RefError` as it is, an exhausted
 * call stack as code `limit`, anything else (a throwing getter or Proxy trap, a revoked Proxy, a value
 * of the wrong shape) as code `access` with the original error as `cause`.
 *
 * @example
 * try { read(options) } catch (error) { throw asRefError(error, "the options") }
 */
export function asRefError(error: unknown, what: string): RefError {
  if (isInstance(error, RefError)) return error as RefError;
  if (isInstance(error, RangeError)) {
    return new RefError("limit", "input is nested too deeply for the call stack; lower maxDepth or maxSegments", { cause: error });
  }
  return new RefError("access", `could not read ${what}: ${safeText(describeThrown(error), 200)}`, { cause: error });
}

/**
 * `instanceof` that never throws (on a Proxy it runs the `getPrototypeOf` trap, which may throw).
 *
 * @example
 * isInstance(maybeHostile, RefError) // false, never a throw
 */
export function isInstance(value: unknown, type: abstract new (...args: never[]) => unknown): boolean {
  try {
    return value instanceof type;
  } catch {
    return false;
  }
}

/**
 * The message of a thrown value, for an error message. Reading it can itself throw (a message getter,
 * a Proxy, an object whose `toString` throws), so it never throws: it falls back to the value's type.
 *
 * @example
 * describeThrown(new TypeError("boom")) // "boom"
 */
export function describeThrown(thrown: unknown): string {
  try {
    return isInstance(thrown, Error) ? String((thrown as Error).message) : String(thrown);
  } catch {
    return `an unreadable ${typeof thrown}`;
  }
}

/**
 * An error with a stable kebab-case `code` and a one-line message: the base of the integrations' own
 * errors (`McpSetupError`, `McpCallError`, `PostgresError`), so each adds only its name and its codes.
 *
 * @example
 * class DemoError extends CodedError<"bad-thing"> { override name = "DemoError"; }
 * new DemoError("bad-thing", "it went wrong").code // "bad-thing"
 */
export class CodedError<Code extends string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
