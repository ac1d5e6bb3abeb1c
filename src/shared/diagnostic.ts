/**
 * Diagnostics: problems reported as data (the linter never throws). Offsets inside, lines and
 * columns only when the caller linted text.
 */
import type { Range, Span } from "./span.js";

/** How bad a diagnostic is. */
export type Severity = "error" | "warning" | "info";

/** Every code the linter reports. */
export type DiagnosticCode =
  | "json-syntax"
  | "invalid-plan"
  | "duplicate-step-id"
  | "unknown-step"
  | "self-ref"
  | "forward-ref"
  | "cycle"
  | "malformed-ref"
  | "non-canonical-step"
  | "path-like-key"
  | "unknown-tool"
  | "unknown-key"
  | "not-indexable"
  | "type-mismatch"
  | "missing-argument"
  | "unknown-argument"
  | "invalid-argument"
  | "invalid-catalog"
  | "nested-placeholder"
  | "templates-off"
  | "limit"
  | "invalid-options";

/**
 * What fixes a diagnostic, when the linter knows: `replace` is the text to write instead of the
 * diagnostic's characters (decoded: inside a string, the editor escapes it; a diagnostic without a
 * `span` covers a whole string token, which the editor writes quoted), `add` the properties to add to
 * the object at the diagnostic's pointer (with a placeholder value of the right type).
 */
export type DiagnosticFix = { readonly replace: string } | { readonly add: readonly { readonly name: string; readonly value: unknown }[] };

/** One problem found in a plan. */
export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  readonly message: string;
  /** The step the problem is in, when it is in one. */
  readonly step?: number;
  /** JSON Pointer into the plan document (`/steps/1/args/q`). */
  readonly pointer: string;
  /** Offsets of the failing characters inside the string value at `pointer`. */
  readonly span?: Span;
  /** With `lintPlanText`: the exact characters in the file, 1-based lines and columns, end exclusive. */
  readonly range?: Range;
  /** Offsets in the file (with `lintPlanText`), end exclusive. */
  readonly offset?: Span;
  /** What fixes it, when that is known (a "did you mean", a missing argument, a step number). */
  readonly fix?: DiagnosticFix;
}
