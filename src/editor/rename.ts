/**
 * Renumbering a step: the text edits that change its `"id"` and every reference to it, and nothing
 * else. Leading zeros a reference was written with are kept (`$01` to `$05`), so the edit changes
 * ids only; the new digits never need escaping, so the JSON stays valid.
 */
import type { Span } from "../shared/span.js";
import { isStepId, referenceSpans } from "./definition.js";
import type { EditorOptions } from "./editor-options.js";
import { withFallback } from "./guard.js";
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
  return withFallback("renameStep", [], () => {
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
 * Apply text edits to a text. Edits that overlap an earlier one, fall outside the text or cannot be
 * read (a throwing getter or Proxy) are left out; a `text` that is not a string is empty. Never throws.
 *
 * @example
 * applyTextEdits("$1.city", [{ span: { start: 1, end: 2 }, newText: "5" }]) // "$5.city"
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const source = typeof text === "string" ? text : "";
  const usable: { start: number; end: number; newText: string }[] = [];
  try {
    for (const edit of edits) {
      try {
        const { start, end } = edit.span;
        const newText = String(edit.newText);
        if (Number.isInteger(start) && Number.isInteger(end) && 0 <= start && start <= end && end <= source.length)
          usable.push({ start, end, newText });
      } catch {
        // An unreadable edit is left out.
      }
    }
  } catch {
    // Edits that cannot be iterated: none apply.
  }
  usable.sort((a, b) => a.start - b.start || a.end - b.end);
  let out = "";
  let at = 0;
  for (const edit of usable) {
    if (edit.start < at) continue;
    out += source.slice(at, edit.start) + edit.newText;
    at = edit.end;
  }
  return out + source.slice(at);
}
