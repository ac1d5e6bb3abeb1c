/**
 * A hand-written scanner for whole-string placeholders (seed and path syntax), the parser's fast path.
 *
 * The Parsimmon grammar in `language.ts` stays the definition of the language: this scanner accepts
 * exactly the strings the grammar's `placeholder` rule accepts and builds exactly the same AST, spans
 * included (test/grammar/scanner.test.ts compares the two on generated strings and near-misses). It reports
 * no errors: on anything it does not accept it returns `undefined` and the caller runs the grammar,
 * so error offsets and `expected` lists always come from the grammar. Templates are not scanned.
 *
 * It mirrors the grammar's PEG semantics: `many` is greedy and never backtracks into itself, `alt`
 * commits to its first success, and the token patterns are the grammar's own (from tokens.ts).
 */
import type { Expression, IndexSegment, KeySegment, LiteralNode, QuotedKeySegment, ReferenceNode, Segment, StepNode } from "./ast.js";
import {
  CLOSE_BRACKET,
  DOLLAR,
  DOT,
  isDigit,
  JSON_NUMBER_SOURCE,
  JSON_STRING_SOURCE,
  LITERAL_WORDS,
  OPEN_BRACKET,
  PATH_NAME_STOPS,
  QUESTION,
  QUOTE,
  SPACE,
  ZERO,
} from "./tokens.js";

// The grammar's token patterns (tokens.ts), sticky: they match at an offset as Parsimmon's anchored
// `regexp` does. A path name is scanned by `nameEnd` instead, a loop that is several times faster.
const stringToken = new RegExp(JSON_STRING_SOURCE, "y");
const numberToken = new RegExp(JSON_NUMBER_SOURCE, "y");

/**
 * The AST of `text` as one whole-string placeholder in `syntax`, or `undefined` when the text is not
 * one (then the grammar decides, and explains why).
 *
 * @example
 * scanPlaceholder("$01.city", "seed") // { type: "reference", syntax: "seed", step: { digits: "01", id: "1", … }, path: [{ type: "key", name: "city", … }], … }
 * scanPlaceholder("$1.", "seed")      // undefined: the grammar reports the error
 */
export function scanPlaceholder(text: string, syntax: "seed" | "path"): Expression | undefined {
  return syntax === "seed" ? scanSeed(text) : scanPath(text);
}

/** `$` digits [ `.` rest ]: the key is the whole rest of the string, at least one code unit. */
function scanSeed(text: string): ReferenceNode | undefined {
  const length = text.length;
  if (codeAt(text, 0) !== DOLLAR) return undefined;
  const digitsEnd = skipDigits(text, 1);
  if (digitsEnd === 1) return undefined;
  const step = stepNode(text, 1, digitsEnd);
  if (digitsEnd === length) return referenceNode("seed", 0, length, step, []);
  if (codeAt(text, digitsEnd) !== DOT || digitsEnd + 1 === length) return undefined;
  const key: KeySegment = { type: "key", span: { start: digitsEnd, end: length }, name: text.slice(digitsEnd + 1) };
  return referenceNode("seed", 0, length, step, [key]);
}

/** reference { `??` reference } [ `??` literal ], folded right, and nothing after it. */
function scanPath(text: string): Expression | undefined {
  const head = scanReference(text, 0);
  if (head === undefined) return undefined;
  // The usual case: a reference that is the whole string (no `??` can follow the end).
  if (head.span.end === text.length) return head;
  const items: (ReferenceNode | LiteralNode)[] = [head];
  let at = head.span.end;
  // `many(?? reference)`: an iteration that fails leaves the position before its `??`.
  for (;;) {
    const afterOp = skipDefaultOp(text, at);
    if (afterOp < 0) break;
    const next = scanReference(text, afterOp);
    if (next === undefined) break;
    items.push(next);
    at = next.span.end;
  }
  // `atMost(1)(?? literal)`.
  const afterOp = skipDefaultOp(text, at);
  if (afterOp >= 0) {
    const literal = scanLiteral(text, afterOp);
    if (literal !== undefined) {
      items.push(literal);
      at = literal.span.end;
    }
  }
  if (at !== text.length) return undefined;
  let node: Expression | LiteralNode = items[items.length - 1]!;
  for (let i = items.length - 2; i >= 0; i--) {
    const reference = items[i] as ReferenceNode;
    node = { type: "default", span: { start: reference.span.start, end: node.span.end }, reference, fallback: node };
  }
  return node as Expression;
}

/** `$` step { segment } at `start` (path syntax), or `undefined` when there is no `$` and digit there. */
function scanReference(text: string, start: number): ReferenceNode | undefined {
  if (codeAt(text, start) !== DOLLAR) return undefined;
  const digitsEnd = skipDigits(text, start + 1);
  if (digitsEnd === start + 1) return undefined;
  const step = stepNode(text, start + 1, digitsEnd);
  const path: Segment[] = [];
  let at = digitsEnd;
  for (;;) {
    const segment = scanSegment(text, at);
    if (segment === undefined) break;
    path.push(segment);
    at = segment.span.end;
  }
  return referenceNode("path", start, at, step, path);
}

/** `.name`, `[digits]` or `["json string"]` at `start`. */
function scanSegment(text: string, start: number): Segment | undefined {
  const code = codeAt(text, start);
  if (code === DOT) {
    const end = nameEnd(text, start + 1);
    if (end === start + 1) return undefined;
    const key: KeySegment = { type: "key", span: { start, end }, name: text.slice(start + 1, end) };
    return key;
  }
  if (code !== OPEN_BRACKET) return undefined;
  const inner = start + 1;
  const digitsEnd = skipDigits(text, inner);
  if (digitsEnd > inner) {
    // `alt` committed to the index: a missing `]` fails the whole segment.
    if (codeAt(text, digitsEnd) !== CLOSE_BRACKET) return undefined;
    const index: IndexSegment = { type: "index", span: { start, end: digitsEnd + 1 }, index: digitsValue(text, inner, digitsEnd) };
    return index;
  }
  if (codeAt(text, inner) !== QUOTE) return undefined;
  stringToken.lastIndex = inner;
  if (!stringToken.test(text)) return undefined;
  const stringEnd = stringToken.lastIndex;
  if (codeAt(text, stringEnd) !== CLOSE_BRACKET) return undefined;
  const quoted: QuotedKeySegment = {
    type: "quoted-key",
    span: { start, end: stringEnd + 1 },
    name: JSON.parse(text.slice(inner, stringEnd)) as string,
  };
  return quoted;
}

/** A JSON literal at `start`, tried in the grammar's order: string, number, true, false, null. */
function scanLiteral(text: string, start: number): LiteralNode | undefined {
  stringToken.lastIndex = start;
  if (stringToken.test(text))
    return literalNode(start, stringToken.lastIndex, JSON.parse(text.slice(start, stringToken.lastIndex)) as string);
  numberToken.lastIndex = start;
  if (numberToken.test(text)) return literalNode(start, numberToken.lastIndex, Number(text.slice(start, numberToken.lastIndex)));
  for (const [word, value] of LITERAL_WORDS) if (text.startsWith(word, start)) return literalNode(start, start + word.length, value);
  return undefined;
}

/** The end of ` *?? *` at `start`, or -1 when there is none. */
function skipDefaultOp(text: string, start: number): number {
  let at = start;
  while (codeAt(text, at) === SPACE) at++;
  if (codeAt(text, at) !== QUESTION || codeAt(text, at + 1) !== QUESTION) return -1;
  at += 2;
  while (codeAt(text, at) === SPACE) at++;
  return at;
}

/**
 * ASCII characters that end a path name: `PATH_NAME_STOPS` and the ASCII whitespace of `\s`
 * (tab, line feed, vertical tab, form feed, carriage return, space).
 */
const NAME_STOP = new Uint8Array(128);
for (const char of `${PATH_NAME_STOPS}\t\n\v\f\r `) NAME_STOP[char.charCodeAt(0)] = 1;

/** Whether a non-ASCII code unit is whitespace for `\s` (WhiteSpace and LineTerminator of ECMAScript). */
function isWideSpace(code: number): boolean {
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** The end of the run of name characters starting at `start` (`start` itself when there is none). */
function nameEnd(text: string, start: number): number {
  const length = text.length;
  let at = start;
  while (at < length) {
    const code = text.charCodeAt(at);
    if (code < 128 ? NAME_STOP[code] === 1 : isWideSpace(code)) break;
    at++;
  }
  return at;
}

/** The code unit at `at`, or -1 past the end (reading past the end would make V8 deoptimize). */
function codeAt(text: string, at: number): number {
  return at < text.length ? text.charCodeAt(at) : -1;
}

function skipDigits(text: string, start: number): number {
  let at = start;
  while (isDigit(codeAt(text, at))) at++;
  return at;
}

/** `Number(text.slice(start, end))` for a run of ASCII digits, without the copy when it is exact. */
function digitsValue(text: string, start: number, end: number): number {
  // Up to 15 digits the value is below 2^53, so the arithmetic is exact, as Number's is.
  if (end - start > 15) return Number(text.slice(start, end));
  let value = 0;
  for (let at = start; at < end; at++) value = value * 10 + (text.charCodeAt(at) - ZERO);
  return value;
}

function stepNode(text: string, start: number, end: number): StepNode {
  // Leading zeros go, but the last digit stays: "007" is "7", "000" is "0".
  let first = start;
  while (first < end - 1 && text.charCodeAt(first) === ZERO) first++;
  const digits = text.slice(start, end);
  return { type: "step", span: { start, end }, digits, id: first === start ? digits : text.slice(first, end) };
}

function referenceNode(syntax: "seed" | "path", start: number, end: number, step: StepNode, path: Segment[]): ReferenceNode {
  return { type: "reference", span: { start, end }, syntax, step, path };
}

function literalNode(start: number, end: number, value: string | number | boolean | null): LiteralNode {
  return { type: "literal", span: { start, end }, value };
}
