/**
 * A tolerant lexer for reference and template strings, for text the grammar rejects: half-typed
 * references (`$1.`, `${1.ci`), stray characters (`$1 .city`), unclosed braces. It follows the
 * grammar's token patterns, so on a valid string it gives the same tokens as the AST does
 * (test/editor/properties.test.ts checks this), and it also returns the structure of each
 * reference (step digits, segments) that completion needs. It never fails: what it cannot read is
 * an `invalid` token, and the tokens always tile the whole string.
 */
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  DEFAULT_OP_SOURCE,
  DOLLAR,
  DOT,
  isDigit,
  JSON_NUMBER_SOURCE,
  JSON_STRING_SOURCE,
  LITERAL_WORDS,
  OPEN_BRACKET,
  PATH_NAME_CHAR_SOURCE,
  QUOTE,
} from "../grammar/tokens.js";
import type { Syntax } from "../shared/options.js";
import type { Span } from "../shared/span.js";

/** The kinds of token in a reference or template string. */
export type TokenKind =
  "dollar" | "step" | "separator" | "key" | "index" | "quoted-key" | "text" | "escape" | "invalid" | "operator" | "literal" | "brace";

/** Every token kind, in a stable order (the LSP legend is built from it). */
export const TOKEN_KINDS: readonly TokenKind[] = Object.freeze([
  "dollar",
  "step",
  "separator",
  "key",
  "index",
  "quoted-key",
  "text",
  "escape",
  "invalid",
  "operator",
  "literal",
  "brace",
]);

/** A token of a reference or template string: offsets inside the (decoded) string. */
export interface Token {
  readonly kind: TokenKind;
  readonly span: Span;
}

/** One path segment as lexed: a key (`.name`, the name possibly still empty) or a bracket (`[0]`, `["a"]`, `[`). */
export type LexedSegment =
  | { readonly kind: "key"; readonly dot: number; readonly name: Span }
  | {
      readonly kind: "bracket";
      readonly open: number;
      /** The digits or the quoted string inside (empty when nothing is typed yet). */
      readonly content: Span;
      readonly contentKind: "index" | "quoted" | "none";
      /** Offset of `]`, when present. */
      readonly close: number | undefined;
    };

/** A reference as lexed, complete or not. */
export interface LexedReference {
  readonly start: number;
  /** Whether it starts with `$` (the first reference inside `${…}` does not). */
  readonly dollar: boolean;
  /** The step digits (empty when none are typed yet). */
  readonly step: Span;
  readonly segments: readonly LexedSegment[];
  readonly end: number;
}

/** What lexing a string gives. */
export interface Lexed {
  readonly tokens: Token[];
  readonly references: LexedReference[];
}

/** How a string is read: one whole-string placeholder, or a template with `${…}` parts. */
export type StringMode = "placeholder" | "template";

// The grammar's token patterns (grammar/tokens.ts), sticky so they match at an offset. A name may be
// empty here (`$1.` while typing).
const NAME = new RegExp(`${PATH_NAME_CHAR_SOURCE}*`, "y");
const JSON_STRING = new RegExp(JSON_STRING_SOURCE, "y");
const JSON_NUMBER = new RegExp(JSON_NUMBER_SOURCE, "y");
const DEFAULT_OP = new RegExp(DEFAULT_OP_SOURCE, "y");

function match(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  return pattern.test(text) ? pattern.lastIndex : -1;
}

/**
 * Lex `text` as a placeholder or a template in `syntax`. Never throws; the tokens tile the string.
 *
 * @example
 * lexString("$1.", "path", "placeholder").tokens.map((t) => t.kind) // ["dollar", "step", "separator"]
 */
export function lexString(text: string, syntax: Syntax, mode: StringMode): Lexed {
  const tokens: Token[] = [];
  const references: LexedReference[] = [];
  const push = (kind: TokenKind, start: number, end: number): void => {
    if (end <= start) return;
    const last = tokens[tokens.length - 1];
    // Adjacent text pieces are one token, as adjacent text parts are one AST node.
    if (kind === "text" && last?.kind === "text" && last.span.end === start) {
      tokens[tokens.length - 1] = { kind, span: { start: last.span.start, end } };
      return;
    }
    tokens.push({ kind, span: { start, end } });
  };

  /** A JSON string from `at` (a quote): its end, also when it is unterminated or has bad escapes. */
  const lenientString = (at: number): number => {
    const end = match(JSON_STRING, text, at);
    if (end >= 0) return end;
    for (let i = at + 1; i < text.length; i++) {
      const char = text.charCodeAt(i);
      if (char === BACKSLASH) i++;
      else if (char === QUOTE) return i + 1;
    }
    return text.length;
  };

  const reference = (start: number, hasDollar: boolean, braced: boolean): number => {
    let at = start;
    if (hasDollar) {
      push("dollar", at, at + 1);
      at++;
    }
    const stepStart = at;
    while (isDigit(text.charCodeAt(at))) at++;
    push("step", stepStart, at);
    const step = { start: stepStart, end: at };
    const segments: LexedSegment[] = [];
    if (at > stepStart) at = syntax === "seed" ? seedKey(at, braced, segments) : pathSegments(at, segments);
    references.push({ start, dollar: hasDollar, step, segments, end: at });
    return at;
  };

  const seedKey = (at: number, braced: boolean, segments: LexedSegment[]): number => {
    if (text.charCodeAt(at) !== DOT) return at;
    push("separator", at, at + 1);
    let end = text.length;
    if (braced) {
      const close = text.indexOf("}", at + 1);
      if (close >= 0) end = close;
    }
    push("key", at + 1, end);
    segments.push({ kind: "key", dot: at, name: { start: at + 1, end } });
    return end;
  };

  const pathSegments = (start: number, segments: LexedSegment[]): number => {
    let at = start;
    for (;;) {
      const code = text.charCodeAt(at);
      if (code === DOT) {
        push("separator", at, at + 1);
        const end = match(NAME, text, at + 1);
        push("key", at + 1, end);
        segments.push({ kind: "key", dot: at, name: { start: at + 1, end } });
        at = end;
        continue;
      }
      if (code !== OPEN_BRACKET) return at;
      push("separator", at, at + 1);
      const inner = at + 1;
      let contentEnd = inner;
      let contentKind: "index" | "quoted" | "none" = "none";
      while (isDigit(text.charCodeAt(contentEnd))) contentEnd++;
      if (contentEnd > inner) {
        contentKind = "index";
        push("index", inner, contentEnd);
      } else if (text.charCodeAt(inner) === QUOTE) {
        contentKind = "quoted";
        contentEnd = lenientString(inner);
        push("quoted-key", inner, contentEnd);
      }
      const closed = text.charCodeAt(contentEnd) === CLOSE_BRACKET;
      segments.push({
        kind: "bracket",
        open: at,
        content: { start: inner, end: contentEnd },
        contentKind,
        close: closed ? contentEnd : undefined,
      });
      if (!closed) return contentEnd;
      if (contentKind === "none") {
        // `[]`: nothing between the brackets is an error, but completion still replaces the `]`.
        push("invalid", contentEnd, contentEnd + 1);
        return contentEnd + 1;
      }
      push("separator", contentEnd, contentEnd + 1);
      at = contentEnd + 1;
    }
  };

  const expression = (start: number, hasDollar: boolean, braced: boolean): number => {
    let at = reference(start, hasDollar, braced);
    if (syntax === "seed") return at;
    for (;;) {
      const afterOp = match(DEFAULT_OP, text, at);
      if (afterOp < 0) return at;
      push("operator", at, afterOp);
      at = afterOp;
      if (text.charCodeAt(at) === DOLLAR) {
        at = reference(at, true, braced);
        continue;
      }
      let end = match(JSON_STRING, text, at);
      if (end < 0 && text.charCodeAt(at) === QUOTE) end = lenientString(at);
      if (end < 0) end = match(JSON_NUMBER, text, at);
      if (end < 0) for (const [word] of LITERAL_WORDS) if (text.startsWith(word, at)) end = at + word.length;
      if (end < 0) return at;
      push("literal", at, end);
      return end;
    }
  };

  if (mode === "placeholder") {
    const end = text.charCodeAt(0) === DOLLAR ? expression(0, true, false) : 0;
    push("invalid", end, text.length);
    return { tokens, references };
  }

  let at = 0;
  if (text.startsWith("$$")) {
    push("escape", 0, 2);
    at = 2;
  }
  while (at < text.length) {
    if (text.startsWith("$${", at)) {
      push("escape", at, at + 3);
      at += 3;
    } else if (text.startsWith("${", at)) {
      push("brace", at, at + 2);
      const end = expression(at + 2, false, true);
      if (text.charCodeAt(end) === CLOSE_BRACE) {
        push("brace", end, end + 1);
        at = end + 1;
      } else {
        const close = text.indexOf("}", end);
        push("invalid", end, close < 0 ? text.length : close);
        if (close < 0) break;
        push("brace", close, close + 1);
        at = close + 1;
      }
    } else {
      const next = text.indexOf("$", at + 1);
      const end = next < 0 ? text.length : next;
      push("text", at, end);
      at = end;
    }
  }
  return { tokens, references };
}
