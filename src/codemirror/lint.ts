/// <reference lib="dom" />
/**
 * Lint diagnostics in the editor: `lintPlanText` already reports exact file offsets (escapes in
 * strings included), so each diagnostic maps one to one onto a CodeMirror range.
 */
import { linter, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import type { EditorState, Extension } from "@codemirror/state";
import { lintPlanText } from "../lint/lint-plan.js";
import { changesOptions, currentOptions } from "./config.js";

/**
 * The plan's lint diagnostics as CodeMirror diagnostics, in document order.
 *
 * @example
 * planDiagnostics(EditorState.create({ doc: '{"steps":[{"id":1,"tool":"t","args":{"q":"$2"}}]}' }))
 * // [{ from: 42, to: 44, severity: "error", source: "plan-refs unknown-step", message: "…" }]
 */
export function planDiagnostics(state: EditorState): CmDiagnostic[] {
  const length = state.doc.length;
  return lintPlanText(state.doc.toString(), currentOptions(state)).map((diagnostic) => {
    // Diagnostics that are not tied to a place (unreadable input) go at the start of the document.
    const from = Math.max(0, Math.min(diagnostic.offset?.start ?? 0, length));
    const to = Math.max(from, Math.min(diagnostic.offset?.end ?? from, length));
    return {
      from,
      to,
      severity: diagnostic.severity,
      source: `plan-refs ${diagnostic.code}`,
      message: diagnostic.message,
      markClass: `cm-planref-lint cm-planref-lint-${diagnostic.code}`,
    };
  });
}

/**
 * The linter extension; it runs again when the tool catalog or the options change.
 *
 * @example
 * extensions: [planRefsConfig, planLinter()]
 */
export function planLinter(delay = 300): Extension {
  return linter((view) => planDiagnostics(view.state), {
    delay,
    needsRefresh: (update) => update.transactions.some((tr) => changesOptions(tr.effects)),
  });
}
