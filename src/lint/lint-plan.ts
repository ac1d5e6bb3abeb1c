/**
 * The linter's entry points. Stages: the plan's shape (`readPlan`), options and catalog, the
 * per-step reference checks (with the schema checks), then the graph. Each stage is linear in the
 * plan's size; positions in the text are added last, with one line index and one syntax tree.
 */
import { nestingMessage, nestingPast, parseJsonText } from "../plan/json-text.js";
import { readPlan, type LocatedStep, type ReadPlanResult } from "../plan/plan.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { LineIndex } from "../shared/positions.js";
import type { Range, Span } from "../shared/span.js";
import { ownData } from "../shared/own-data.js";
import { safeText } from "../shared/text.js";
import { checkCycles } from "./check-cycles.js";
import { checkReferences, earlierStep, type StepScanner } from "./check-references.js";
import { SchemaChecker } from "./check-schemas.js";
import { draft, type Draft } from "./draft.js";
import { lintSettings, type EarlierSteps, type LintOptions } from "./lint-options.js";
import { sortByOffset, sortByPointer } from "./order.js";
import { locatePositions } from "./text-positions.js";

/**
 * Lint a plan value (as `JSON.parse` gives it): diagnostics with JSON Pointers and spans inside
 * string values, in document order. Never throws.
 *
 * @example
 * lintPlan({ steps: [{ id: 1, tool: "weather", args: { q: "$2.city" } }] })
 * // [{ code: "unknown-step", severity: "error", step: 1, pointer: "/steps/0/args/q", span: { start: 0, end: 2 }, message: "…" }]
 */
export function lintPlan(plan: unknown, options?: LintOptions): Diagnostic[] {
  try {
    return sortByPointer(plan, collect(readPlan(plan), options)).map((item) => finish(item));
  } catch (error) {
    return [unreadable(error)];
  }
}

/**
 * `lintPlan` for a caller that has already read the plan (`runPlan`), so the plan is not read twice.
 * `read` must be `readPlan(plan)`. `scanStep` scans each step's arguments (by default `scanArgs`), so
 * that a caller can keep what it needs of each scan instead of scanning again. Internal: not exported
 * from the package.
 */
export function lintReadPlan(plan: unknown, read: ReadPlanResult, options?: LintOptions, scanStep?: StepScanner): Diagnostic[] {
  try {
    return sortByPointer(plan, collect(read, options, scanStep)).map((item) => finish(item));
  } catch (error) {
    return [unreadable(error)];
  }
}

/**
 * Lint the text of a plan file: like `lintPlan`, plus `offset` and `range` (1-based lines and
 * columns, end exclusive) on the exact characters in the file, escapes in strings included. Invalid
 * JSON is one `json-syntax` diagnostic. Never throws.
 *
 * @example
 * lintPlanText('{ "steps": [ { "id": 1, "tool": "weather", "args": { "q": "$2.city" } } ] }')[0].range
 * // { start: { line: 1, column: 57 }, end: { line: 1, column: 59 } }
 */
export function lintPlanText(text: string, options?: LintOptions): Diagnostic[] {
  if (typeof text !== "string") return [unreadable(new Error(`lintPlanText needs the text of a plan, not ${typeof text}`))];
  try {
    let value: unknown;
    try {
      // The value from JSON.parse (fast, and a "__proto__" key stays an own key); positions are found
      // afterwards, only for the diagnostics there are.
      value = JSON.parse(text) as unknown;
    } catch {
      const document = parseJsonText(text);
      if (!document.ok) {
        const { offset, length } = document.error;
        const span = { start: offset, end: Math.max(offset, Math.min(text.length, offset + Math.max(length, 1))) };
        return [
          finish(
            draft("json-syntax", "error", `invalid JSON: ${document.error.message}`, { pointer: "" }),
            span,
            document.lines.range(span),
          ),
        ];
      }
      value = document.value;
    }
    // Positions are found by a parser that recurses once per level: a document nested past the limit
    // is one `limit` diagnostic at the bracket that goes too deep (JSON.parse itself copes).
    const deep = nestingPast(text);
    if (deep !== undefined) {
      const span = { start: deep.offset, end: deep.offset + 1 };
      return [finish(draft("limit", "error", nestingMessage(), { pointer: "" }), span, new LineIndex(text).range(span))];
    }
    const drafts = collect(readPlan(value), options);
    if (drafts.length === 0) return [];
    const offsets = locatePositions(text, drafts);
    const lines = new LineIndex(text);
    return sortByOffset(drafts.map((item, i) => finish(item, offsets[i], lines.range(offsets[i]!))));
  } catch (error) {
    return [unreadable(error, true)];
  }
}

/** Every stage, in order; diagnostics come out unsorted. */
function collect(read: ReadPlanResult, options: LintOptions | undefined, scanStep?: StepScanner): Draft[] {
  const out: Draft[] = [];
  for (const problem of read.problems) out.push(draft(problem.code, "error", problem.message, problem));
  const settings = lintSettings(read.plan.options, read.plan.tools, options, out);
  // Steps are numbered once (readPlan keeps each id once); every later stage looks them up here.
  const nodeOf = new Map<number, number>();
  read.steps.forEach((step, node) => nodeOf.set(step.id, node));
  const earlier = earlierOf(options);
  if (earlier !== undefined) reusedIds(read.steps, earlier, out);
  const stepById = (id: number): LocatedStep | undefined => read.steps[nodeOf.get(id) ?? -1] ?? earlierStep(earlier, id);
  const schemas = settings.catalog === undefined ? undefined : new SchemaChecker(settings.catalog, stepById);
  const scan = checkReferences(read.steps, nodeOf, out, {
    options: settings.options,
    schemas,
    scanStep,
    output: read.plan.output,
    earlier,
  });
  checkCycles(read.steps, nodeOf, scan, settings.options, out);
  return out;
}

/** The caller's earlier steps of a session, if given (read once, as own data). */
function earlierOf(options: LintOptions | undefined): EarlierSteps | undefined {
  const earlier = ownData(options, "earlierSteps");
  return typeof earlier === "object" && earlier !== null && ownData(earlier, "kept") instanceof Map ? (earlier as EarlierSteps) : undefined;
}

/** A step of this plan that takes an id an earlier plan of the session used: ids are never reused. */
function reusedIds(steps: readonly LocatedStep[], earlier: EarlierSteps, out: Draft[]): void {
  for (const step of steps) {
    const kept = earlier.kept.get(step.id);
    if (kept === undefined && !earlier.forgotten.has(step.id)) continue;
    const whose =
      kept === undefined
        ? `an earlier plan's step ${step.id}`
        : `step ${step.id} (${safeText(kept.tool, 40)}) of plan ${kept.plan} of this session`;
    out.push(
      draft(
        "duplicate-step-id",
        "error",
        `step id ${step.id} is already ${whose}: ids are never reused in a session; number this plan's steps from ${earlier.nextStepId}`,
        { pointer: `${step.pointer}/id`, step: step.id },
      ),
    );
  }
}

/** The public form: the draft's fields, then the file positions when known. */
function finish(item: Draft, offset?: Span, range?: Range): Diagnostic {
  return {
    code: item.code,
    severity: item.severity,
    message: item.message,
    ...(item.step === undefined ? {} : { step: item.step }),
    pointer: item.pointer,
    ...(item.span === undefined ? {} : { span: item.span }),
    ...(range === undefined ? {} : { range }),
    ...(offset === undefined ? {} : { offset }),
    ...(item.fix === undefined ? {} : { fix: item.fix }),
  };
}

/** The last resort when a hostile value (a throwing Proxy, say) cannot be read at all. */
function unreadable(error: unknown, withPosition = false): Diagnostic {
  const reason = error instanceof Error ? error.message : "unknown error";
  const item = draft("invalid-plan", "error", `the plan could not be read: ${safeText(String(reason), 120)}`, { pointer: "" });
  return withPosition ? finish(item, { start: 0, end: 0 }, { start: { line: 1, column: 1 }, end: { line: 1, column: 1 } }) : finish(item);
}
