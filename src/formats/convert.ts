/**
 * What the converters of other planners' formats share: the named input limits, the intermediate form
 * of a step (values whose strings keep their references apart), the state of one conversion, naming
 * arguments, rendering into plan-refs values (`"$1"`, `"${1} and ${2}"`), and diagnostics with
 * offsets, lines and columns in the source text. Lines are split in `lines.ts`; a text is converted
 * line by line in `convert-text.ts`.
 *
 * Lines end at `\n` (a `\r` before it is dropped); columns are 1-based UTF-16 code units, as in the
 * linter's ranges.
 */
import type { TemplateNode } from "../grammar/ast.js";
import { formatRef } from "../grammar/format.js";
import { didYouMean } from "../lint/did-you-mean.js";
import { readTools, type Plan, type PlanStep, type ToolCatalog } from "../plan/plan.js";
import type { Diagnostic, DiagnosticCode, Severity } from "../shared/diagnostic.js";
import { pointerToken } from "../shared/pointer.js";
import { describeThrown } from "../shared/errors.js";
import { cutText, quoted, safeText } from "../shared/text.js";
import { defineOwn, isPlainObject, ownData as own } from "../shared/own-data.js";

/** The longest source text converted, in UTF-16 code units (1 MiB of text); the rest is one `limit` diagnostic. */
export const MAX_PLAN_TEXT_LENGTH = 1_048_576;
/** The longest line read (64 Ki code units); a longer line is a `limit` diagnostic and is skipped. */
export const MAX_PLAN_LINE_LENGTH = 65_536;
/** The most steps one text converts to; the rest is one `limit` diagnostic. */
export const MAX_PLAN_STEPS = 10_000;
/** The deepest nesting of lists and dicts in one argument. */
export const MAX_ARGUMENT_DEPTH = 64;
/** The most thought lines kept for one step's description (the rest are dropped). */
const MAX_THOUGHT_LINES = 64;
/** The most diagnostics one conversion reports; the last one says the rest were left out. */
export const MAX_CONVERSION_DIAGNOSTICS = 1_000;

/** Options of the converters. */
export interface ConvertOptions {
  /**
   * The tool catalog: tool names are checked against it (an unknown one is an `unknown-tool`
   * diagnostic) and positional arguments are named after its input schemas' property order.
   */
  readonly catalog?: ToolCatalog | undefined;
  /** What to do with the planner's thought lines: `"description"` (default) keeps them as the next step's description, `"drop"` drops them. */
  readonly thoughts?: "description" | "drop" | undefined;
}

/** A step made from a line of another planner's text: a plan step, and the planner's thought before it. */
export interface ConvertedStep extends PlanStep {
  readonly description?: string;
}

/** A plan made from another planner's text. */
export interface ConvertedPlan extends Plan {
  readonly steps: readonly ConvertedStep[];
}

/** What a converter returns: the plan (every line that could be read) and a diagnostic for every problem. */
export interface ConvertResult {
  readonly plan: ConvertedPlan;
  readonly diagnostics: readonly Diagnostic[];
}

/** A reference inside an argument, at `start`..`end` in the source text. */
export interface RefPart {
  readonly step: number;
  readonly start: number;
  readonly end: number;
}

/** An argument value before rendering: strings keep their references apart. */
export type Value =
  | { readonly kind: "literal"; readonly value: null | boolean | number }
  | { readonly kind: "string"; readonly parts: readonly (string | RefPart)[] }
  | { readonly kind: "ref"; readonly ref: RefPart }
  | { readonly kind: "list"; readonly items: readonly Value[] }
  | { readonly kind: "dict"; readonly entries: readonly (readonly [string, Value])[] };

/** A step read from a line, before its values are rendered. */
export interface DraftStep {
  readonly id: number;
  readonly tool: string;
  readonly args: readonly (readonly [string, Value])[];
  readonly description: string | undefined;
}

/** A problem at `start`..`end` of the source text (one line). */
export class SourceProblem extends Error {
  constructor(
    readonly code: DiagnosticCode,
    message: string,
    readonly start: number,
    readonly end: number,
  ) {
    super(message);
  }
}

/** One line of the source: its text (no line break), its 1-based number, and the offset where it starts. */
export interface SourceLine {
  readonly text: string;
  readonly line: number;
  readonly offset: number;
}

/** Where a problem is in the source: its JSON Pointer in the converted plan, its offsets, and its severity (default `error`). */
export interface ProblemSpan {
  readonly pointer: string;
  readonly start: number;
  readonly end: number;
  readonly severity?: Severity;
}

/** A problem's span with the line and column it begins at. */
export interface ProblemPlace extends ProblemSpan {
  readonly where: { readonly line: number; readonly column: number };
}

/**
 * A problem with the whole text or the options: at the text's start, on no step.
 *
 * @example
 * conversion.report("invalid-plan", "the plan text must be a string", AT_TEXT_START)
 */
export const AT_TEXT_START: ProblemPlace = { pointer: "", start: 0, end: 0, where: { line: 1, column: 1 } };

/**
 * The state of one conversion, shared by the whole-text and the streamed forms: diagnostics (with
 * their limit), the step ids seen so far, the catalog and the thought waiting for the next step.
 */
export class Conversion {
  readonly diagnostics: Diagnostic[] = [];
  readonly seen = new Set<number>();
  readonly catalog: ToolCatalog | undefined;
  readonly keepThoughts: boolean;
  #thought: string[] = [];
  #stepsFull = false;
  #steps = 0;
  ended = false;

  constructor(options: unknown) {
    let catalog: unknown;
    let thoughts: unknown;
    if (options !== undefined) {
      if (typeof options !== "object" || options === null) {
        this.report("invalid-options", "the converter's options must be an object", AT_TEXT_START);
      } else {
        try {
          catalog = own(options, "catalog");
          thoughts = own(options, "thoughts");
        } catch (error) {
          // A Proxy trap that throws: the options count as absent.
          this.report(
            "invalid-options",
            `the converter's options could not be read: ${safeText(describeThrown(error), 80)}`,
            AT_TEXT_START,
          );
        }
      }
    }
    if (thoughts !== undefined && thoughts !== "description" && thoughts !== "drop") {
      this.report("invalid-options", `option thoughts must be "description" or "drop"`, AT_TEXT_START);
    }
    this.keepThoughts = thoughts !== "drop";
    this.catalog =
      catalog === undefined
        ? undefined
        : readTools(
            catalog,
            (pointer, message) => this.report("invalid-options", `catalog ${pointer || "/"}: ${message}`, AT_TEXT_START),
            "",
          );
  }

  /** Add a diagnostic at `start`..`end` of the source, beginning at line and column `where`. */
  report(code: DiagnosticCode, message: string, { pointer, start, end, where, severity = "error" }: ProblemPlace): void {
    if (this.diagnostics.length > MAX_CONVERSION_DIAGNOSTICS) return;
    const range = { start: where, end: { line: where.line, column: where.column + (end - start) } };
    if (this.diagnostics.length === MAX_CONVERSION_DIAGNOSTICS) {
      this.diagnostics.push({
        code: "limit",
        severity: "error",
        message: `more than ${MAX_CONVERSION_DIAGNOSTICS} problems; the rest are left out`,
        pointer: "",
        offset: { start, end },
        range,
      });
      return;
    }
    this.diagnostics.push({ code, severity, message, pointer, offset: { start, end }, range });
  }

  /** A problem on a line: its range is computed from the line's start. */
  problemOn(line: SourceLine, code: DiagnosticCode, message: string, { pointer, start, end, severity }: ProblemSpan): void {
    const clampedStart = Math.max(line.offset, Math.min(start, line.offset + line.text.length));
    const clampedEnd = Math.max(clampedStart, Math.min(end, line.offset + line.text.length));
    this.report(code, message, {
      pointer,
      start: clampedStart,
      end: clampedEnd,
      where: { line: line.line, column: clampedStart - line.offset + 1 },
      severity,
    });
  }

  /** Keep a thought line for the next step's description. */
  thought(text: string): void {
    const trimmed = text.trim();
    if (this.keepThoughts && trimmed !== "" && this.#thought.length < MAX_THOUGHT_LINES) this.#thought.push(trimmed);
  }

  /** The thought since the last step (and forget it). */
  takeThought(): string | undefined {
    const text = this.#thought.join(" ");
    this.#thought = [];
    return text === "" ? undefined : cutText(text, MAX_PLAN_LINE_LENGTH);
  }

  /** Whether one more step may be added (else a `limit` diagnostic, once). */
  roomForStep(line: SourceLine): boolean {
    if (this.#steps < MAX_PLAN_STEPS) return true;
    if (!this.#stepsFull)
      this.problemOn(line, "limit", `more than ${MAX_PLAN_STEPS} steps; the rest of the plan is left out`, {
        pointer: "",
        start: line.offset,
        end: line.offset + line.text.length,
      });
    this.#stepsFull = true;
    this.ended = true;
    return false;
  }

  /**
   * Add a call read from `line` (offsets within the line): the step with the thought before it as its
   * description, checked by `accept`.
   */
  acceptCall(
    line: SourceLine,
    step: { id: number; tool: string; args: DraftStep["args"] },
    idStart: number,
    idLength: number,
    toolStart: number,
  ): DraftStep | undefined {
    const at = line.offset;
    return this.accept(
      line,
      { ...step, description: this.takeThought() },
      { start: at + idStart, end: at + idStart + idLength },
      { start: at + toolStart, end: at + toolStart + step.tool.length },
    );
  }

  /** A step line that could not be read (a `SourceProblem`): left out with a diagnostic, its thought dropped. Anything else is rethrown. */
  leaveOut(line: SourceLine, error: unknown): undefined {
    if (!(error instanceof SourceProblem)) throw error;
    this.problemOn(line, error.code, `${error.message}; line ${line.line} is left out`, {
      pointer: "",
      start: error.start,
      end: error.end,
    });
    this.takeThought();
    return undefined;
  }

  /**
   * Check a step read from `line` and add it: its id unused so far, its tool in the catalog, every
   * reference to a step defined on an earlier line. Returns the step (with the catalog's spelling of
   * the tool) or undefined when its id is taken or it refers to a step not defined before it.
   */
  accept(
    line: SourceLine,
    draft: DraftStep,
    idSpan: { start: number; end: number },
    toolSpan: { start: number; end: number },
  ): DraftStep | undefined {
    const index = this.#steps;
    const pointer = `/steps/${index}`;
    if (this.seen.has(draft.id)) {
      this.problemOn(line, "duplicate-step-id", `step ${draft.id} is defined twice; this line is left out`, {
        pointer: "",
        start: idSpan.start,
        end: idSpan.end,
      });
      return undefined;
    }
    let tool = draft.tool;
    if (this.catalog !== undefined && !Object.hasOwn(this.catalog, tool)) {
      const found = this.catalogName(tool);
      if (found !== undefined) tool = found;
      else {
        const suggestion = didYouMean(tool, Object.keys(this.catalog));
        this.problemOn(
          line,
          "unknown-tool",
          `unknown tool ${quoted(tool, 40)}${suggestion === undefined ? "" : `; did you mean ${quoted(suggestion, 40)}?`}`,
          { pointer: `${pointer}/tool`, start: toolSpan.start, end: toolSpan.end },
        );
      }
    }
    // A reference to a later step is refused, not waited for: LLMCompiler counts only earlier steps as
    // dependencies, and a stream cannot know whether a later step will ever come. The line is left
    // out, in the whole text and in the stream alike, so runPlan never runs it either.
    let unknown = false;
    for (const [name, value] of draft.args) {
      for (const ref of refsOf(value)) {
        if (this.seen.has(ref.step)) continue;
        const why = ref.step === draft.id ? "its own result" : "a step not defined on an earlier line";
        this.problemOn(line, "unknown-step", `step ${draft.id} refers to step ${ref.step}, ${why}; line ${line.line} is left out`, {
          pointer: argPointer(index, name),
          start: ref.start,
          end: ref.end,
        });
        unknown = true;
      }
    }
    if (unknown) return undefined;
    this.seen.add(draft.id);
    this.#steps++;
    return { ...draft, tool };
  }

  /** The catalog's name for `tool`: itself, or the one name that differs from it only in case. */
  catalogName(tool: string): string | undefined {
    if (this.catalog === undefined) return undefined;
    if (Object.hasOwn(this.catalog, tool)) return tool;
    const folded = tool.toLowerCase();
    const found = Object.keys(this.catalog).filter((name) => name.toLowerCase() === folded);
    return found.length === 1 ? found[0] : undefined;
  }

  /** The names of a tool's input properties, in order (own data only), or undefined without a catalog entry. */
  inputNames(tool: string): string[] | undefined {
    const name = this.catalogName(tool);
    if (name === undefined) return undefined;
    const spec = own(this.catalog, name);
    const input = isPlainObject(spec) ? own(spec, "input") : undefined;
    const properties = isPlainObject(input) ? own(input, "properties") : undefined;
    return isPlainObject(properties) ? Object.keys(properties) : [];
  }
}

/** Every reference in a value. */
export function refsOf(value: Value, out: RefPart[] = []): RefPart[] {
  switch (value.kind) {
    case "ref":
      out.push(value.ref);
      break;
    case "string":
      for (const part of value.parts) if (typeof part !== "string") out.push(part);
      break;
    case "list":
      for (const item of value.items) refsOf(item, out);
      break;
    case "dict":
      for (const [, item] of value.entries) refsOf(item, out);
      break;
    default:
      break;
  }
  return out;
}

/** Which plan options the values need: `templates` for text around a reference, `deep` for a reference inside a list or dict. */
export function needs(steps: readonly DraftStep[]): { templates: boolean; deep: boolean } {
  let templates = false;
  let deep = false;
  const visit = (value: Value, nested: boolean): void => {
    if (value.kind === "ref") deep ||= nested;
    else if (value.kind === "string") {
      const refs = value.parts.filter((part) => typeof part !== "string").length;
      if (refs > 0) {
        deep ||= nested;
        templates ||= !(value.parts.length === 1 && refs === 1);
      }
    } else if (value.kind === "list") for (const item of value.items) visit(item, true);
    else if (value.kind === "dict") for (const [, item] of value.entries) visit(item, true);
  };
  for (const step of steps) for (const [, value] of step.args) visit(value, false);
  return { templates, deep };
}

/**
 * A step's plan form. With `templates`, every string is written in the template language (a literal
 * `${` becomes `$${`, a leading `$` becomes `$$`) so that its text means what the planner wrote.
 * A string that cannot be written (text ending in `$` just before a reference) is reported.
 */
export function renderStep(step: DraftStep, templates: boolean, report: (message: string, ref: RefPart) => void): ConvertedStep {
  const args: Record<string, unknown> = {};
  for (const [name, value] of step.args) defineOwn(args, name, renderValue(value, templates, report));
  return { id: step.id, tool: step.tool, args, ...(step.description === undefined ? {} : { description: step.description }) };
}

function renderValue(value: Value, templates: boolean, report: (message: string, ref: RefPart) => void): unknown {
  switch (value.kind) {
    case "literal":
      return value.value;
    case "ref":
      return `$${value.ref.step}`;
    case "list":
      return value.items.map((item) => renderValue(item, templates, report));
    case "dict": {
      const out: Record<string, unknown> = {};
      for (const [key, item] of value.entries) defineOwn(out, key, renderValue(item, templates, report));
      return out;
    }
    case "string": {
      const [only] = value.parts;
      if (value.parts.length === 1 && only !== undefined && typeof only !== "string") return `$${only.step}`;
      const hasRef = value.parts.some((part) => typeof part !== "string");
      if (!templates) return value.parts.filter((part): part is string => typeof part === "string").join("");
      const span = { start: 0, end: 0 };
      const template: TemplateNode = {
        type: "template",
        span,
        parts: value.parts.map((part) =>
          typeof part === "string"
            ? { type: "text", span, value: part }
            : {
                type: "interpolation",
                span,
                form: "braced",
                expression: {
                  type: "reference",
                  span,
                  syntax: "seed",
                  step: { type: "step", span, digits: String(part.step), id: String(part.step) },
                  path: [],
                },
              },
        ),
      };
      try {
        return formatRef(template);
      } catch (error) {
        const ref = value.parts.find((part): part is RefPart => typeof part !== "string");
        if (ref !== undefined && hasRef)
          report(`this text cannot be written as a template: ${error instanceof Error ? error.message : "unknown"}`, ref);
        return value.parts.map((part) => (typeof part === "string" ? part : `$${part.step}`)).join("");
      }
    }
    default:
      return null;
  }
}

/**
 * Name the arguments of a call: positional ones after the tool's input properties in order, keyword
 * ones by name. Problems (no name for a positional argument, a name given twice) go to `problem`.
 */
export function nameArguments(
  conversion: Conversion,
  tool: string,
  positional: readonly { value: Value; start: number; end: number }[],
  keywords: readonly { name: string; value: Value; start: number; end: number }[],
  problem: (message: string, start: number, end: number) => void,
): [string, Value][] {
  const named: [string, Value][] = [];
  const taken = new Set<string>();
  if (positional.length > 0) {
    const names = conversion.inputNames(tool);
    positional.forEach((argument, index) => {
      const name = names?.[index];
      if (name === undefined) {
        const why =
          names === undefined
            ? conversion.catalog === undefined
              ? "without a catalog positional arguments have no names (give options.catalog, or write name=value)"
              : `tool ${quoted(tool, 40)} is not in the catalog`
            : `tool ${quoted(tool, 40)} declares ${names.length} input propert${names.length === 1 ? "y" : "ies"}`;
        problem(`positional argument ${index + 1} has no name: ${why}; it is left out`, argument.start, argument.end);
        return;
      }
      taken.add(name);
      named.push([name, argument.value]);
    });
  }
  for (const keyword of keywords) {
    if (taken.has(keyword.name)) {
      problem(`argument ${quoted(keyword.name, 40)} is given twice; the second is left out`, keyword.start, keyword.end);
      continue;
    }
    taken.add(keyword.name);
    named.push([keyword.name, keyword.value]);
  }
  return named;
}

/** `/steps/0/args/q` for a step at `index` and an argument name. */
export function argPointer(index: number, name: string): string {
  return `/steps/${index}/args/${pointerToken(name)}`;
}

/** A step id or step reference from its digits: a safe integer, else undefined. */
export function stepNumber(digits: string): number | undefined {
  const value = Number(digits);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** The `limit` diagnostic of a line longer than `MAX_PLAN_LINE_LENGTH` (at its first character). */
export function reportLongLine(conversion: Conversion, source: SourceLine): void {
  conversion.problemOn(source, "limit", `line ${source.line} is over the limit of ${MAX_PLAN_LINE_LENGTH} characters; it is left out`, {
    pointer: "",
    start: source.offset,
    end: source.offset + 1,
  });
}

/** The `limit` diagnostic of text past `MAX_PLAN_TEXT_LENGTH`, at the offset where the limit cuts it. */
export function reportLongText(conversion: Conversion, offset: number, line: number, column: number): void {
  conversion.report("limit", `the text is over the limit of ${MAX_PLAN_TEXT_LENGTH} characters; the rest is left out`, {
    pointer: "",
    start: offset,
    end: offset,
    where: { line, column },
  });
}
