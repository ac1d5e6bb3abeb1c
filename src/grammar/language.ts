/**
 * The reference language as a Parsimmon grammar: the single definition of what a placeholder and a
 * template are. This is the only file that imports Parsimmon (it is unmaintained, so it stays contained).
 *
 * EBNF (seed syntax is the default; path syntax and templates are opt-in):
 *
 *   seed-placeholder  = "$" step [ "." seed-key ] ;          (* the whole string *)
 *   seed-key          = any-char , { any-char } ;           (* the whole rest of the string *)
 *   step              = digit , { digit } ;                  (* ASCII 0-9; "$01" is step 1 *)
 *
 *   path-placeholder  = expression ;                         (* the whole string *)
 *   expression        = reference , { default-op , reference } , [ default-op , literal ] ;
 *   reference         = "$" step , { segment } ;
 *   segment           = "." name | "[" index "]" | "[" json-string "]" ;
 *   name              = name-char , { name-char } ;          (* not . [ ] { } $ ? or whitespace *)
 *   index             = digit , { digit } ;
 *   default-op        = { " " } , "??" , { " " } ;
 *   literal           = json-string | json-number | "true" | "false" | "null" ;
 *
 *   template          = [ "$$" ] , { escape | interpolation | "$" | text } ;   (* option templates *)
 *   escape            = "$${" ;                              (* the literal text "${" *)
 *   interpolation     = "${" , body , "}" ;                  (* body: a reference without its "$" *)
 *   text              = text-char , { text-char } ;          (* anything but "$" *)
 *
 * In a template the leading "$$" stands for one literal "$"; a "$" not followed by "{" is literal text.
 * Inside "${…}" a seed key is a run of characters other than "}".
 */
import P from "parsimmon";
import { RefError } from "../shared/errors.js";
import { LineIndex } from "../shared/positions.js";
import type {
  DefaultNode,
  Expression,
  IndexSegment,
  InterpolationPart,
  KeySegment,
  LiteralNode,
  QuotedKeySegment,
  ReferenceNode,
  Segment,
  StepNode,
  TemplateNode,
  TextPart,
} from "./ast.js";
import {
  DEFAULT_OP_SOURCE,
  DIGITS_SOURCE,
  JSON_NUMBER_SOURCE,
  JSON_STRING_SOURCE,
  LITERAL_WORDS,
  PATH_NAME_CHAR_SOURCE,
} from "./tokens.js";

/**
 * What a rule's `parse` returns: the value, or where the furthest failure is (1-based line and column,
 * counted as Parsimmon counts them) and what was expected there.
 */
export type RefRuleResult<T> =
  | { readonly status: true; readonly value: T }
  | {
      readonly status: false;
      readonly index: { readonly offset: number; readonly line: number; readonly column: number };
      readonly expected: readonly string[];
    };

/**
 * One rule of the language. At run time a rule is a Parsimmon parser (its combinators work from
 * JavaScript), but its published type is plan-refs's own, so the library's declarations never name
 * Parsimmon's types and a consumer needs no `@types/parsimmon`.
 *
 * @example
 * seedLanguage.placeholder.parse("$1.city") // { status: true, value: { type: "reference", … } }
 * seedLanguage.placeholder.parse("$1.")     // { status: false, index: { offset: 3, line: 1, column: 4 }, expected: ["a key"] }
 */
export interface RefRule<T> {
  /** Parse the whole of `text` with this rule; safe on any string (throws a `RefError` on a non-string). */
  parse(text: string): RefRuleResult<T>;
}

/** The rules of one flavour of the language, each producing plan-refs AST nodes. */
export interface RefLanguage {
  /** A whole string that is one placeholder: `$1.city` (seed) or `$1.a[0] ?? "x"` (path). */
  readonly placeholder: RefRule<Expression>;
  /** A whole string with `${…}` interpolations and escapes. */
  readonly template: RefRule<TemplateNode>;
  /** A reference with its defaults, at the current position, without end of input. */
  readonly expression: RefRule<Expression>;
  /** `$` step path. */
  readonly reference: RefRule<ReferenceNode>;
  /** Digits of a step number. */
  readonly step: RefRule<StepNode>;
  /** One path segment (path syntax), or the seed key. */
  readonly segment: RefRule<Segment>;
  /** A JSON literal (path syntax defaults). */
  readonly literal: RefRule<LiteralNode>;
}

/** The same rules as Parsimmon parsers: this module's own view of them (never exported). */
interface ParsimmonLanguage {
  readonly placeholder: P.Parser<Expression>;
  readonly template: P.Parser<TemplateNode>;
  readonly expression: P.Parser<Expression>;
  readonly reference: P.Parser<ReferenceNode>;
  readonly step: P.Parser<StepNode>;
  readonly segment: P.Parser<Segment>;
  readonly literal: P.Parser<LiteralNode>;
}

/** The current offset, without Parsimmon's line/column bookkeeping (which rescans the input). */
const offset: P.Parser<number> = P((_input, i) => P.makeSuccess(i, i));

const JSON_STRING = new RegExp(JSON_STRING_SOURCE);
const JSON_NUMBER = new RegExp(JSON_NUMBER_SOURCE);
const PATH_NAME = new RegExp(`${PATH_NAME_CHAR_SOURCE}+`);
const DEFAULT_OP = new RegExp(DEFAULT_OP_SOURCE);
const DIGITS = new RegExp(DIGITS_SOURCE);

function makeLanguage(syntax: "seed" | "path") {
  return P.createLanguage<{
    placeholder: Expression;
    template: TemplateNode;
    expression: Expression;
    reference: ReferenceNode;
    step: StepNode;
    segment: Segment;
    literal: LiteralNode;
    braced: InterpolationPart;
    bracedBody: Expression;
    seedKey: KeySegment;
    seedBracedKey: KeySegment;
    dotKey: KeySegment;
    bracket: IndexSegment | QuotedKeySegment;
    defaultOp: string;
    templatePart: TextPart | InterpolationPart;
  }>({
    // A placeholder is the whole string: nothing may follow it.
    placeholder: (r) => r.expression.skip(P.eof),

    // A reference, then (path syntax) any `?? reference`, then optionally a final `?? literal`.
    expression: (r) => (syntax === "seed" ? r.reference : chain(r.reference, r)),

    // `$` step path: the path is the seed key, or any number of path segments.
    reference: (r) =>
      P.seqMap(offset, P.string("$"), r.step, pathOf(r, false), offset, (start, _dollar, step, path, end) =>
        referenceNode(syntax, start, end, step, path),
      ),

    // One or more ASCII digits; leading zeros are allowed and dropped from the canonical id.
    step: () =>
      P.seqMap(offset, P.regexp(DIGITS).desc("a step number (digits 0-9)"), offset, (start, digits, end): StepNode => ({
        type: "step",
        span: { start, end },
        digits,
        id: digits.replace(/^0+(?=[0-9])/, ""),
      })),

    // Seed syntax: `.` and the whole rest of the string, dots and all, is one key.
    seedKey: () =>
      P.seqMap(offset, P.string("."), P.regexp(/[\s\S]+/).desc("a key"), offset, (start, _dot, name, end) => keyNode(start, end, name)),

    // Seed syntax inside `${…}`: the key runs up to the closing brace.
    seedBracedKey: () =>
      P.seqMap(offset, P.string("."), P.regexp(/[^}]+/).desc("a key"), offset, (start, _dot, name, end) => keyNode(start, end, name)),

    // Path syntax: `.name`, `[index]` or `["quoted key"]`.
    segment: (r) => P.alt<Segment>(r.dotKey, r.bracket),

    // `.name`: a name is a run of characters other than . [ ] { } $ ? and whitespace.
    dotKey: () =>
      P.seqMap(offset, P.string("."), P.regexp(PATH_NAME).desc("a key"), offset, (start, _dot, name, end) => keyNode(start, end, name)),

    // `[0]` indexes an array; `["a.b"]` is a key written as a JSON string.
    bracket: () =>
      P.seqMap(
        offset,
        P.string("["),
        P.alt<{ index: number } | { name: string }>(
          P.regexp(DIGITS)
            .desc("an index")
            .map((digits) => ({ index: Number(digits) })),
          P.regexp(JSON_STRING)
            .desc("a quoted key")
            .map((text) => ({ name: JSON.parse(text) as string })),
        ),
        P.string("]"),
        offset,
        (start, _open, inner, _close, end): IndexSegment | QuotedKeySegment =>
          "index" in inner
            ? { type: "index", span: { start, end }, index: inner.index }
            : { type: "quoted-key", span: { start, end }, name: inner.name },
      ),

    // `??` with optional spaces around it (and nowhere else).
    defaultOp: () => P.regexp(DEFAULT_OP).desc("??"),

    // A JSON literal: string, number, true, false or null.
    literal: () =>
      P.seqMap(
        offset,
        P.alt<string | number | boolean | null>(
          P.regexp(JSON_STRING).map((text) => JSON.parse(text) as string),
          P.regexp(JSON_NUMBER).map(Number),
          ...LITERAL_WORDS.map(([word, value]) => P.string(word).result(value)),
        ).desc("a JSON literal"),
        offset,
        (start, value, end): LiteralNode => ({ type: "literal", span: { start, end }, value }),
      ),

    // A template: an optional leading `$$` (one literal `$`), then text, escapes and interpolations.
    template: (r) =>
      P.seqMap(
        offset,
        P.seqMap(offset, P.string("$$"), offset, (start, _, end): TextPart => ({ type: "text", span: { start, end }, value: "$" })).atMost(
          1,
        ),
        r.templatePart.many(),
        offset,
        P.eof,
        (start, lead, parts, end): TemplateNode => ({ type: "template", span: { start, end }, parts: mergeText([...lead, ...parts]) }),
      ),

    // One piece of a template. Order matters: the escape `$${` before `${`, and a lone `$` last.
    templatePart: (r) =>
      P.alt<TextPart | InterpolationPart>(
        textPart(P.string("$${"), "${"),
        r.braced,
        textPart(P.regexp(/\$(?!\{)/).desc("$"), "$"),
        textPart(P.regexp(/[^$]+/).desc("text"), null),
      ),

    // `${…}`: once `${` is read the interpolation must be complete (an unclosed one is an error).
    braced: (r) =>
      P.seqMap(
        offset,
        P.string("${"),
        r.bracedBody,
        P.string("}").desc("}"),
        offset,
        (start, _open, expression, _close, end): InterpolationPart => ({
          type: "interpolation",
          span: { start, end },
          form: "braced",
          expression,
        }),
      ),

    // Inside braces the first reference has no `$`; a fallback reference has one (`${1.a ?? $2.a}`).
    bracedBody: (r) => {
      const bare = P.seqMap(offset, r.step, pathOf(r, true), offset, (start, step, path, end) =>
        referenceNode(syntax, start, end, step, path),
      );
      return syntax === "seed" ? bare : chain(bare, r);
    },
  });

  function pathOf(
    r: { seedKey: P.Parser<KeySegment>; seedBracedKey: P.Parser<KeySegment>; segment: P.Parser<Segment> },
    braced: boolean,
  ): P.Parser<Segment[]> {
    if (syntax === "path") return r.segment.many();
    return (braced ? r.seedBracedKey : r.seedKey).atMost(1);
  }
}

/** `first { ?? reference } [ ?? literal ]`, folded right: `a ?? b ?? "x"` is `a ?? (b ?? "x")`. */
function chain(
  first: P.Parser<ReferenceNode>,
  r: { reference: P.Parser<ReferenceNode>; literal: P.Parser<LiteralNode>; defaultOp: P.Parser<string> },
): P.Parser<Expression> {
  return P.seqMap(first, r.defaultOp.then(r.reference).many(), r.defaultOp.then(r.literal).atMost(1), (head, rest, last): Expression => {
    const items: (ReferenceNode | LiteralNode)[] = [head, ...rest, ...last];
    let node: ReferenceNode | LiteralNode | DefaultNode = items[items.length - 1]!;
    for (let i = items.length - 2; i >= 0; i--) {
      const reference = items[i] as ReferenceNode;
      node = { type: "default", span: { start: reference.span.start, end: node.span.end }, reference, fallback: node };
    }
    return node as Expression;
  });
}

function referenceNode(syntax: "seed" | "path", start: number, end: number, step: StepNode, path: Segment[]): ReferenceNode {
  return { type: "reference", span: { start, end }, syntax, step, path };
}

function keyNode(start: number, end: number, name: string): KeySegment {
  return { type: "key", span: { start, end }, name };
}

function textPart(parser: P.Parser<string>, value: string | null): P.Parser<TextPart> {
  return P.seqMap(offset, parser, offset, (start, text, end): TextPart => ({ type: "text", span: { start, end }, value: value ?? text }));
}

/** Adjacent text pieces become one text part. */
function mergeText(parts: (TextPart | InterpolationPart)[]): (TextPart | InterpolationPart)[] {
  const merged: (TextPart | InterpolationPart)[] = [];
  for (const part of parts) {
    const last = merged[merged.length - 1];
    if (part.type === "text" && last?.type === "text") {
      merged[merged.length - 1] = { type: "text", span: { start: last.span.start, end: part.span.end }, value: last.value + part.value };
    } else {
      merged.push(part);
    }
  }
  return merged;
}

/**
 * Parsimmon's own `parse` is never used. On a failure it computes the line and column in a cache
 * object keyed by the input text (`lineColumnIndex[input]` on a plain `{}`), so failing to parse the
 * text "__proto__" wrote to `Object.prototype` (and "constructor" to `Object`). A rule's `_` is the
 * same parse without that bookkeeping.
 */
interface Reply<T> {
  readonly status: boolean;
  readonly value: T;
  readonly furthest: number;
  readonly expected: readonly string[];
}

function reply<T>(rule: P.Parser<T> | RefRule<T>, text: string): Reply<T> {
  return (rule as unknown as { _: (input: string, index: number) => Reply<T> })._(text, 0);
}

/** Line and column (1-based) of `offset`, counted as Parsimmon does (LF, CRLF or a lone CR end a line, as in `LineIndex`). */
function lineColumn(text: string, offset: number): { offset: number; line: number; column: number } {
  const { line, column } = new LineIndex(text).position(offset);
  return { offset, line, column };
}

/** The rules of a language, each with a `parse` that is safe on any text (see `reply`). */
function withSafeParse(language: ParsimmonLanguage): RefLanguage {
  for (const rule of Object.values(language) as P.Parser<unknown>[]) {
    const whole = rule.skip(P.eof);
    Object.defineProperty(rule, "parse", {
      value: (text: string): RefRuleResult<unknown> => {
        if (typeof text !== "string") throw new RefError("syntax", "a reference must be a string");
        const result = reply(whole, text);
        return result.status
          ? { status: true, value: result.value }
          : { status: false, index: lineColumn(text, result.furthest), expected: [...result.expected] };
      },
    });
  }
  return Object.freeze(language);
}

/** The seed language (the default): `$1`, `$1.key` with the key the whole rest of the string. */
export const seedLanguage: RefLanguage = withSafeParse(makeLanguage("seed"));

/** The path language (option `syntax: "path"`): `$1.a.b`, `$1.items[0]`, `$1["a.b"]`, `?? default`. */
export const pathLanguage: RefLanguage = withSafeParse(makeLanguage("path"));

/** The outcome of running a rule on a whole string, without Parsimmon's types. */
export type RuleResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly offset: number; readonly expected: readonly string[] };

/**
 * Run a rule of the language on `text` (the `placeholder` and `template` rules end with end of input)
 * and report success or the furthest failure. `rule` is one of this module's rules (a Parsimmon parser
 * underneath, whatever its published type says).
 *
 * @example
 * runRule(seedLanguage.placeholder, "$1.") // { ok: false, offset: 3, expected: ["a key"] }
 */
export function runRule<T>(rule: RefRule<T>, text: string): RuleResult<T> {
  const result = reply(rule, text);
  if (result.status) return { ok: true, value: result.value };
  return { ok: false, offset: result.furthest, expected: [...new Set(result.expected)].sort() };
}
