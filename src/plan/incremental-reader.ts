/**
 * Reading a plan's JSON text while it is still being written (a model streaming a tool call's input):
 * each step of `steps` (or of a bare array of steps) is handed out as soon as its closing bracket
 * arrives, with its offsets in the text, so that a runner can start it before the rest of the plan is
 * known. jsonc-parser's scanner tokenizes the growing text; a token that touches the end of what has
 * arrived is read again with the next chunk (a number or a word may go on). The text is kept whole
 * (the caller parses and lints it once it is complete); besides it, the reader holds one step's offsets.
 */
import { jsonc } from "./jsonc.js";
import { MAX_NESTING } from "./json-text.js";
import type { PlanProblem } from "./plan.js";
import { pointerToken } from "../shared/pointer.js";
import { quoted } from "../shared/text.js";

/** The longest plan text the incremental reader takes by default, in UTF-16 code units. */
export const MAX_STREAMED_PLAN_LENGTH = 8_000_000;

/** One element of the plan's step array, complete in the text. */
export interface StreamedPlanStep {
  /** The element as `JSON.parse` gives it (a step, or whatever the model wrote there). */
  readonly value: unknown;
  /** Its index in the step array. */
  readonly index: number;
  /** JSON Pointer of the element (`/steps/0`, or `/0` for a bare array). */
  readonly pointer: string;
  /** Offset of its first character in the text. */
  readonly start: number;
  /** Offset just past its last character. */
  readonly end: number;
}

/** Limits of an incremental read. */
export interface PlanTextReaderOptions {
  /** Longest text taken (default `MAX_STREAMED_PLAN_LENGTH`); a longer one is `invalid-plan`. */
  readonly maxLength?: number;
  /** Most steps taken; one more is `invalid-plan` (default: no limit but `maxLength`). */
  readonly maxSteps?: number;
}

/**
 * Where the plan's `options` or `tools` keys stood, as far as the text shows: `none` so far, `before`
 * the step array, or `after` its first element began (steps read before them would have been read
 * under the wrong options).
 */
export type PlanSettingsPlace = "none" | "before" | "after";

/** jsonc-parser's token kinds (its `SyntaxKind`, a const enum its types declare but its code does not export by name). */
const T = {
  OpenBraceToken: 1,
  CloseBraceToken: 2,
  OpenBracketToken: 3,
  CloseBracketToken: 4,
  CommaToken: 5,
  ColonToken: 6,
  NullKeyword: 7,
  TrueKeyword: 8,
  FalseKeyword: 9,
  StringLiteral: 10,
  NumericLiteral: 11,
  LineCommentTrivia: 12,
  BlockCommentTrivia: 13,
  LineBreakTrivia: 14,
  Trivia: 15,
  Unknown: 16,
  EOF: 17,
} as const;
/** jsonc-parser's `ScanError.None`. */
const NO_SCAN_ERROR = 0;

/** What the reader expects next. */
enum Expect {
  /** The top-level value. */
  Value,
  /** A key of the top-level object, or its end. */
  KeyOrEnd,
  /** A key of the top-level object (after a comma). */
  Key,
  Colon,
  /** A top-level property's value. */
  PropertyValue,
  /** A comma or the end of the top-level object. */
  CommaOrEnd,
  /** An element of the step array, or its end. */
  ElementOrEnd,
  /** An element of the step array (after a comma). */
  Element,
  /** A comma or the end of the step array. */
  ElementCommaOrEnd,
  /** Inside a value that is skipped or collected (depth > 0 counts its brackets). */
  Inside,
  /** The top-level value ended: only white space may follow. */
  Done,
}

/**
 * An incremental reader of one plan's JSON text. `push` takes the next chunk and returns the step
 * array's elements completed by it, each once, in order; `end` says the text is whole. A text that
 * cannot be a plan stops the reader with one `invalid-plan` problem (`problem`); nothing more is
 * handed out after it.
 *
 * @example
 * const reader = new PlanTextReader();
 * reader.push('{"steps":[{"id":1,"tool":"geocode","args":{}}') // [{ value: { id: 1, … }, index: 0, pointer: "/steps/0", start: 10, end: 45 }]
 * reader.push(",{\"id\":2") // []
 */
export class PlanTextReader {
  #text = "";
  /** Offset up to which every token has been read. */
  #position = 0;
  #expect = Expect.Value;
  /** What `Inside` returns to once its depth is back to 0. */
  #after = Expect.CommaOrEnd;
  #depth = 0;
  /** Whether the value being skipped is a step array element (collected) or a top-level property's (skipped). */
  #collecting = false;
  #elementStart = 0;
  #key: string | undefined;
  readonly #keys = new Set<string>();
  #bare = false;
  #index = 0;
  #settings: PlanSettingsPlace = "none";
  #problem: PlanProblem | undefined;
  #ended = false;
  readonly #maxLength: number;
  readonly #maxSteps: number;

  constructor(options: PlanTextReaderOptions = {}) {
    this.#maxLength = options.maxLength ?? MAX_STREAMED_PLAN_LENGTH;
    this.#maxSteps = options.maxSteps ?? Number.MAX_SAFE_INTEGER;
  }

  /** The text so far. */
  get text(): string {
    return this.#text;
  }

  /** Why the text cannot be a plan, once it is known. */
  get problem(): PlanProblem | undefined {
    return this.#problem;
  }

  /** Whether the top-level value has ended. */
  get complete(): boolean {
    return this.#expect === Expect.Done;
  }

  /** Where the plan's `options` or `tools` stood (see `PlanSettingsPlace`). */
  get settings(): PlanSettingsPlace {
    return this.#settings;
  }

  /** Take the next chunk; the step array's elements it completes, in order. */
  push(chunk: string): StreamedPlanStep[] {
    if (this.#problem !== undefined || this.#ended) return [];
    if (this.#text.length + chunk.length > this.#maxLength) {
      this.#fail(this.#text.length, `the plan's text is longer than ${this.#maxLength} characters`);
      return [];
    }
    this.#text += chunk;
    return this.#scan(false);
  }

  /** The text is whole: the elements its last token completes, and a problem if the plan is unfinished. */
  end(): StreamedPlanStep[] {
    if (this.#ended) return [];
    const found = this.#problem === undefined ? this.#scan(true) : [];
    this.#ended = true;
    if (this.#problem === undefined && this.#expect !== Expect.Done)
      this.#fail(this.#text.length, "the plan's text ends before the plan does");
    return found;
  }

  #fail(offset: number, message: string): void {
    this.#problem ??= { code: "invalid-plan", message: `${message} (at offset ${offset})`, pointer: "" };
  }

  #scan(last: boolean): StreamedPlanStep[] {
    const found: StreamedPlanStep[] = [];
    const text = this.#text;
    const scanner = jsonc.createScanner(text, false);
    scanner.setPosition(this.#position);
    for (;;) {
      const kind = scanner.scan() as number;
      if (kind === T.EOF) break;
      const start = scanner.getTokenOffset();
      const end = start + scanner.getTokenLength();
      // A token that reaches the end of the text so far may go on in the next chunk (a number, a word, a string).
      if (!last && end === text.length && !isPunctuation(kind)) break;
      this.#position = end;
      if (kind === T.Trivia || kind === T.LineBreakTrivia) continue;
      if (
        kind === T.LineCommentTrivia ||
        kind === T.BlockCommentTrivia ||
        kind === T.Unknown ||
        (scanner.getTokenError() as number) !== NO_SCAN_ERROR
      ) {
        this.#fail(start, "the plan's text is not JSON");
        break;
      }
      const step = this.#token(kind, start, end, scanner);
      if (this.#problem !== undefined) break;
      if (step !== undefined) found.push(step);
    }
    return found;
  }

  /** One token (not white space) in the state machine; a completed element of the step array, if any. */
  #token(kind: number, start: number, end: number, scanner: ReturnType<typeof jsonc.createScanner>): StreamedPlanStep | undefined {
    const opens = kind === T.OpenBraceToken || kind === T.OpenBracketToken;
    const closes = kind === T.CloseBraceToken || kind === T.CloseBracketToken;
    switch (this.#expect) {
      case Expect.Value:
        if (kind === T.OpenBraceToken) this.#expect = Expect.KeyOrEnd;
        else if (kind === T.OpenBracketToken) {
          this.#bare = true;
          this.#expect = Expect.ElementOrEnd;
        } else this.#fail(start, "a plan is an object with steps, or an array of steps");
        return undefined;
      case Expect.KeyOrEnd:
      case Expect.Key:
        if (kind === T.StringLiteral) {
          const key = scanner.getTokenValue();
          if (this.#keys.has(key)) return void this.#fail(start, `the plan has the key ${quoted(key, 40)} twice`);
          this.#keys.add(key);
          this.#key = key;
          if (key === "options" || key === "tools") {
            if (this.#settings === "none") this.#settings = this.#keys.has("steps") ? "after" : "before";
          }
          this.#expect = Expect.Colon;
        } else if (kind === T.CloseBraceToken && this.#expect === Expect.KeyOrEnd) this.#expect = Expect.Done;
        else this.#fail(start, "expected a property name");
        return undefined;
      case Expect.Colon:
        if (kind !== T.ColonToken) return void this.#fail(start, "expected ':'");
        this.#expect = Expect.PropertyValue;
        return undefined;
      case Expect.PropertyValue:
        if (this.#key === "steps" && kind === T.OpenBracketToken) {
          this.#expect = Expect.ElementOrEnd;
          return undefined;
        }
        return this.#value(kind, start, end, false, Expect.CommaOrEnd);
      case Expect.CommaOrEnd:
        if (kind === T.CommaToken) this.#expect = Expect.Key;
        else if (kind === T.CloseBraceToken) this.#expect = Expect.Done;
        else this.#fail(start, "expected ',' or '}'");
        return undefined;
      case Expect.ElementOrEnd:
      case Expect.Element:
        if (kind === T.CloseBracketToken && this.#expect === Expect.ElementOrEnd) {
          this.#expect = this.#bare ? Expect.Done : Expect.CommaOrEnd;
          return undefined;
        }
        if (this.#index >= this.#maxSteps) return void this.#fail(start, `the plan has more than ${this.#maxSteps} steps`);
        return this.#value(kind, start, end, true, Expect.ElementCommaOrEnd);
      case Expect.ElementCommaOrEnd:
        if (kind === T.CommaToken) this.#expect = Expect.Element;
        else if (kind === T.CloseBracketToken) {
          this.#expect = this.#bare ? Expect.Done : Expect.CommaOrEnd;
        } else this.#fail(start, "expected ',' or ']'");
        return undefined;
      case Expect.Inside:
        if (opens) {
          if (++this.#depth > MAX_NESTING) this.#fail(start, `the plan nests deeper than ${MAX_NESTING} levels`);
        } else if (closes && --this.#depth === 0) {
          this.#expect = this.#after;
          if (this.#collecting) return this.#element(end);
        }
        return undefined;
      case Expect.Done:
        return void this.#fail(start, "the plan's text goes on after the plan");
      default:
        return this.#expect satisfies never;
    }
  }

  /** The start of a value: a container is entered, a scalar is complete at once. */
  #value(kind: number, start: number, end: number, collect: boolean, after: Expect): StreamedPlanStep | undefined {
    this.#collecting = collect;
    this.#elementStart = start;
    if (kind === T.OpenBraceToken || kind === T.OpenBracketToken) {
      this.#depth = 1;
      this.#after = after;
      this.#expect = Expect.Inside;
      return undefined;
    }
    const scalar =
      kind === T.StringLiteral || kind === T.NumericLiteral || kind === T.TrueKeyword || kind === T.FalseKeyword || kind === T.NullKeyword;
    if (!scalar) return void this.#fail(start, "expected a value");
    this.#expect = after;
    return collect ? this.#element(end) : undefined;
  }

  /** The element that just ended, parsed from its own text. */
  #element(end: number): StreamedPlanStep | undefined {
    const start = this.#elementStart;
    let value: unknown;
    try {
      value = JSON.parse(this.#text.slice(start, end));
    } catch {
      return void this.#fail(start, "a step's text is not JSON");
    }
    const index = this.#index++;
    return { value, index, pointer: `${this.#bare ? "" : "/steps"}/${pointerToken(String(index))}`, start, end };
  }
}

function isPunctuation(kind: number): boolean {
  return (
    kind === T.OpenBraceToken ||
    kind === T.CloseBraceToken ||
    kind === T.OpenBracketToken ||
    kind === T.CloseBracketToken ||
    kind === T.CommaToken ||
    kind === T.ColonToken
  );
}
