/**
 * ReWOO plans, as its planner writes them:
 *
 *   Plan: Search for the weather in Paris.
 *   #E1 = Search[weather in Paris]
 *   Plan: Summarise what was found. #E2 = LLM[Summarise #E1 in one line]
 *
 * Each `#En = Tool[input]` is step n; the bracketed input goes to the tool's first input property.
 * `#E1` alone is step 1's whole result, inside longer text an interpolation. `Plan:` text becomes the
 * next step's description; other lines are dropped.
 */
import { safeText } from "../shared/text.js";
import {
  Conversion,
  nameArguments,
  SourceProblem,
  stepNumber,
  type ConvertOptions,
  type ConvertResult,
  type DraftStep,
  type RefPart,
  type SourceLine,
} from "./convert.js";
import { convertLines } from "./convert-text.js";

const STEP = /#E(\d+)\s*=\s*/;
const CALL = /^([A-Za-z_][A-Za-z0-9_.-]*)\s*\[/;
const PLAN = /^\s*Plan\b[^:]{0,20}:\s?(.*)$/i;
const EVIDENCE = /#E(\d+)/g;

/**
 * Convert a ReWOO plan into a plan. The bracketed input of `#E2 = Tool[input]` goes to the tool's first
 * input property (`options.catalog`); `#E1` alone is step 1's whole result, inside longer text an
 * interpolation (the plan then sets `templates`). Never throws: every problem is a diagnostic with its
 * line and column in `text`.
 *
 * @example
 * const { plan } = fromReWOO("Plan: look it up. #E1 = Search[Paris weather]\n#E2 = LLM[Summarise #E1]", { catalog });
 * plan.steps[1].args // { prompt: "Summarise ${1}" }
 */
export function fromReWOO(text: string, options?: ConvertOptions): ConvertResult {
  return convertLines(text, options, readLine);
}

function readLine(line: SourceLine, conversion: Conversion, index: number): DraftStep | undefined {
  const text = line.text;
  const step = STEP.exec(text);
  const before = step === null ? text : text.slice(0, step.index);
  const plan = PLAN.exec(before);
  if (plan !== null) conversion.thought(plan[1] ?? "");
  if (step === null) return undefined;
  const idStart = step.index + 2;
  const digits = step[1]!;
  const callStart = step.index + step[0].length;
  try {
    const id = stepNumber(digits);
    if (id === undefined)
      throw new SourceProblem(
        "invalid-plan",
        `step number ${safeText(digits, 30)} is too large`,
        line.offset + idStart,
        line.offset + idStart + digits.length,
      );
    const call = CALL.exec(text.slice(callStart));
    const end = text.trimEnd().length;
    if (call === null)
      throw new SourceProblem(
        "invalid-plan",
        `expected Tool[input] after "#E${digits} ="`,
        line.offset + callStart,
        line.offset + Math.max(callStart + 1, end),
      );
    const tool = call[1]!;
    const inputStart = callStart + call[0].length;
    const close = text.lastIndexOf("]");
    if (close < inputStart)
      throw new SourceProblem(
        "invalid-plan",
        `the input of ${safeText(tool, 40)}[…] is not closed: expected "]"`,
        line.offset + inputStart - 1,
        line.offset + end,
      );
    if (close !== end - 1) throw new SourceProblem("invalid-plan", `unexpected text after "]"`, line.offset + close + 1, line.offset + end);
    if (!conversion.roomForStep(line)) return undefined;
    const raw = text.slice(inputStart, close);
    const lead = raw.length - raw.trimStart().length;
    const input = raw.trim();
    const parts: (string | RefPart)[] = [];
    let last = 0;
    for (const match of input.matchAll(EVIDENCE)) {
      const ref = stepNumber(match[1]!);
      const start = line.offset + inputStart + lead + match.index;
      if (ref === undefined)
        throw new SourceProblem("invalid-plan", `step number ${safeText(match[1]!, 30)} is too large`, start, start + match[0].length);
      if (match.index > last) parts.push(input.slice(last, match.index));
      parts.push({ step: ref, start, end: start + match[0].length });
      last = match.index + match[0].length;
    }
    if (last < input.length || parts.length === 0) parts.push(input.slice(last));
    const value = { kind: "string" as const, parts };
    const inputSpan = { start: line.offset + inputStart, end: line.offset + close };
    // An empty input to a tool that declares no input property is a call without arguments.
    const noInput = input === "" && conversion.inputNames(tool)?.length === 0;
    const args = nameArguments(conversion, tool, noInput ? [] : [{ value, ...inputSpan }], [], (message, start, end2) =>
      conversion.problemOn(line, "invalid-plan", message, { pointer: `/steps/${index}`, start, end: end2 }),
    );
    return conversion.acceptCall(line, { id, tool, args }, idStart, digits.length, callStart);
  } catch (error) {
    return conversion.leaveOut(line, error);
  }
}
