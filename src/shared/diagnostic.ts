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
}
