/**
 * What is under the cursor: the reference string holding a file offset, the offset inside the
 * decoded string, and the lexed reference there (complete or half-typed). Shared by completion,
 * hover and definition.
 */
import type { PathStep } from "../lint/schema-walk.js";
import type { Span } from "../shared/span.js";
import { decodedOffset } from "./json-string.js";
import { lexString, type Lexed, type LexedReference, type LexedSegment, type StringMode } from "./lexer.js";
import { siteAt, type PlanDocument, type StringSite } from "./plan-document.js";
import { stringMode } from "./tokens.js";

/** A cursor inside a reference string. */
export interface Cursor {
  readonly document: PlanDocument;
  readonly site: StringSite;
  /** The cursor's offset inside the decoded string. */
  readonly at: number;
  readonly mode: StringMode;
  readonly lexed: Lexed;
}

/**
 * The cursor at file offset `offset`, when it is inside a string the resolver reads and that string
 * is (or is becoming) a reference or template.
 *
 * @example
 * cursorAt(analyzePlan(text), offset)?.at // offset inside the string's value
 */
export function cursorAt(document: PlanDocument, offset: number): Cursor | undefined {
  if (!Number.isFinite(offset)) return undefined;
  const site = siteAt(document, offset);
  if (site === undefined) return undefined;
  const value = site.string.value;
  if (value.length > document.options.maxRefLength) return undefined;
  const mode = stringMode(value, document.options, site.classification);
  if (mode === undefined) return undefined;
  return { document, site, at: decodedOffset(site.string, offset), mode, lexed: lexString(value, document.options.syntax, mode) };
}

/**
 * The lexed reference the cursor is in or just after (`$1.ci|`), preferring one that holds the
 * character after the cursor.
 *
 * @example
 * referenceAt(lexString("$1.ci", "seed", "placeholder"), 5)?.step // { start: 1, end: 2 }
 */
export function referenceAt(lexed: Lexed, at: number): LexedReference | undefined {
  let touching: LexedReference | undefined;
  for (const reference of lexed.references) {
    if (reference.start <= at && at < reference.end) return reference;
    if (reference.end === at) touching = reference;
  }
  return touching;
}

/**
 * The offset just past a segment (its closing bracket included, when there is one).
 *
 * @example
 * segmentEnd(lexString("$1[0]", "path", "placeholder").references[0].segments[0]) // 5
 */
export function segmentEnd(segment: LexedSegment): number {
  if (segment.kind === "key") return segment.name.end;
  return segment.close === undefined ? segment.content.end : segment.close + 1;
}

/**
 * The offset where a segment starts (its `.` or `[`).
 *
 * @example
 * segmentStart(lexString("$1.a", "path", "placeholder").references[0].segments[0]) // 2
 */
export function segmentStart(segment: LexedSegment): number {
  return segment.kind === "key" ? segment.dot : segment.open;
}

/**
 * The path the segments spell, as far as each is complete (`undefined` when one cannot be read: an
 * empty key, a bracket with nothing in it, a broken quoted key).
 *
 * @example
 * pathOf("$1.a[0]", lexString("$1.a[0]", "path", "placeholder").references[0].segments)
 * // [{ kind: "key", name: "a" }, { kind: "index", index: 0 }]
 */
export function pathOf(value: string, segments: readonly LexedSegment[]): PathStep[] | undefined {
  const path: PathStep[] = [];
  for (const segment of segments) {
    if (segment.kind === "key") {
      if (segment.name.end <= segment.name.start) return undefined;
      path.push({ kind: "key", name: value.slice(segment.name.start, segment.name.end) });
    } else if (segment.contentKind === "index") {
      path.push({ kind: "index", index: Number(value.slice(segment.content.start, segment.content.end)) });
    } else if (segment.contentKind === "quoted") {
      const name = parseQuoted(value.slice(segment.content.start, segment.content.end));
      if (name === undefined) return undefined;
      path.push({ kind: "key", name });
    } else {
      return undefined;
    }
  }
  return path;
}

function parseQuoted(text: string): string | undefined {
  try {
    const name: unknown = JSON.parse(text);
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A span inside the site's decoded string, as file offsets.
 *
 * @example
 * fileSpan(site, { start: 0, end: 1 }) // where the string's first character is in the file
 */
export function fileSpan(site: StringSite, span: Span): Span {
  const { offsets } = site.string;
  const last = offsets.length - 1;
  const clamp = (k: number): number => offsets[Math.max(0, Math.min(k, last))]!;
  return { start: clamp(span.start), end: clamp(span.end) };
}

/**
 * The canonical id of a reference's step digits (`"007"` is step 7), or `undefined` when it has none
 * or it is not a safe integer.
 *
 * @example
 * stepNumber("$007", lexString("$007", "seed", "placeholder").references[0]) // 7
 */
export function stepNumber(value: string, reference: LexedReference): number | undefined {
  const digits = value.slice(reference.step.start, reference.step.end);
  if (digits === "") return undefined;
  const id = Number(digits);
  return Number.isSafeInteger(id) ? id : undefined;
}
