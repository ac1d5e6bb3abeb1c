/**
 * JSON documents with positions. Values come from `JSON.parse` (which keeps a `__proto__` key as an
 * own key and never touches a prototype); offsets and error positions come from `jsonc-parser`, a
 * maintained parser that reports them, rather than hand-written position tracking.
 */
import jsonc from "jsonc-parser";
import { LineIndex } from "../shared/positions.js";

/** A node of the JSON syntax tree, with offsets into the text. */
export type JsonNode = jsonc.Node;

/** A JSON syntax error with its place. */
export interface JsonSyntaxError {
  readonly message: string;
  readonly offset: number;
  readonly length: number;
  readonly line: number;
  readonly column: number;
}

/** A parsed JSON document: its value and its syntax tree. */
export type JsonDocument =
  | { readonly ok: true; readonly value: unknown; readonly tree: JsonNode; readonly lines: LineIndex }
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

/** Parse strict JSON (no comments, no trailing commas) with positions. Never throws. */
export function parseJsonText(text: string): JsonDocument {
  const lines = new LineIndex(text);
  const errors: jsonc.ParseError[] = [];
  const tree = jsonc.parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first !== undefined || tree === undefined) {
    const offset = first?.offset ?? text.length;
    const name = first === undefined ? "ValueExpected" : jsonc.printParseErrorCode(first.error);
    const { line, column } = lines.position(offset);
    return { ok: false, lines, error: { message: messages[name] ?? name, offset, length: first?.length ?? 0, line, column } };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown, tree, lines };
  } catch (error) {
    // jsonc-parser is more lenient than JSON.parse in a few corners (lone surrogates are fine in both;
    // this is a safety net): report the start of the document.
    return { ok: false, lines, error: { message: error instanceof Error ? error.message : String(error), offset: 0, length: 0, line: 1, column: 1 } };
  }
}
