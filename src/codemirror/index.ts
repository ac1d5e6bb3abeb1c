/// <reference lib="dom" />
/**
 * `plan-refs/codemirror`: a CodeMirror 6 extension for JSON plan documents — JSON language support,
 * reference highlighting by token kind, lint diagnostics on their exact characters, completion of step
 * ids and output keys, and hover tooltips. CodeMirror packages are optional peer dependencies: only
 * users of this entry point install them.
 *
 * The tool catalog can change while the editor runs: dispatch `setPlanRefsTools.of(catalog)` (or
 * `setPlanRefsOptions.of(options)`), and highlighting, lint, completion and hover use it at once.
 */
import { autocompletion } from "@codemirror/autocomplete";
import { json } from "@codemirror/lang-json";
import { EditorState, type Extension } from "@codemirror/state";
import { planCompletionSource } from "./complete.js";
import { planRefsConfig, type PlanRefsOptions } from "./config.js";
import { referenceHighlight } from "./highlight.js";
import { planHover } from "./hover.js";
import { planLinter } from "./lint.js";
import { planRefsBaseTheme } from "./theme.js";

export { planRefsConfig, setPlanRefsOptions, setPlanRefsTools, type PlanRefsOptions } from "./config.js";
export { planCompletionSource } from "./complete.js";
export { referenceHighlight } from "./highlight.js";
export { planHover } from "./hover.js";
export { planDiagnostics, planLinter } from "./lint.js";
export { renderMarkdown } from "./markdown.js";
export { planRefsBaseTheme } from "./theme.js";

/**
 * The whole extension for an editor holding a plan document (JSON).
 *
 * @example
 * new EditorView({
 *   parent: document.body,
 *   state: EditorState.create({ doc: planText, extensions: [basicSetup, planRefs({ tools })] }),
 * });
 * // later, when the catalog changes:
 * view.dispatch({ effects: setPlanRefsTools.of(newTools) });
 */
export function planRefs(options: PlanRefsOptions = {}): Extension {
  return [
    json(),
    planRefsConfig.init(() => options),
    referenceHighlight,
    planLinter(),
    autocompletion(),
    // Language data rather than `override`: other completion sources (JSON keys, snippets) keep working.
    EditorState.languageData.of(() => [{ autocomplete: planCompletionSource }]),
    planHover(),
    planRefsBaseTheme,
  ];
}
