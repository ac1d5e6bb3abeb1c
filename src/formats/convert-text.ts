/**
 * The conversion of a text, line by line, shared by the formats: `convertLines` for a whole text,
 * `streamSteps` for text that comes in chunks. Each format gives its `readLine`; the lines come from
 * one `LineSplitter`, so both forms see the same lines and the same limits.
 */
import type { Diagnostic } from "../shared/diagnostic.js";
import { describeThrown } from "../shared/errors.js";
import { safeText } from "../shared/text.js";
import {
  AT_TEXT_START,
  Conversion,
  needs,
  renderStep,
  type ConvertedStep,
  type ConvertOptions,
  type ConvertResult,
  type DraftStep,
  type SourceLine,
} from "./convert.js";
import { LineSplitter } from "./lines.js";

/** A format's reading of one line: a step, or undefined (a thought, other text, a problem reported). */
export type ReadLine = (line: SourceLine, conversion: Conversion, index: number) => DraftStep | undefined;

/**
 * Convert a whole text line by line with a format's `readLine`; never throws.
 *
 * @example
 * convertLines("1. search(\"x\")", { catalog }, readLine).plan.steps
 */
export function convertLines(text: string, options: ConvertOptions | undefined, readLine: ReadLine): ConvertResult {
  const conversion = new Conversion(options);
  const drafts: { draft: DraftStep; line: SourceLine }[] = [];
  try {
    if (typeof text !== "string") {
      conversion.report("invalid-plan", `the plan text must be a string, not ${text === null ? "null" : typeof text}`, AT_TEXT_START);
    } else {
      const lines = new LineSplitter(conversion);
      for (const line of [...lines.push(text), ...lines.end()]) {
        const draft = readLine(line, conversion, drafts.length);
        if (draft !== undefined) drafts.push({ draft, line });
        if (conversion.ended) break;
      }
    }
    return finishPlan(drafts, conversion);
  } catch (error) {
    conversion.report("invalid-plan", `the text could not be converted: ${safeText(describeThrown(error), 120)}`, AT_TEXT_START);
    return { plan: { steps: [] }, diagnostics: conversion.diagnostics };
  }
}

/** Render the drafts with the options they need. */
function finishPlan(drafts: readonly { draft: DraftStep; line: SourceLine }[], conversion: Conversion): ConvertResult {
  const { templates, deep } = needs(drafts.map(({ draft }) => draft));
  const steps = drafts.map(({ draft, line }, index) =>
    renderStep(draft, templates, (message, ref) =>
      conversion.problemOn(line, "invalid-plan", message, { pointer: `/steps/${index}`, start: ref.start, end: ref.end }),
    ),
  );
  const planOptions = { ...(templates ? { templates: true } : {}), ...(deep ? { deep: true } : {}) };
  // In source order (a stable sort: problems at one place keep the order they were found in).
  const diagnostics = [...conversion.diagnostics].sort((a, b) => (a.offset?.start ?? 0) - (b.offset?.start ?? 0));
  return { plan: { steps, ...(templates || deep ? { options: planOptions } : {}) }, diagnostics };
}

/** What the streamed converters return: the steps as they are read, and the problems found so far. */
export interface StepStream extends AsyncIterable<ConvertedStep> {
  /** Every problem found so far (filled while the stream is read). */
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Steps from text chunks as they come, each as soon as its line is complete. Closing the stream
 * (`return()`, as `runPlan` does when it stops) ends it at once and closes the chunk source at once,
 * also while a chunk is awaited: the source's `return()` is called then, not after its next chunk.
 *
 * @example
 * const stream = streamSteps(chunks, new Conversion({ catalog }), readLine);
 */
export function streamSteps(chunks: AsyncIterable<unknown> | Iterable<unknown>, conversion: Conversion, read: ReadLine): StepStream {
  return { diagnostics: conversion.diagnostics, [Symbol.asyncIterator]: () => new StepIterator(chunks, conversion, read) };
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

class StepIterator implements AsyncIterator<ConvertedStep, undefined> {
  readonly #lines: LineSplitter;
  readonly #ready: ConvertedStep[] = [];
  #source: AsyncIterator<unknown> | Iterator<unknown> | undefined;
  #sync = false;
  #index = 0;
  #chunkNumber = 0;
  #finished = false;
  /** Ends a `next()` that waits for a chunk when the stream is closed meanwhile. */
  #interrupt: (() => void) | undefined;

  constructor(
    chunks: unknown,
    readonly conversion: Conversion,
    readonly read: ReadLine,
  ) {
    this.#lines = new LineSplitter(conversion);
    const iterable = chunks as { [Symbol.asyncIterator]?: unknown; [Symbol.iterator]?: unknown } | null;
    try {
      if (iterable !== null && typeof iterable === "object" && typeof iterable[Symbol.asyncIterator] === "function")
        this.#source = (iterable as AsyncIterable<unknown>)[Symbol.asyncIterator]();
      else if (iterable !== null && typeof iterable === "object" && typeof iterable[Symbol.iterator] === "function") {
        this.#source = (iterable as Iterable<unknown>)[Symbol.iterator]();
        this.#sync = true;
      }
    } catch (error) {
      conversion.report("invalid-plan", `the plan stream could not be read: ${safeText(describeThrown(error), 120)}`, AT_TEXT_START);
      this.#finished = true;
      return;
    }
    if (this.#source === undefined) {
      conversion.report("invalid-plan", "the plan stream must be an iterable of text chunks", AT_TEXT_START);
      this.#finished = true;
    }
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<ConvertedStep, undefined>> {
    while (this.#ready.length === 0 && !this.#finished) {
      const chunk = await this.#nextChunk();
      if (chunk === DONE) {
        if (!this.#finished) this.#take(this.#lines.end());
        this.#finished = true;
        break;
      }
      this.#chunkNumber++;
      if (typeof chunk !== "string") {
        const { offset, line, column } = this.#lines.position;
        this.conversion.report(
          "invalid-plan",
          `chunk ${this.#chunkNumber} is not text (${chunk === null ? "null" : typeof chunk}); it is left out`,
          { pointer: "", start: offset, end: offset, where: { line, column } },
        );
        continue;
      }
      this.#take(this.#lines.push(chunk));
      if (this.conversion.ended || this.#lines.cut) this.#close();
    }
    const step = this.#ready.shift();
    return step === undefined ? DONE : { done: false, value: step };
  }

  return(): Promise<IteratorResult<ConvertedStep, undefined>> {
    this.#ready.length = 0;
    this.#close();
    return Promise.resolve(DONE);
  }

  /** The next chunk, or DONE when the source ends or the stream is closed while waiting. */
  async #nextChunk(): Promise<unknown> {
    const source = this.#source!;
    const closed = new Promise<typeof DONE>((resolve) => (this.#interrupt = () => resolve(DONE)));
    try {
      const result = await Promise.race([Promise.resolve(source.next()), closed]);
      if (result === DONE || this.#finished) return DONE;
      if (result.done === true) {
        this.#source = undefined; // ended on its own: nothing to close
        return DONE;
      }
      // `for await` over a sync iterable awaits each value: the same here.
      return this.#sync ? await result.value : result.value;
    } finally {
      this.#interrupt = undefined;
    }
  }

  /** Read each line into a step ready to be given, until the plan ends. */
  #take(lines: Iterable<SourceLine>): void {
    for (const source of lines) {
      if (this.conversion.ended) break;
      const step = this.#step(source);
      if (step !== undefined) this.#ready.push(step);
    }
  }

  #step(source: SourceLine): ConvertedStep | undefined {
    let draft: DraftStep | undefined;
    try {
      draft = this.read(source, this.conversion, this.#index);
    } catch (error) {
      // Not the text's doing (a catalog whose Proxy trap throws): one diagnostic, the line left out.
      this.conversion.problemOn(
        source,
        "invalid-plan",
        `line ${source.line} could not be converted: ${safeText(describeThrown(error), 120)}`,
        { pointer: "", start: source.offset, end: source.offset },
      );
      return undefined;
    }
    if (draft === undefined) return undefined;
    const index = this.#index++;
    return renderStep(draft, true, (message, ref) =>
      this.conversion.problemOn(source, "invalid-plan", message, { pointer: `/steps/${index}`, start: ref.start, end: ref.end }),
    );
  }

  /** No more chunks are read: the source is told at once (without waiting for it: it may be stalled). */
  #close(): void {
    this.#finished = true;
    this.#interrupt?.();
    const source = this.#source;
    this.#source = undefined;
    if (source === undefined) return;
    try {
      const result = source.return?.();
      if (result !== undefined) Promise.resolve(result).catch(() => undefined);
    } catch {
      // A source whose return() throws: it was told.
    }
  }
}
