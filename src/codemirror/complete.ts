/// <reference lib="dom" />
/**
 * Completion of step ids and output keys inside reference strings, from `completionsAt`. The editor
 * module decides what fits at the cursor; this file only turns its items into CodeMirror completions.
 */
import type { Completion, CompletionContext, CompletionResult, CompletionSource } from "@codemirror/autocomplete";
import { completionsAt, type CompletionItem } from "../editor/index.js";
import { currentOptions } from "./config.js";

const TYPES: Record<CompletionItem["kind"], string> = { step: "variable", key: "property", index: "constant" };

/**
 * The completion source: the items `completionsAt` offers at the cursor, or `null` outside references.
 *
 * @example
 * EditorState.languageData.of(() => [{ autocomplete: planCompletionSource }])
 */
export const planCompletionSource: CompletionSource = (context: CompletionContext): CompletionResult | null => {
  const { state, pos } = context;
  const items = completionsAt(state.doc.toString(), pos, currentOptions(state));
  if (items.length === 0) return null;
  // CodeMirror completes one range per result: the first item's. Items that replace other text apply their own edit.
  const first = items[0]!;
  const from = Math.min(first.span.start, pos);
  const to = Math.max(first.span.end, pos);
  const options = items.map((item): Completion => {
    const sameRange = item.span.start === first.span.start && item.span.end === first.span.end;
    const completion: Completion = {
      label: item.label,
      type: TYPES[item.kind],
      apply: sameRange ? item.insertText : applyAt(item, to),
    };
    if (item.detail !== undefined) completion.detail = item.detail;
    if (item.documentation !== undefined) completion.info = item.documentation;
    return completion;
  });
  return { from, to, options };
};

/** Replace an item's own span, shifted by what was typed after the completion was computed. */
function applyAt(item: CompletionItem, queriedTo: number): Completion["apply"] {
  return (view, _completion, _from, to) => {
    const shift = to - queriedTo;
    view.dispatch({
      changes: { from: item.span.start, to: item.span.end + shift, insert: item.insertText },
      selection: { anchor: item.span.start + item.insertText.length },
      userEvent: "input.complete",
    });
  };
}
