/**
 * The linter's working form of a diagnostic: everything but the file positions, which are added at
 * the end (and only when linting text), plus whether it points at a property's name.
 */
import type { DiagnosticCode, DiagnosticFix, Severity } from "../shared/diagnostic.js";
import type { Span } from "../shared/span.js";

/** A diagnostic before positions in a file are known. */
export interface Draft {
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  readonly message: string;
  readonly step?: number;
  /** JSON Pointer into the plan document. */
  readonly pointer: string;
  /** Offsets inside the string value at `pointer`. */
  readonly span?: Span;
  /** Point at the property's name rather than its value. */
  readonly at?: "key";
  readonly fix?: DiagnosticFix;
}

/**
 * Build a draft without `undefined` members (so diagnostics compare and print cleanly).
 *
 * @example
 * draft("unknown-step", "error", "…", { pointer: "/steps/0/args/q", step: 1, span: { start: 0, end: 2 } })
 */
export function draft(
  code: DiagnosticCode,
  severity: Severity,
  message: string,
  where: {
    readonly pointer: string;
    readonly step?: number | undefined;
    readonly span?: Span | undefined;
    readonly at?: "key" | undefined;
    readonly fix?: DiagnosticFix | undefined;
  },
): Draft {
  return {
    code,
    severity,
    message,
    ...(where.step === undefined ? {} : { step: where.step }),
    pointer: where.pointer,
    ...(where.span === undefined ? {} : { span: { start: where.span.start, end: where.span.end } }),
    ...(where.at === undefined ? {} : { at: where.at }),
    ...(where.fix === undefined ? {} : { fix: where.fix }),
  };
}
