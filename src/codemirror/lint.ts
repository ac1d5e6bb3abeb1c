/// <reference lib="dom" />
/**
 * Lint diagnostics in the editor: `lintPlanText` already reports exact file offsets (escapes in
 * strings included), so each diagnostic maps one to one onto a CodeMirror range.
 */
import { linter, type Action, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import type { EditorState, Extension } from "@codemirror/state";
import type { EditorView } from "@codemirror/view";
import { fixesOf, type QuickFix } from "../editor/quick-fixes.js";
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
  const text = state.doc.toString();
  const diagnostics = lintPlanText(text, currentOptions(state));
  // The quick fixes (the language server's code actions) as the diagnostics' actions.
  const fixes = new Map<object, QuickFix[]>();
  for (const fix of fixesOf(text, diagnostics)) fixes.set(fix.diagnostic, [...(fixes.get(fix.diagnostic) ?? []), fix]);
  return diagnostics.map((diagnostic) => {
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
      ...(fixes.has(diagnostic) ? { actions: fixes.get(diagnostic)!.map((fix) => toAction(fix, text)) } : {}),
    };
  });
}

/**
 * A quick fix as a lint action. Its edits are for the text it was made from: if the document changed
 * since, the same fix (same diagnostic, same title) is made again for the text as it is now.
 */
function toAction(fix: QuickFix, text: string): Action {
  return {
    name: fix.title,
    apply: (view: EditorView) => {
      const now = view.state.doc.toString();
      const same = (other: QuickFix): boolean =>
        other.title === fix.title && other.diagnostic.code === fix.diagnostic.code && other.diagnostic.message === fix.diagnostic.message;
      const current = now === text ? fix : fixesOf(now, lintPlanText(now, currentOptions(view.state))).find(same);
      if (current !== undefined)
        view.dispatch({ changes: current.edits.map((edit) => ({ from: edit.span.start, to: edit.span.end, insert: edit.newText })) });
    },
  };
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
