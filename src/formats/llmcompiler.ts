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
import type { Diagnostic } from "../shared/diagnostic.js";
import { describeThrown } from "../shared/errors.js";
import { quoted, safeText } from "../shared/text.js";
import {
  Conversion,
  MAX_ARGUMENT_DEPTH,
  MAX_PLAN_LINE_LENGTH,
  MAX_PLAN_TEXT_LENGTH,
  nameArguments,
  needs,
  renderStep,
  reportLongLine,
  reportLongText,
  SourceProblem,
  sourceLines,
  stepNumber,
  type ConvertedStep,
  type ConvertOptions,
  type ConvertResult,
  type DraftStep,
  type RefPart,
  type SourceLine,
  type Value,
} from "./convert.js";

/** The marker LLMCompiler's planner writes after the last step. */
export const END_OF_PLAN = "<END_OF_PLAN>";

const JOIN = /^\s*(?:\d+\s*\.\s*)?join\s*\(/;
const NUMBERED = /^(\s*)(\d+)\s*\.\s*/;
const CALL = /^([A-Za-z_][A-Za-z0-9_.-]*)\s*\(/;
const THOUGHT = /^\s*Thought\s*:(.*)$/i;
const REFERENCE = /\$\{(\d+)\}|\$(\d+)/y;
const NUMBER = /[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/y;
const KEYWORD = /([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const WORDS: Readonly<Record<string, null | boolean>> = Object.freeze({ True: true, False: false, None: null, true: true, false: false, null: null });

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

/** Convert a whole text line by line with a format's `readLine`; never throws (shared by the formats). */
export function convertLines(
  text: string,
  options: ConvertOptions | undefined,
  readLine: (line: SourceLine, conversion: Conversion, index: number) => DraftStep | undefined,
): ConvertResult {
  const conversion = new Conversion(options);
  const drafts: { draft: DraftStep; line: SourceLine }[] = [];
  try {
    if (typeof text !== "string") {
      conversion.report("invalid-plan", `the plan text must be a string, not ${text === null ? "null" : typeof text}`, "", 0, 0, { line: 1, column: 1 });
    } else {
      for (const line of sourceLines(text, conversion)) {
        const draft = readLine(line, conversion, drafts.length);
        if (draft !== undefined) drafts.push({ draft, line });
      }
    }
    return finishPlan(drafts, conversion);
  } catch (error) {
    conversion.report("invalid-plan", `the text could not be converted: ${safeText(describeThrown(error), 120)}`, "", 0, 0, { line: 1, column: 1 });
    return { plan: { steps: [] }, diagnostics: conversion.diagnostics };
  }
}

/** Render the drafts with the options they need. */
export function finishPlan(drafts: readonly { draft: DraftStep; line: SourceLine }[], conversion: Conversion): ConvertResult {
  const { templates, deep } = needs(drafts.map(({ draft }) => draft));
  const steps = drafts.map(({ draft, line }, index) =>
    renderStep(draft, templates, (message, ref) => conversion.problemOn(line, "invalid-plan", message, `/steps/${index}`, ref.start, ref.end)),
  );
  const planOptions = { ...(templates ? { templates: true } : {}), ...(deep ? { deep: true } : {}) };
  // In source order (a stable sort: problems at one place keep the order they were found in).
  const diagnostics = [...conversion.diagnostics].sort((a, b) => (a.offset?.start ?? 0) - (b.offset?.start ?? 0));
  return { plan: { steps, ...(templates || deep ? { options: planOptions } : {}) }, diagnostics };
}

/** What `fromLLMCompilerStream` returns: the steps as they are read, and the problems found so far. */
export interface StepStream extends AsyncIterable<ConvertedStep> {
  /** Every problem found so far (filled while the stream is read). */
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Convert an LLMCompiler task list while the model writes it: text chunks in, steps out, each step as
 * soon as its line is complete, so `runPlan(stream, tools, { deep: true, templates: true })` starts step 1
 * while the model still writes step 3. Strings are written in the template language (run with
 * `templates: true`), references in lists and dicts need `deep: true`. At `join()` or `<END_OF_PLAN>`
 * the stream ends and the chunk source is closed. The problems are in `stream.diagnostics`; the stream
 * never throws for its text (an error of the chunk source itself passes through).
 *
 * @example
 * const report = await runPlan(fromLLMCompilerStream(modelChunks, { catalog }), tools, { deep: true, templates: true });
 */
export function fromLLMCompilerStream(chunks: AsyncIterable<unknown> | Iterable<unknown>, options?: ConvertOptions): StepStream {
  const conversion = new Conversion(options);
  const steps = streamSteps(chunks, conversion, readLine);
  return { diagnostics: conversion.diagnostics, [Symbol.asyncIterator]: () => steps };
}

/** Read lines from text chunks as they come and yield each line's step at once. Shared with ReWOO's stream form. */
export async function* streamSteps(
  chunks: AsyncIterable<unknown> | Iterable<unknown>,
  conversion: Conversion,
  read: (line: SourceLine, conversion: Conversion, index: number) => DraftStep | undefined,
): AsyncGenerator<ConvertedStep, void, undefined> {
  let buffer = "";
  let bufferStart = 0; // offset of buffer[0] in the whole text
  let searched = 0; // buffer[0..searched) has no line break
  let line = 1;
  let skipping = false; // inside a line over the length limit: dropped up to its end
  let total = 0;
  let index = 0;
  let chunkNumber = 0;
  const tooLong = (source: SourceLine): void => reportLongLine(conversion, source);
  const emit = (text: string, offset: number): ConvertedStep | undefined => {
    const body = text.endsWith("\r") ? text.slice(0, -1) : text;
    const source = { text: body, line, offset };
    if (body.length > MAX_PLAN_LINE_LENGTH) {
      tooLong(source);
      return undefined;
    }
    let draft: DraftStep | undefined;
    try {
      draft = read(source, conversion, index);
    } catch (error) {
      // Not the text's doing (a catalog whose Proxy trap throws): one diagnostic, the line left out.
      conversion.problemOn(source, "invalid-plan", `line ${source.line} could not be converted: ${safeText(describeThrown(error), 120)}`, "", source.offset, source.offset);
      return undefined;
    }
    if (draft === undefined) return undefined;
    index++;
    return renderStep(draft, true, (message, ref) => conversion.problemOn(source, "invalid-plan", message, `/steps/${index - 1}`, ref.start, ref.end));
  };
  if (chunks === null || typeof chunks !== "object" || (typeof (chunks as AsyncIterable<unknown>)[Symbol.asyncIterator] !== "function" && typeof (chunks as Iterable<unknown>)[Symbol.iterator] !== "function")) {
    conversion.report("invalid-plan", "the plan stream must be an iterable of text chunks", "", 0, 0, { line: 1, column: 1 });
    return;
  }
  for await (const chunk of chunks) {
    chunkNumber++;
    if (typeof chunk !== "string") {
      conversion.report("invalid-plan", `chunk ${chunkNumber} is not text (${chunk === null ? "null" : typeof chunk}); it is left out`, "", bufferStart + buffer.length, bufferStart + buffer.length, { line, column: buffer.length + 1 });
      continue;
    }
    let piece = chunk;
    const over = total + piece.length > MAX_PLAN_TEXT_LENGTH;
    if (over) piece = piece.slice(0, MAX_PLAN_TEXT_LENGTH - total);
    total += piece.length;
    buffer += piece;
    for (let at = buffer.indexOf("\n", searched); at !== -1; at = buffer.indexOf("\n", 0)) {
      const text = buffer.slice(0, at);
      const step = skipping ? undefined : emit(text, bufferStart);
      skipping = false;
      buffer = buffer.slice(at + 1);
      bufferStart += at + 1;
      line++;
      if (step !== undefined) yield step;
      if (conversion.ended) return;
    }
    searched = buffer.length;
    if (!skipping && buffer.length > MAX_PLAN_LINE_LENGTH) {
      tooLong({ text: buffer, line, offset: bufferStart });
      skipping = true;
    }
    if (skipping) {
      bufferStart += buffer.length;
      buffer = "";
      searched = 0;
    }
    if (over) {
      reportLongText(conversion, bufferStart + buffer.length, line, buffer.length + 1);
      return; // the line the limit cuts is left out
    }
  }
  if (buffer !== "" && !skipping) {
    const step = emit(buffer, bufferStart);
    if (step !== undefined) yield step;
  }
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
    if (id === undefined) throw new SourceProblem("invalid-plan", `step number ${safeText(idDigits, 30)} is too large`, line.offset + idStart, line.offset + idStart + idDigits.length);
    const call = CALL.exec(text.slice(callStart));
    if (call === null) throw new SourceProblem("invalid-plan", `expected a call, tool(arguments), after "${idDigits}."`, line.offset + callStart, line.offset + Math.max(callStart + 1, text.trimEnd().length));
    const tool = call[1]!;
    const parser = new ArgumentParser(text, line.offset, callStart + call[0].length);
    const { positional, keywords } = parser.call();
    let rest = text.slice(parser.pos).trimStart();
    if (rest.startsWith(END_OF_PLAN)) {
      conversion.ended = true;
      rest = rest.slice(END_OF_PLAN.length).trimStart();
    }
    if (rest !== "" && !rest.startsWith("#")) {
      const start = text.length - rest.length;
      throw new SourceProblem("invalid-plan", `unexpected text after the call: ${quoted(rest, 30)} (a comment starts with #)`, line.offset + start, line.offset + text.trimEnd().length);
    }
    if (!conversion.roomForStep(line)) return undefined;
    const problems: SourceProblem[] = [];
    const args = nameArguments(conversion, tool, positional, keywords, (message, start, end) => problems.push(new SourceProblem("invalid-plan", message, start, end)));
    for (const problem of problems) conversion.problemOn(line, problem.code, problem.message, `/steps/${index}`, problem.start, problem.end);
    return conversion.acceptCall(line, { id, tool, args }, idStart, idDigits.length, callStart);
  } catch (error) {
    return conversion.leaveOut(line, error);
  }
}

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
  call(): { positional: { value: Value; start: number; end: number }[]; keywords: { name: string; value: Value; start: number; end: number }[] } {
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
      else if (next !== ")") this.fail(next === undefined ? `the call is not closed: expected ")"` : `expected "," or ")", not ${quoted(next, 4)}`);
    }
  }

  value(depth: number): Value {
    if (depth > MAX_ARGUMENT_DEPTH) throw new SourceProblem("limit", `an argument is nested deeper than ${MAX_ARGUMENT_DEPTH}`, this.base + this.pos, this.base + this.pos + 1);
    this.space();
    const start = this.pos;
    const char = this.text[this.pos];
    if (char === undefined) return this.fail(`expected a value, found the end of the line`);
    if (char === '"' || char === "'") return this.string(char);
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
      const value = Number(number[0]);
      if (!Number.isFinite(value)) this.fail(`the number ${safeText(number[0], 30)} is too large`, start, this.pos);
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

  /** A quoted string (escapes as in Python), its `$1` / `${1}` references kept apart. */
  string(quote: string): Value {
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
        text += this.escape();
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

  escape(): string {
    const next = this.text[this.pos + 1];
    const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0", a: "\u0007", b: "\b", f: "\f", v: "\v" };
    if (next !== undefined && Object.hasOwn(simple, next)) {
      this.pos += 2;
      return simple[next]!;
    }
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
      else if (next !== close) this.fail(next === undefined ? `the list is not closed: expected "${close}"` : `expected "," or "${close}"`, next === undefined ? start : this.pos);
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
      else if (next !== "}") this.fail(next === undefined ? `the dict is not closed: expected "}"` : `expected "," or "}"`, next === undefined ? start : this.pos);
    }
  }
}

