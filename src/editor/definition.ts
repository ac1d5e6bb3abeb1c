/**
 * Go to definition (from a reference to its step), find references (every reference to a step), and
 * the step id under the cursor (for rename and references in an editor). References are the ones the
 * resolver resolves: strings it reads that parse; a malformed string is not a reference.
 */
import { referencesIn } from "../grammar/ast.js";
import type { Span } from "../shared/span.js";
import { cursorAt, fileSpan, referenceAt, stepNumber } from "./cursor.js";
import type { EditorOptions } from "./editor-options.js";
import { withFallback } from "./guard.js";
import { analyzePlan, type PlanDocument } from "./plan-document.js";

/**
 * The file span of the step object a reference at `offset` points at. Never throws.
 *
 * @example
 * definitionAt(planText, offsetOf("$|1.city")) // the span of `{ "id": 1, … }`
 */
export function definitionAt(planText: string, offset: number, options?: EditorOptions): Span | undefined {
  return withFallback("definitionAt", undefined, () => {
    const document = analyzePlan(planText, options);
    const cursor = cursorAt(document, offset);
    if (cursor === undefined) return undefined;
    const reference = referenceAt(cursor.lexed, cursor.at);
    const id = reference === undefined ? undefined : stepNumber(cursor.site.string.value, reference);
    const step = id === undefined ? undefined : document.byId.get(id);
    return step === undefined ? undefined : { start: step.node.offset, end: step.node.offset + step.node.length };
  });
}

/**
 * The file spans of the step digits of every reference to step `stepId` (`$01` and `${1}` included),
 * in document order. Never throws.
 *
 * @example
 * referencesTo('{"steps":[{"id":1,"tool":"a"},{"id":2,"tool":"b","args":{"q":"$1.city"}}]}', 1) // [{ start: 63, end: 64 }]
 */
export function referencesTo(planText: string, stepId: number, options?: EditorOptions): Span[] {
  return withFallback("referencesTo", [], () => {
    if (!isStepId(stepId)) return [];
    return referenceSpans(analyzePlan(planText, options), stepId).map(({ start, end }) => ({ start, end }));
  });
}

/**
 * `referencesTo` on an analysed document, with each span's digits as written.
 *
 * @example
 * referenceSpans(analyzePlan(text), 1) // [{ start: 62, end: 64, digits: "01" }]
 */
export function referenceSpans(document: PlanDocument, stepId: number): (Span & { readonly digits: string })[] {
  const id = String(stepId);
  const spans: (Span & { digits: string })[] = [];
  for (const site of document.sites) {
    if (site.classification.kind !== "ref") continue;
    for (const node of referencesIn(site.classification.ast)) {
      if (node.step.id === id) spans.push({ ...fileSpan(site, node.step.span), digits: node.step.digits });
    }
  }
  return spans;
}

/** A step id under the cursor, and where it is written. */
export interface StepAt {
  readonly stepId: number;
  /** File span of the id: a step's `"id"` number, or a reference's step digits. */
  readonly span: Span;
  /** Whether the cursor is on the step's own `"id"` rather than on a reference to it. */
  readonly declaration: boolean;
  /** Whether the plan has a step with this id. */
  readonly exists: boolean;
}

/**
 * The step id at file offset `offset`: on a step's `"id"` value, or on a reference's `$` or digits.
 * Never throws.
 *
 * @example
 * stepAt(planText, offsetOf('"id": |2')) // { stepId: 2, declaration: true, exists: true, span: … }
 */
export function stepAt(planText: string, offset: number, options?: EditorOptions): StepAt | undefined {
  return withFallback("stepAt", undefined, () => {
    const document = analyzePlan(planText, options);
    for (const step of document.steps) {
      const node = step.idNode;
      if (step.id !== undefined && node !== undefined && node.offset <= offset && offset <= node.offset + node.length) {
        return { stepId: step.id, span: { start: node.offset, end: node.offset + node.length }, declaration: true, exists: true };
      }
    }
    const cursor = cursorAt(document, offset);
    if (cursor === undefined) return undefined;
    const reference = referenceAt(cursor.lexed, cursor.at);
    if (reference === undefined || cursor.at > reference.step.end) return undefined;
    const id = stepNumber(cursor.site.string.value, reference);
    if (id === undefined) return undefined;
    return { stepId: id, span: fileSpan(cursor.site, reference.step), declaration: false, exists: document.byId.has(id) };
  });
}

/**
 * A non-negative safe integer: what a step id can be.
 *
 * @example
 * isStepId(3) // true
 * isStepId(-1) // false
 */
export function isStepId(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}
