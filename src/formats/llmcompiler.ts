/**
 * LLMCompiler task lists, as its planner writes them:
 *
 *   Thought: find the weather first
 *   1. search("weather in Paris")
 *   2. fetch($1, retries=2)  # a comment
 *   3. join()<END_OF_PLAN>
 *
 * Numbered lines are calls with Python-literal arguments (strings in single or double quotes, numbers,
 * True/False/None, lists, tuples, dicts) where `$1` or `${1}` stands for step 1's result, bare or
 * inside a string. `join()` and `<END_OF_PLAN>` end the plan; `Thought:` lines become the next step's
 * description; any other text is dropped.
 */
import { quoted, safeText } from "../shared/text.js";
import {
  Conversion,
  MAX_ARGUMENT_DEPTH,
  nameArguments,
  SourceProblem,
  stepNumber,
  type ConvertOptions,
  type ConvertResult,
  type DraftStep,
  type RefPart,
  type SourceLine,
  type Value,
} from "./convert.js";
import { convertLines, streamSteps, type StepStream } from "./convert-text.js";
import { characterByName, LONGEST_NAME, nameNear } from "./unicode-names/names.js";

/** The marker LLMCompiler's planner writes after the last step. */
export const END_OF_PLAN = "<END_OF_PLAN>";

const JOIN = /^\s*(?:\d+\s*\.\s*)?join\s*\(/;
const NUMBERED = /^(\s*)(\d+)\s*\.\s*/;
const CALL = /^([A-Za-z_][A-Za-z0-9_.-]*)\s*\(/;
const THOUGHT = /^\s*Thought\s*:(.*)$/i;
const REFERENCE = /\$\{(\d+)\}|\$(\d+)/y;
const REFERENCES = new RegExp(REFERENCE.source, "g");
/** Python's number literals: hexadecimal, octal and binary integers, decimals, floats, `_` between digits. */
const DIGITS = String.raw`\d(?:_?\d)*`;
const NUMBER = new RegExp(
  String.raw`([-+]?)(?:0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:[eE][-+]?${DIGITS})?)(?![\w.])`,
  "y",
);
/** A decimal integer with a leading zero (`010`), which Python refuses (only `0`, `00`… may start with 0). */
const LEADING_ZERO = /^[-+]?0[0_]*[1-9]/;
/** A string's prefix: raw (`r"\d"`: backslashes kept) or Unicode (`u"…"`, the same as none). */
const STRING_PREFIX = /[rRuU](?=["'])/y;
const KEYWORD = /([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const WORDS: Readonly<Record<string, null | boolean>> = Object.freeze({
  True: true,
  False: false,
  None: null,
  true: true,
  false: false,
  null: null,
});

/**
 * Convert an LLMCompiler task list into a plan. Positional arguments are named after the tool's input
 * properties in order (`options.catalog`), keyword arguments by name; `$1` alone is step 1's whole
 * result, `$1` inside a longer string an interpolation (the plan then sets `templates`), a reference
 * inside a list or dict sets `deep`. Never throws: every problem is a diagnostic with its line and
 * column in `text`.
 *
 * @example
 * const { plan } = fromLLMCompiler('1. search("Paris")\n2. summarise($1)\n3. join()', { catalog });
 * plan.steps[1] // { id: 2, tool: "summarise", args: { text: "$1" } }
 */
export function fromLLMCompiler(text: string, options?: ConvertOptions): ConvertResult {
  return convertLines(text, options, readLine);
}

/**
 * Convert an LLMCompiler task list while the model writes it: text chunks in, steps out, each step as
 * soon as its line is complete, so `runPlan(stream, tools, { deep: true, templates: true })` starts step 1
 * while the model still writes step 3. Strings are written in the template language (run with
 * `templates: true`), references in lists and dicts need `deep: true`. At `join()` or `<END_OF_PLAN>`
 * the stream ends and the chunk source is closed; closing the stream (`runPlan` stopped) closes the
 * chunk source at once. The problems are in `stream.diagnostics`; the stream never throws for its
 * text (an error of the chunk source itself passes through).
 *
 * @example
 * const report = await runPlan(fromLLMCompilerStream(modelChunks, { catalog }), tools, { deep: true, templates: true });
 */
export function fromLLMCompilerStream(chunks: AsyncIterable<unknown> | Iterable<unknown>, options?: ConvertOptions): StepStream {
  return streamSteps(chunks, new Conversion(options), readLine);
}

/** Read one line: a step (returned), a thought (kept for the next step), the end of the plan, or other text (dropped). */
function readLine(line: SourceLine, conversion: Conversion, index: number): DraftStep | undefined {
  if (conversion.ended) return undefined;
  const text = line.text;
  if (JOIN.test(text) || (!NUMBERED.test(text) && text.includes(END_OF_PLAN))) {
    conversion.ended = true;
    return undefined;
  }
  const numbered = NUMBERED.exec(text);
  if (numbered === null) {
    const thought = THOUGHT.exec(text);
    if (thought !== null) conversion.thought(thought[1] ?? "");
    return undefined;
  }
  const idStart = numbered[1]!.length;
  const idDigits = numbered[2]!;
  const callStart = numbered[0].length;
  try {
    const id = stepNumber(idDigits);
    if (id === undefined)
      throw new SourceProblem(
        "invalid-plan",
        `step number ${safeText(idDigits, 30)} is too large`,
        line.offset + idStart,
        line.offset + idStart + idDigits.length,
      );
    const call = CALL.exec(text.slice(callStart));
    if (call === null)
      throw new SourceProblem(
        "invalid-plan",
        `expected a call, tool(arguments), after "${idDigits}."`,
        line.offset + callStart,
        line.offset + Math.max(callStart + 1, text.trimEnd().length),
      );
    const tool = call[1]!;
    const argsStart = callStart + call[0].length;
    const parser = new ArgumentParser(text, line.offset, argsStart);
    let read: ReturnType<ArgumentParser["call"]>;
    let end: number;
    try {
      read = parser.call();
      end = parser.pos;
    } catch (error) {
      const raw = rawArguments(text, line.offset, argsStart, error);
      if (raw === undefined) throw error;
      ({ read, end } = raw);
      const span = read.positional[0]!;
      const shown = quoted(text.slice(argsStart, end - 1), 40);
      // A warning: the step is kept, as LLMCompiler keeps it.
      conversion.problemOn(
        line,
        "invalid-plan",
        `the arguments ${shown} are not Python literals (${(error as SourceProblem).message}); as LLMCompiler does, the text is passed as it is, as the first argument`,
        { pointer: `/steps/${index}`, start: span.start, end: span.end, severity: "warning" },
      );
    }
    const { positional, keywords } = read;
    let rest = text.slice(end).trimStart();
    if (rest.startsWith(END_OF_PLAN)) {
      conversion.ended = true;
      rest = rest.slice(END_OF_PLAN.length).trimStart();
    }
    if (rest !== "" && !rest.startsWith("#")) {
      const start = text.length - rest.length;
      throw new SourceProblem(
        "invalid-plan",
        `unexpected text after the call: ${quoted(rest, 30)} (a comment starts with #)`,
        line.offset + start,
        line.offset + text.trimEnd().length,
      );
    }
    if (!conversion.roomForStep(line)) return undefined;
    const problems: SourceProblem[] = [];
    const args = nameArguments(conversion, tool, positional, keywords, (message, start, end) =>
      problems.push(new SourceProblem("invalid-plan", message, start, end)),
    );
    for (const problem of problems)
      conversion.problemOn(line, problem.code, problem.message, { pointer: `/steps/${index}`, start: problem.start, end: problem.end });
    return conversion.acceptCall(line, { id, tool, args }, idStart, idDigits.length, callStart);
  } catch (error) {
    return conversion.leaveOut(line, error);
  }
}

/**
 * LLMCompiler's reading of arguments that are not Python literals (`search(Rosetta)`): its parser
 * takes the text up to the line's last ")" and, when `ast.literal_eval` refuses it, passes the text
 * itself as the one argument (its references still replaced). Undefined when LLMCompiler would not
 * read the line either (no ")" that ends the call) or the problem is a limit.
 */
function rawArguments(
  text: string,
  base: number,
  argsStart: number,
  error: unknown,
): { read: ReturnType<ArgumentParser["call"]>; end: number } | undefined {
  if (!(error instanceof SourceProblem) || error.code === "limit") return undefined;
  const close = text.lastIndexOf(")");
  if (close < argsStart) return undefined;
  const after = text.slice(close + 1).trimStart();
  if (after !== "" && !after.startsWith("#") && !after.startsWith(END_OF_PLAN)) return undefined;
  const raw = text.slice(argsStart, close);
  const parts: (string | RefPart)[] = [];
  let last = 0;
  for (const match of raw.matchAll(REFERENCES)) {
    const step = stepNumber(match[1] ?? match[2]!);
    if (step === undefined) return undefined;
    if (match.index > last) parts.push(raw.slice(last, match.index));
    const start = base + argsStart + match.index;
    parts.push({ step, start, end: start + match[0].length });
    last = match.index + match[0].length;
  }
  if (last < raw.length || parts.length === 0) parts.push(raw.slice(last));
  const value: Value = { kind: "string", parts };
  return { read: { positional: [{ value, start: base + argsStart, end: base + close }], keywords: [] }, end: close + 1 };
}

/** Python's one-character escapes (`\0` and the other octal digits are read as octal escapes). */
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = Object.freeze({
  "\n": "",
  n: "\n",
  t: "\t",
  r: "\r",
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\u0007",
  b: "\b",
  f: "\f",
  v: "\v",
});
const OCTAL_ESCAPE = /[0-7]{1,3}/y;

/** A call's arguments in Python literal syntax, with `$1` / `${1}` references. Throws `SourceProblem`. */
class ArgumentParser {
  pos: number;

  constructor(
    readonly text: string,
    readonly base: number,
    start: number,
  ) {
    this.pos = start;
  }

  fail(message: string, start = this.pos, end = start + 1): never {
    const limit = this.text.length;
    throw new SourceProblem("invalid-plan", message, this.base + Math.min(start, limit), this.base + Math.min(Math.max(end, start), limit));
  }

  space(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++;
  }

  /** After `(`: the arguments up to the matching `)`. */
  call(): {
    positional: { value: Value; start: number; end: number }[];
    keywords: { name: string; value: Value; start: number; end: number }[];
  } {
    const positional: { value: Value; start: number; end: number }[] = [];
    const keywords: { name: string; value: Value; start: number; end: number }[] = [];
    for (;;) {
      this.space();
      if (this.text[this.pos] === ")") {
        this.pos++;
        return { positional, keywords };
      }
      const start = this.pos;
      KEYWORD.lastIndex = this.pos;
      const keyword = KEYWORD.exec(this.text);
      if (keyword !== null) {
        this.pos = KEYWORD.lastIndex;
        const value = this.value(0);
        keywords.push({ name: keyword[1]!, value, start: this.base + start, end: this.base + this.pos });
      } else {
        const value = this.value(0);
        if (keywords.length > 0) this.fail("a positional argument after a keyword argument", start, this.pos);
        positional.push({ value, start: this.base + start, end: this.base + this.pos });
      }
      this.space();
      const next = this.text[this.pos];
      if (next === ",") this.pos++;
      else if (next !== ")")
        this.fail(next === undefined ? `the call is not closed: expected ")"` : `expected "," or ")", not ${quoted(next, 4)}`);
    }
  }

  value(depth: number): Value {
    if (depth > MAX_ARGUMENT_DEPTH)
      throw new SourceProblem(
        "limit",
        `an argument is nested deeper than ${MAX_ARGUMENT_DEPTH}`,
        this.base + this.pos,
        this.base + this.pos + 1,
      );
    this.space();
    const start = this.pos;
    const char = this.text[this.pos];
    if (char === undefined) return this.fail(`expected a value, found the end of the line`);
    if (char === '"' || char === "'") return this.string(char, false);
    STRING_PREFIX.lastIndex = this.pos;
    if (STRING_PREFIX.test(this.text)) {
      const raw = char === "r" || char === "R";
      this.pos++;
      return this.string(this.text[this.pos]!, raw);
    }
    if (char === "[" || char === "(") return this.list(char === "[" ? "]" : ")", depth);
    if (char === "{") return this.dict(depth);
    if (char === "$") {
      REFERENCE.lastIndex = this.pos;
      const match = REFERENCE.exec(this.text);
      if (match === null) return this.fail(`expected a reference such as $1 or \${1}`);
      this.pos = REFERENCE.lastIndex;
      return { kind: "ref", ref: this.reference(match, start) };
    }
    NUMBER.lastIndex = this.pos;
    const number = NUMBER.exec(this.text);
    if (number !== null) {
      this.pos = NUMBER.lastIndex;
      const written = number[0];
      if (LEADING_ZERO.test(written) && !/[.eE]/.test(written) && !/^[-+]?0[xXoObB]/.test(written))
        this.fail(
          `leading zeros in a decimal integer are not allowed (${safeText(written, 30)}; an octal number is written 0o…)`,
          start,
          this.pos,
        );
      const sign = number[1] === "-" ? -1 : 1;
      // Number() reads 0x…, 0o…, 0b… and decimals, but neither a sign before a prefix nor underscores.
      const value = sign * Number(written.slice(number[1]!.length).replaceAll("_", ""));
      if (!Number.isFinite(value)) this.fail(`the number ${safeText(written, 30)} is too large`, start, this.pos);
      return { kind: "literal", value };
    }
    NAME.lastIndex = this.pos;
    const name = NAME.exec(this.text);
    if (name !== null) {
      this.pos = NAME.lastIndex;
      if (Object.hasOwn(WORDS, name[0])) return { kind: "literal", value: WORDS[name[0]]! };
      return this.fail(`unknown name ${quoted(name[0], 30)}: a string needs quotes`, start, this.pos);
    }
    return this.fail(`unexpected ${quoted(char, 4)}: expected a value`);
  }

  reference(match: RegExpExecArray, start: number): RefPart {
    const digits = match[1] ?? match[2]!;
    const step = stepNumber(digits);
    if (step === undefined) this.fail(`step number ${safeText(digits, 30)} is too large`, start, start + match[0].length);
    return { step, start: this.base + start, end: this.base + start + match[0].length };
  }

  /** A quoted string (escapes as in Python; none in a raw string), its `$1` / `${1}` references kept apart. */
  string(quote: string, raw: boolean): Value {
    const start = this.pos;
    const triple = this.text.startsWith(quote.repeat(3), this.pos);
    const close = triple ? quote.repeat(3) : quote;
    this.pos += close.length;
    const parts: (string | RefPart)[] = [];
    let text = "";
    for (;;) {
      if (this.pos >= this.text.length) return this.fail("the string is not closed", start, this.text.length);
      if (this.text.startsWith(close, this.pos)) {
        this.pos += close.length;
        break;
      }
      const char = this.text[this.pos]!;
      if (char === "\\") {
        // A raw string keeps the backslash, and the character after it (a quote included) is part of the string.
        if (raw) {
          text += this.text.slice(this.pos, this.pos + 2);
          this.pos += 2;
        } else text += this.escape(close);
        continue;
      }
      if (char === "$") {
        REFERENCE.lastIndex = this.pos;
        const match = REFERENCE.exec(this.text);
        if (match !== null) {
          if (text !== "") parts.push(text);
          text = "";
          parts.push(this.reference(match, this.pos));
          this.pos = REFERENCE.lastIndex;
          continue;
        }
      }
      text += char;
      this.pos++;
    }
    if (text !== "" || parts.length === 0) parts.push(text);
    return { kind: "string", parts };
  }

  /** One escape, at the backslash, inside a string that `close` ends. */
  escape(close: string): string {
    const next = this.text[this.pos + 1];
    if (next !== undefined && Object.hasOwn(SIMPLE_ESCAPES, next)) {
      this.pos += 2;
      return SIMPLE_ESCAPES[next]!;
    }
    // \7, \101, \377: one to three octal digits.
    OCTAL_ESCAPE.lastIndex = this.pos + 1;
    const octal = OCTAL_ESCAPE.exec(this.text);
    if (octal !== null) {
      this.pos = OCTAL_ESCAPE.lastIndex;
      return String.fromCodePoint(Number.parseInt(octal[0], 8));
    }
    if (next === "N") return this.namedCharacter(close);
    const hex = next === "x" ? 2 : next === "u" ? 4 : next === "U" ? 8 : 0;
    if (hex > 0) {
      const digits = this.text.slice(this.pos + 2, this.pos + 2 + hex);
      const code = /^[0-9a-fA-F]+$/.test(digits) && digits.length === hex ? Number.parseInt(digits, 16) : Number.NaN;
      if (!(code <= 0x10ffff)) this.fail(`a bad \\${next} escape`, this.pos, this.pos + 2 + hex);
      this.pos += 2 + hex;
      return String.fromCodePoint(code);
    }
    // Python keeps an unknown escape as it is: the backslash and the character.
    this.pos += 1;
    return "\\";
  }

  /**
   * `\N{NAME}`: the character of that Unicode name, as Python 3.11 reads it (`characterByName`).
   * The name is the text up to the first "}"; the string's closing quote before it leaves the escape
   * malformed (a backslash keeps the character after it in the string, as Python's tokenizer reads
   * it). No name is longer than `LONGEST_NAME`, so no more of the line is read to find the "}".
   */
  namedCharacter(close: string): string {
    const start = this.pos;
    if (this.text[start + 2] !== "{")
      this.fail(`malformed \\N character escape: a name in braces must follow \\N, as in \\N{BULLET}`, start, start + 2);
    const nameStart = start + 3;
    let end = nameStart;
    for (;;) {
      if (end >= this.text.length || this.text.startsWith(close, end))
        this.fail(`malformed \\N character escape: no "}" ends the name before the string ends`, start, Math.min(end, this.text.length));
      if (end - nameStart > LONGEST_NAME)
        this.fail(
          `unknown Unicode character name ${quoted(this.text.slice(nameStart, end), 30)}: longer than any (${LONGEST_NAME} characters at most)`,
          start,
          end,
        );
      const char = this.text[end];
      if (char === "}") break;
      end += char === "\\" && this.text[end + 1] !== "}" ? 2 : 1;
    }
    const name = this.text.slice(nameStart, end);
    if (name === "") this.fail(`malformed \\N character escape: the name in \\N{} is empty`, start, end + 1);
    const code = characterByName(name);
    if (code === undefined) {
      const near = nameNear(name);
      this.fail(
        `unknown Unicode character name ${quoted(name, LONGEST_NAME)}${near === undefined ? "" : `; did you mean ${quoted(near, LONGEST_NAME)}?`}`,
        start,
        end + 1,
      );
    }
    this.pos = end + 1;
    return String.fromCodePoint(code);
  }

  list(close: string, depth: number): Value {
    const start = this.pos;
    this.pos++;
    const items: Value[] = [];
    for (;;) {
      this.space();
      if (this.text[this.pos] === close) {
        this.pos++;
        return { kind: "list", items };
      }
      items.push(this.value(depth + 1));
      this.space();
      const next = this.text[this.pos];
      if (next === ",") this.pos++;
      else if (next !== close)
        this.fail(
          next === undefined ? `the list is not closed: expected "${close}"` : `expected "," or "${close}"`,
          next === undefined ? start : this.pos,
        );
    }
  }

  dict(depth: number): Value {
    const start = this.pos;
    this.pos++;
    const entries: [string, Value][] = [];
    for (;;) {
      this.space();
      if (this.text[this.pos] === "}") {
        this.pos++;
        return { kind: "dict", entries };
      }
      const keyStart = this.pos;
      const key = this.value(depth + 1);
      let name: string;
      if (key.kind === "string" && key.parts.every((part) => typeof part === "string")) name = key.parts.join("");
      else if (key.kind === "literal" && typeof key.value === "number") name = String(key.value);
      else return this.fail("a dict key must be a string or a number", keyStart, this.pos);
      this.space();
      if (this.text[this.pos] !== ":") this.fail(`expected ":" after a dict key`);
      this.pos++;
      entries.push([name, this.value(depth + 1)]);
      this.space();
      const next = this.text[this.pos];
      if (next === ",") this.pos++;
      else if (next !== "}")
        this.fail(
          next === undefined ? `the dict is not closed: expected "}"` : `expected "," or "}"`,
          next === undefined ? start : this.pos,
        );
    }
  }
}
