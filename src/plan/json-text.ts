/**
 * JSON documents with error positions. Values come from `JSON.parse` (which keeps a `__proto__` key
 * as an own key and never touches a prototype); when it fails, `jsonc-parser` (a maintained parser
 * that reports offsets) finds where, without building a syntax tree.
 */
import { DEFAULT_LIMITS } from "../shared/options.js";
import { LineIndex } from "../shared/positions.js";
import { jsonc } from "./jsonc.js";

/**
 * Deepest nesting of arrays and objects in a JSON document whose positions are looked up (the parser
 * that finds them recurses once per level): the arguments' limit, `maxDepth`, plus the plan's own
 * four levels around them (the plan object, `steps`, the step, `args`).
 */
export const MAX_JSON_NESTING = DEFAULT_LIMITS.maxDepth + 4;

/**
 * Where a JSON text first nests deeper than `max` arrays and objects (the offset of that bracket), or
 * `undefined`. One linear pass; brackets inside strings do not count. Never throws.
 *
 * @example
 * nestingPast("[[[1]]]", 2) // { offset: 2 }
 */
export function nestingPast(text: string, max = MAX_JSON_NESTING): { offset: number } | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote, past escapes.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return { offset: i };
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return undefined;
}

/** The one message for a document nested past `MAX_JSON_NESTING` (the linter's `limit` diagnostic says it too). */
export function nestingMessage(): string {
  return `arrays and objects are nested more than ${MAX_JSON_NESTING} levels deep (maxDepth, ${DEFAULT_LIMITS.maxDepth}, plus the plan's own levels)`;
}

/** A JSON syntax error with its place. */
export interface JsonSyntaxError {
  readonly message: string;
  readonly offset: number;
  readonly length: number;
  readonly line: number;
  readonly column: number;
}

/** A parsed JSON document: its value, or the first syntax error with its position. */
export type JsonDocument =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: JsonSyntaxError; readonly lines: LineIndex };

const messages: Record<string, string> = {
  InvalidSymbol: "invalid symbol",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: "expected ':'",
  CommaExpected: "expected ',' or a closing bracket",
  CloseBraceExpected: "expected '}'",
  CloseBracketExpected: "expected ']'",
  EndOfFileExpected: "expected the end of the file",
  InvalidCommentToken: "comments are not allowed in JSON",
  UnexpectedEndOfComment: "unexpected end of comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unexpected end of number",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character in string (control characters must be escaped)",
};

/**
 * Parse strict JSON (no comments, no trailing commas). Never throws.
 *
 * @example
 * parseJsonText('{"a": }') // { ok: false, error: { message: "expected a value", line: 1, column: 7, … } }
 */
export function parseJsonText(text: string): JsonDocument {
  if (typeof text !== "string") {
    return { ok: false, lines: new LineIndex(""), error: { message: `a JSON document must be text, not ${text === null ? "null" : typeof text}`, offset: 0, length: 0, line: 1, column: 1 } };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    // Find where with jsonc-parser below.
  }
  const deep = nestingPast(text);
  if (deep !== undefined) {
    const lines = new LineIndex(text);
    const { line, column } = lines.position(deep.offset);
    return { ok: false, lines, error: { message: nestingMessage(), offset: deep.offset, length: 1, line, column } };
  }
  let first: { code: number; offset: number; length: number } | undefined;
  try {
    jsonc.visit(
      text,
      {
        onError(code, offset, length) {
          first ??= { code, offset, length };
        },
      },
      { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
    );
  } catch {
    // Nesting deep enough to exhaust jsonc-parser's recursion: report the start of the document.
  }
  const lines = new LineIndex(text);
  const offset = first?.offset ?? (text.trim() === "" ? text.length : 0);
  const name = first === undefined ? (text.trim() === "" ? "ValueExpected" : "InvalidSymbol") : jsonc.printParseErrorCode(first.code as Parameters<typeof jsonc.printParseErrorCode>[0]);
  const { line, column } = lines.position(offset);
  return { ok: false, lines, error: { message: messages[name] ?? name, offset, length: first?.length ?? 0, line, column } };
}
