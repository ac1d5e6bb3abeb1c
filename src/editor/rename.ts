/**
 * Renumbering a step: the text edits that change its `"id"` and every reference to it, and nothing
 * else. Leading zeros a reference was written with are kept (`$01` to `$05`), so the edit changes
 * ids only; the new digits never need escaping, so the JSON stays valid.
 */
import type { Span } from "../shared/span.js";
import { isStepId, referenceSpans } from "./definition.js";
import type { EditorOptions } from "./editor-options.js";
import { guarded } from "./guard.js";
import { analyzePlan } from "./plan-document.js";

/** A replacement of the text at `span` (file offsets). */
export interface TextEdit {
  readonly span: Span;
  readonly newText: string;
}

/**
 * The edits that renumber step `stepId` to `newId`: its `"id"` value (every step with that id, if it
 * is duplicated) and the step digits of every reference to it, in document order. Empty when there
 * is nothing to do or it cannot be done: no step `stepId`, `newId` not a non-negative safe integer,
 * or already the id of another step. Never throws.
 *
 * @example
 * applyTextEdits(text, renameStep(text, 1, 5)) // "id": 5, and "$1.city" is now "$5.city"
 */
export function renameStep(planText: string, stepId: number, newId: number, options?: EditorOptions): TextEdit[] {
  return guarded("renameStep", [], () => {
    if (!isStepId(stepId) || !isStepId(newId) || stepId === newId) return [];
    const document = analyzePlan(planText, options);
    if (!document.byId.has(stepId) || document.byId.has(newId)) return [];
    const edits: TextEdit[] = [];
    for (const step of document.steps) {
      if (step.id === stepId && step.idNode !== undefined) {
        edits.push({ span: { start: step.idNode.offset, end: step.idNode.offset + step.idNode.length }, newText: String(newId) });
      }
    }
    for (const reference of referenceSpans(document, stepId)) {
      const zeros = reference.digits.length - String(stepId).length;
      edits.push({ span: { start: reference.start, end: reference.end }, newText: "0".repeat(Math.max(0, zeros)) + String(newId) });
    }
    return edits.sort((a, b) => a.span.start - b.span.start);
  });
}

/**
 * Apply text edits to a text. Edits that overlap an earlier one or fall outside the text are left
 * out. Never throws.
 *
 * @example
 * applyTextEdits("$1.city", [{ span: { start: 1, end: 2 }, newText: "5" }]) // "$5.city"
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits]
    .filter((edit) => Number.isInteger(edit.span.start) && Number.isInteger(edit.span.end) && 0 <= edit.span.start && edit.span.start <= edit.span.end && edit.span.end <= text.length)
    .sort((a, b) => a.span.start - b.span.start || a.span.end - b.span.end);
  let out = "";
  let at = 0;
  for (const edit of sorted) {
    if (edit.span.start < at) continue;
    out += text.slice(at, edit.span.start) + String(edit.newText);
    at = edit.span.end;
  }
  return out + text.slice(at);
}
