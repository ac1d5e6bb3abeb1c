/**
 * JSON documents with error positions. Values come from `JSON.parse` (which keeps a `__proto__` key
 * as an own key and never touches a prototype); when it fails, `jsonc-parser` (a maintained parser
 * that reports offsets) finds where, without building a syntax tree.
 */
import { LineIndex } from "../shared/positions.js";
import { jsonc } from "./jsonc.js";

/**
 * Deepest nesting of arrays and objects analysed in a JSON document: the parser that finds positions
 * (jsonc-parser, for the linter and the editor) recurses once per level; real plans are shallow.
 */
export const MAX_NESTING = 512;

/**
 * Where a JSON text first nests deeper than `max` arrays and objects (the offset of that bracket), or
 * `undefined`. One linear pass; brackets inside strings do not count (a line break ends a string, as
 * in a document being edited). Never throws.
 *
 * @example
 * nestingPast("[[[1]]]", 2) // { offset: 2 }
 * nestingPast('{"a":[["]"]]}', 3) // undefined
 */
export function nestingPast(text: string, max = MAX_NESTING): { offset: number } | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 92) i++;
      else if (code === 34 || code === 10 || code === 13) inString = false;
    } else if (code === 34) {
      inString = true;
    } else if (code === 123 || code === 91) {
      if (++depth > max) return { offset: i };
    } else if (code === 125 || code === 93) {
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
}

/** The one message for a document nested past `MAX_NESTING` (the linter's `limit` diagnostic says it too). */
export function nestingMessage(): string {
  return `arrays and objects are nested more than ${MAX_NESTING} levels deep (the limit of the JSON reader, MAX_NESTING)`;
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
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: JsonSyntaxError; readonly lines: LineIndex };

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
    return {
      ok: false,
      lines: new LineIndex(""),
      error: {
        message: `a JSON document must be text, not ${text === null ? "null" : typeof text}`,
        offset: 0,
        length: 0,
        line: 1,
        column: 1,
      },
    };
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
  const comma = first === undefined ? undefined : trailingComma(text, first.offset);
  if (comma !== undefined) {
    const { line, column } = lines.position(comma);
    return { ok: false, lines, error: { message: TRAILING_COMMA, offset: comma, length: 1, line, column } };
  }
  const offset = first?.offset ?? (text.trim() === "" ? text.length : 0);
  const name = first === undefined ? (text.trim() === "" ? "ValueExpected" : "InvalidSymbol") : jsonc.printParseErrorCode(first.code);
  const { line, column } = lines.position(offset);
  return { ok: false, lines, error: { message: messages[name] ?? name, offset, length: first?.length ?? 0, line, column } };
}

/** The message of a comma before `]` or `}`, which JSON (unlike JavaScript) does not allow. */
export const TRAILING_COMMA = "trailing comma: JSON allows no comma before a closing bracket (remove it)";

/**
 * The offset of the comma when the parser stopped at a closing bracket that only whitespace
 * separates from a comma: jsonc-parser reports that bracket ("expected a value"), but the mistake
 * is the comma.
 */
function trailingComma(text: string, offset: number): number | undefined {
  const at = text.charCodeAt(offset);
  if (at !== 93 && at !== 125) return undefined;
  let i = offset - 1;
  while (i >= 0 && /[ \t\r\n]/.test(text[i]!)) i--;
  return i >= 0 && text[i] === "," ? i : undefined;
}
