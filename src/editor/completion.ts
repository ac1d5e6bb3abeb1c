/**
 * Completion inside reference strings: step ids after `$` (or `${`), and after a step and a `.` or
 * `[` the keys and indexes that the producing tool's output schema has at that path. Every item
 * carries the file span it replaces and text that is already escaped for the JSON string it goes in.
 */
import { isPathName } from "../grammar/tokens.js";
import type { Span } from "../shared/span.js";
import { cursorAt, fileSpan, pathOf, referenceAt, stepNumber, type Cursor } from "./cursor.js";
import { ownData } from "../shared/own-data.js";
import type { EditorOptions } from "./editor-options.js";
import type { LexedReference, LexedSegment } from "./lexer.js";
import { withFallback } from "./guard.js";
import { analyzePlan, dependenciesOf, type PlanDocument } from "./plan-document.js";
import { membersAt, schemasAt, typeNames } from "./schema-at.js";

/** A completion item. */
export interface CompletionItem {
  /** What the list shows: a step id, a key, an index. */
  readonly label: string;
  readonly kind: "step" | "key" | "index";
  /** For a step its tool; for a key or index the type of its value. */
  readonly detail?: string;
  /** The tool's or the key's description. */
  readonly documentation?: string;
  /** The text that replaces `span`, escaped for the JSON string it is inserted in. */
  readonly insertText: string;
  /** File offsets of the text the item replaces. */
  readonly span: Span;
}

/**
 * The completions at file offset `offset` of a plan document. Never throws; works on half-typed text
 * (`"q": "$1.` at the end of the file).
 *
 * @example
 * completionsAt('{"steps":[{"id":1,"tool":"geocode","args":{}},{"id":2,"tool":"weather","args":{"at":"$"}}]}', 86)
 * // [{ label: "1", kind: "step", detail: "geocode", insertText: "1", span: { start: 86, end: 86 } }]
 */
export function completionsAt(planText: string, offset: number, options?: EditorOptions): CompletionItem[] {
  return withFallback("completionsAt", [], () => {
    const document = analyzePlan(planText, options);
    const cursor = cursorAt(document, offset);
    if (cursor === undefined) return [];
    const reference = completionReference(cursor);
    if (reference === undefined) return [];
    if (cursor.at <= reference.step.end) return stepItems(cursor, reference);
    const segment = reference.segments.find((item) => inside(item, cursor.at));
    return segment === undefined ? [] : pathItems(cursor, reference, segment);
  });
}

/** The reference being typed at the cursor (for a braced one, the cursor may sit right on its first digit). */
function completionReference(cursor: Cursor): LexedReference | undefined {
  const reference = referenceAt(cursor.lexed, cursor.at);
  if (reference === undefined || cursor.at > reference.end) return undefined;
  // Before the `$` is not in the reference.
  if (reference.dollar && cursor.at <= reference.start) return undefined;
  return reference;
}

/** The cursor is within a segment's text after its `.` or `[` (its closing `]` excluded). */
function inside(segment: LexedSegment, at: number): boolean {
  if (segment.kind === "key") return segment.dot < at && at <= segment.name.end;
  return segment.open < at && at <= (segment.close ?? segment.content.end);
}

/** The steps that may be referenced from the cursor's step: not itself, not one that depends on it (a cycle); from the output, every step. */
function stepItems(cursor: Cursor, reference: LexedReference): CompletionItem[] {
  const { document, site } = cursor;
  const excluded = dependentsOf(document, site.step?.id);
  const span = fileSpan(site, reference.step);
  const items: CompletionItem[] = [];
  for (const [id, step] of document.byId) {
    if (excluded.has(id)) continue;
    const description = step.tool === undefined ? undefined : toolDescription(document, step.tool);
    items.push({
      label: String(id),
      kind: "step",
      ...(step.tool === undefined ? {} : { detail: step.tool }),
      ...(description === undefined ? {} : { documentation: description }),
      insertText: String(id),
      span,
    });
  }
  return items;
}

/** The step itself and every step that depends on it, directly or not. */
function dependentsOf(document: PlanDocument, id: number | undefined): Set<number> {
  const excluded = new Set<number>();
  if (id === undefined) return excluded;
  const dependents = new Map<number, number[]>();
  for (const [from, targets] of dependenciesOf(document)) {
    for (const to of targets) {
      const list = dependents.get(to) ?? [];
      list.push(from);
      dependents.set(to, list);
    }
  }
  const queue = [id];
  excluded.add(id);
  for (let i = 0; i < queue.length; i++) {
    for (const next of dependents.get(queue[i]!) ?? []) {
      if (!excluded.has(next)) {
        excluded.add(next);
        queue.push(next);
      }
    }
  }
  return excluded;
}

/** Keys (after `.`) or keys and indexes (after `[`) of the value the path before the segment selects. */
function pathItems(cursor: Cursor, reference: LexedReference, segment: LexedSegment): CompletionItem[] {
  const { document, site } = cursor;
  const value = site.string.value;
  const path = pathOf(value, reference.segments.slice(0, reference.segments.indexOf(segment)));
  const id = stepNumber(value, reference);
  const step = id === undefined ? undefined : document.byId.get(id);
  const spec = step?.tool === undefined || document.catalog === undefined ? undefined : ownData(document.catalog, step.tool);
  const output = ownData(spec, "output");
  if (path === undefined || output === undefined) return [];
  const members = membersAt(output, path);
  const syntax = document.options.syntax;
  const items: CompletionItem[] = [];

  if (segment.kind === "key") {
    // Inside `${…}` a seed key ends at the first `}`.
    const braced = cursor.mode === "template";
    for (const [name, schemas] of members.keys) {
      let insert = name;
      let span = segment.name;
      if (syntax === "path" && !isPathName(name)) {
        insert = `[${JSON.stringify(name)}]`;
        span = { start: segment.dot, end: segment.name.end };
      } else if (name === "" || (braced && name.includes("}"))) {
        continue;
      }
      items.push(keyItem(name, schemas, insert, fileSpan(site, span)));
    }
    return items;
  }

  const span = fileSpan(site, { start: segment.open + 1, end: segment.close === undefined ? segment.content.end : segment.close + 1 });
  const count = members.tupleLength > 0 ? members.tupleLength : members.array ? 1 : 0;
  for (let index = 0; index < count; index++) {
    const schemas = schemasAt(output, [...path, { kind: "index", index }]).schemas;
    items.push({ label: String(index), kind: "index", ...typeDetail(schemas), insertText: `${index}]`, span });
  }
  for (const [name, schemas] of members.keys) items.push(keyItem(name, schemas, `${JSON.stringify(name)}]`, span));
  return items;
}

function keyItem(name: string, schemas: readonly unknown[], insert: string, span: Span): CompletionItem {
  return { label: name, kind: "key", ...typeDetail(schemas), insertText: jsonEscape(insert), span };
}

/** `detail` (the types) and `documentation` (the first description) of a member's schemas. */
function typeDetail(schemas: readonly unknown[]): { detail?: string; documentation?: string } {
  const types = new Set<string>();
  let description: string | undefined;
  for (const schema of schemas) {
    for (const name of typeNames(schema) ?? []) types.add(name);
    const text = ownData(schema, "description");
    if (description === undefined && typeof text === "string") description = text;
  }
  return {
    ...(types.size > 0 ? { detail: [...types].join(" | ") } : {}),
    ...(description === undefined ? {} : { documentation: description }),
  };
}

function toolDescription(document: PlanDocument, tool: string): string | undefined {
  const description = ownData(ownData(document.catalog, tool), "description");
  return typeof description === "string" ? description : undefined;
}

/**
 * Text escaped for the inside of a JSON string.
 *
 * @example
 * jsonEscape('["a b"]') // '[\\"a b\\"]'
 */
export function jsonEscape(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}
