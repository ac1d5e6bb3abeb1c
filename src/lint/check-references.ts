/**
 * The per-step stage of the linter: every placeholder of every step, scanned once with the same
 * grammar and the same rules as `resolveRefs`, checked against the plan's steps (unknown, self,
 * forward, non-canonical), and, with a catalog, against the tools' schemas. It also collects the
 * dependency edges for the cycle stage, so nothing rescans the plan.
 */
import { assertNever, type Expression, type ReferenceNode, type RefAst } from "../grammar/ast.js";
import { classifyString, tryParseRef } from "../grammar/parse.js";
import type { DenseGraph } from "../plan/graph.js";
import { OUTPUT_POINTER, type LocatedStep } from "../plan/plan.js";
import { scanArgs, type ArgScan, type MalformedArg } from "../plan/references.js";
import { RefSyntaxError } from "../shared/errors.js";
import type { NormalizedOptions } from "../shared/options.js";
import type { Span } from "../shared/span.js";
import { listSome, quoted, safeText } from "../shared/text.js";
import { draft, type Draft } from "./draft.js";
import { checkPathLike } from "./check-path-like.js";
import { didYouMean } from "./did-you-mean.js";
import type { EarlierSteps } from "./lint-options.js";
import { refLabel, type SchemaChecker } from "./check-schemas.js";

/** A reference from one step to another, where it is written. */
export interface Edge {
  readonly from: LocatedStep;
  readonly to: LocatedStep;
  readonly pointer: string;
  readonly span: Span;
}

/** What the per-step stage hands to the cycle stage. */
export interface StepScan {
  /** The references between existing steps (self-references left out: they are reported on their own). */
  readonly graph: DenseGraph;
  /** References to later steps, reported unless they are part of a cycle. */
  readonly forward: readonly Edge[];
}

/** A reference in a placeholder, and whether a `??` default catches its `KeyError`. */
export interface ReferenceSite {
  readonly node: ReferenceNode;
  readonly guarded: boolean;
}

/**
 * Every reference of an AST in source order, each marked `guarded` when it is the left side of a
 * `??` (a missing step or key there falls back instead of throwing).
 *
 * @example
 * referenceSites(parseRef("$1.a ?? $2.a", { syntax: "path" })).map((s) => s.guarded) // [true, false]
 */
export function referenceSites(ast: RefAst): ReferenceSite[] {
  if (ast.type === "reference") return [{ node: ast, guarded: false }];
  const sites: ReferenceSite[] = [];
  const expression = (node: Expression, guarded: boolean): void => {
    // Defaults nest to the right (`a ?? (b ?? c)`): a loop, not recursion.
    let current: Expression | { type: "literal" } = node;
    for (;;) {
      if (current.type === "reference") {
        sites.push({ node: current, guarded });
        return;
      }
      if (current.type === "literal") return;
      sites.push({ node: current.reference, guarded: true });
      current = current.fallback;
    }
  };
  switch (ast.type) {
    case "default":
      expression(ast, false);
      break;
    case "template":
      for (const part of ast.parts) if (part.type === "interpolation") expression(part.expression, false);
      break;
    default:
      assertNever(ast);
  }
  return sites;
}

/**
 * How the per-step stage scans a step's arguments: `scanArgs` unless a caller that made the arguments
 * itself knows more (the runner scans its own snapshots, reads them directly, and keeps what it needs
 * of each scan for scheduling). `position` is the step's place in the plan's steps.
 */
export type StepScanner = (position: number, args: Readonly<Record<string, unknown>>, options: NormalizedOptions) => ArgScan;

const scanEach: StepScanner = (_position, args, options) => scanArgs(args, options);

/** What the per-step checks read besides the steps. */
export interface ReferenceChecks {
  readonly options: NormalizedOptions;
  /** The tools' schemas, when the caller has a catalog. */
  readonly schemas?: SchemaChecker | undefined;
  /** How each step's arguments are scanned (default: `scanArgs`). */
  readonly scanStep?: StepScanner | undefined;
  /** The plan's output, whose references are checked too. */
  readonly output?: Readonly<Record<string, unknown>> | undefined;
  /** The steps of the session's earlier plans, which references may name. */
  readonly earlier?: EarlierSteps | undefined;
}

/**
 * Run the per-step checks, pushing diagnostics to `out`; returns the edges for the cycle stage. Each
 * step's arguments are scanned once, with `scanStep`.
 *
 * @example
 * const out: Draft[] = [];
 * const scan = checkReferences(read.steps, nodeOf, out, { options: normalizeOptions({}) });
 */
export function checkReferences(
  steps: readonly LocatedStep[],
  nodeOf: ReadonlyMap<number, number>,
  out: Draft[],
  { options, schemas, scanStep = scanEach, output, earlier }: ReferenceChecks,
): StepScan {
  // The graph is built here, densely numbered, as the references are found: no per-step sets or maps.
  const offsets = new Int32Array(steps.length + 1);
  const targets: number[] = [];
  const lastAdder = new Int32Array(steps.length).fill(-1);
  const forward: Edge[] = [];
  let knownIds: string | undefined;
  let ids: string[] | undefined;
  const idTexts = (): string[] => (ids ??= steps.map((step) => String(step.id)));
  const describeIds = (): string =>
    (knownIds ??= steps.length === 0 ? "the plan has no steps" : `steps: ${listSome(steps.map((step) => String(step.id)))}`);

  // One reference of step `position` (or of the plan's output: `step` undefined, after every step and
  // in no edge of the graph), written in the string `text` at `pointer`.
  const checkSite = (
    position: number,
    step: LocatedStep | undefined,
    text: string,
    pointer: string,
    node: ReferenceNode,
    guarded: boolean,
  ): void => {
    const where = (span: Span): { pointer: string; step: number | undefined; span: Span } => ({ pointer, step: step?.id, span });
    const stepSpan = (): Span => ({ start: node.span.start, end: node.step.span.end });
    if (node.step.digits !== node.step.id) {
      out.push(
        draft(
          "non-canonical-step",
          "warning",
          `step number ${quoted(node.step.digits, 30)} has leading zeros; write ${safeText(node.step.id, 30)} (it is the same step)`,
          { ...where(node.step.span), fix: { replace: node.step.id } },
        ),
      );
    }
    const id = Number(node.step.id);
    const targetNode = Number.isSafeInteger(id) ? nodeOf.get(id) : undefined;
    const target = targetNode === undefined ? undefined : steps[targetNode];
    if ((target === undefined || targetNode === undefined) && earlier !== undefined) {
      // A step of an earlier plan of the session: done before this plan, checked as any other.
      const before = Number.isSafeInteger(id) ? earlierStep(earlier, id) : undefined;
      if (before !== undefined) {
        const reported = schemas?.checkPath(text, node, guarded, before, { pointer, step: step?.id }, out) ?? false;
        if (!reported) checkPathLike(text, node, before, schemas, { pointer, step: step?.id }, out);
        return;
      }
      const why = Number.isSafeInteger(id) ? earlier.forgotten.get(id) : undefined;
      if (why !== undefined) {
        out.push(
          draft(
            "unknown-step",
            guarded ? "warning" : "error",
            `${refLabel(text, node)} refers to step ${safeText(node.step.id, 30)} of an earlier plan, but ${safeText(why, 200)}${guarded ? "; the ?? default is always used" : ""}`,
            { pointer, step: step?.id, span: stepSpan() },
          ),
        );
        return;
      }
    }
    if (target === undefined || targetNode === undefined) {
      const fallback = guarded ? "; the ?? default is always used" : "";
      // A close id (a transposition or a slip in a number of two digits or more) is suggested.
      const close = node.step.id.length >= 2 ? didYouMean(node.step.id, idTexts()) : undefined;
      const hint = close === undefined ? "" : `; did you mean step ${close}?`;
      const span = stepSpan();
      const fix = close === undefined ? undefined : { replace: text.slice(span.start, node.step.span.start) + close };
      out.push(
        draft(
          "unknown-step",
          guarded ? "warning" : "error",
          `${refLabel(text, node)} refers to step ${safeText(node.step.id, 30)}, which is not in the plan (${describeIds()})${hint}${fallback}`,
          { ...where(span), fix },
        ),
      );
      return;
    }
    if (step !== undefined) {
      if (target.id === step.id) {
        out.push(
          draft(
            "self-ref",
            "error",
            `${refLabel(text, node)} refers to step ${step.id} itself: a step cannot use its own result`,
            where(stepSpan()),
          ),
        );
        return;
      }
      if (lastAdder[targetNode] !== position) {
        lastAdder[targetNode] = position;
        targets.push(targetNode);
        if (target.index > step.index) forward.push({ from: step, to: target, pointer, span: stepSpan() });
      }
    }
    const reported = schemas?.checkPath(text, node, guarded, target, { pointer, step: step?.id }, out) ?? false;
    if (!reported) checkPathLike(text, node, target, schemas, { pointer, step: step?.id }, out);
  };

  // What every scanned value reports besides its references: strings that do not parse, placeholders
  // that stay text, limits.
  const reportScan = (scan: ArgScan, argsPointer: string, step: number | undefined): void => {
    const [nestedWhat, countWhere, them] =
      step === undefined ? ["the output is", "the output", "it"] : ["the arguments are", "one step", "them"];
    for (const bad of scan.malformed) reportMalformed(bad, argsPointer, step, options, out);
    for (const nested of scan.unresolvedNested) {
      out.push(
        draft(
          "nested-placeholder",
          "info",
          `${quoted(nested.text, 40)} is inside a nested object or array, so it is passed on as text: references there are resolved only with the option deep`,
          {
            pointer: argsPointer + nested.pointer,
            step,
          },
        ),
      );
    }
    for (const like of scan.templateLike) reportTemplateLike(like.text, argsPointer + like.pointer, step, options, out);
    if (scan.tooDeep !== undefined) {
      out.push(
        draft("limit", "error", `${nestedWhat} nested deeper than maxDepth (${options.maxDepth}); resolving ${them} fails here`, {
          pointer: argsPointer + scan.tooDeep,
          step,
        }),
      );
    }
    if (scan.refs.length > options.maxPlaceholders) {
      out.push(
        draft(
          "limit",
          "error",
          `${scan.refs.length} placeholders in ${countWhere} is over maxPlaceholders (${options.maxPlaceholders}); resolving them fails`,
          { pointer: argsPointer, step },
        ),
      );
    }
  };

  for (let position = 0; position < steps.length; position++) {
    const step = steps[position]!;
    schemas?.checkTool(step, out);
    const argsPointer = `${step.pointer}/args`;
    const scan = scanStep(position, step.args, options);

    for (const ref of scan.refs) {
      const pointer = argsPointer + ref.pointer;
      // The common case, a bare placeholder, without building a list of sites.
      if (ref.ast.type === "reference") checkSite(position, step, ref.text, pointer, ref.ast, false);
      else for (const { node, guarded } of referenceSites(ref.ast)) checkSite(position, step, ref.text, pointer, node, guarded);
      schemas?.checkType(step, ref.pointer, ref.text, ref.ast, { pointer, step: step.id }, out);
    }

    schemas?.checkArguments(step, scan, options, out);
    reportScan(scan, argsPointer, step.id);
    offsets[position + 1] = targets.length;
  }
  if (output !== undefined) {
    // The output is read when the run ends, after every step: it is checked like arguments, but it is no
    // step (no tool, no self or forward reference) and no edge of the graph.
    const scan = scanArgs(output, options);
    for (const ref of scan.refs) {
      const pointer = OUTPUT_POINTER + ref.pointer;
      for (const { node, guarded } of referenceSites(ref.ast)) checkSite(steps.length, undefined, ref.text, pointer, node, guarded);
    }
    reportScan(scan, OUTPUT_POINTER, undefined);
  }
  return { graph: { ids: steps.map((step) => step.id), offsets, targets: Int32Array.from(targets) }, forward };
}

/** An earlier plan's step as the checks of references see it: its id and tool, done before this plan (index -1, no arguments). */
export function earlierStep(earlier: EarlierSteps | undefined, id: number): LocatedStep | undefined {
  const kept = earlier?.kept.get(id);
  return kept === undefined ? undefined : { id, tool: kept.tool, args: {}, index: -1, pointer: "" };
}

/**
 * Where `from` first references `to` (for the few steps in a cycle, rather than remembering every
 * reference of every step).
 *
 * @example
 * firstReference(step1, 2, normalizeOptions({})) // { pointer: "/steps/0/args/q", span: { start: 0, end: 2 } }
 */
export function firstReference(from: LocatedStep, to: number, options: NormalizedOptions): { pointer: string; span: Span } | undefined {
  for (const ref of scanArgs(from.args, options).refs) {
    for (const { node } of referenceSites(ref.ast)) {
      if (Number(node.step.id) === to)
        return { pointer: `${from.pointer}/args${ref.pointer}`, span: { start: node.span.start, end: node.step.span.end } };
    }
  }
  return undefined;
}

/**
 * A string the strict grammar rejects. It is an error when `resolveRefs` itself would throw (a broken
 * template, strict mode, a limit), a warning when it passes through as text but looks like a
 * reference attempt (`$1.`, `$1 .city`), and nothing when it reads as ordinary text (`$5 off`).
 */
function reportMalformed(bad: MalformedArg, argsPointer: string, step: number | undefined, options: NormalizedOptions, out: Draft[]): void {
  const pointer = argsPointer + bad.pointer;
  const resolverThrows = classifyString(bad.text, options).kind === "error";
  if (bad.error.code === "limit") {
    out.push(draft("limit", "error", bad.error.message, { pointer, step }));
    return;
  }
  if (!resolverThrows && !looksLikeReference(bad.text)) return;
  const span = bad.error instanceof RefSyntaxError ? errorSpan(bad.text, bad.error) : undefined;
  const detail = bad.error instanceof RefSyntaxError ? syntaxDetail(bad.text, bad.error) : bad.error.message;
  const consequence = resolverThrows ? "resolving it throws a RefSyntaxError" : "it is passed on as plain text, not resolved";
  out.push(
    draft(
      "malformed-ref",
      resolverThrows ? "error" : "warning",
      `${quoted(bad.text, 40)} looks like a reference but does not parse (${detail}); ${consequence}`,
      { pointer, step, span },
    ),
  );
}

/** After `$` and the step digits comes a path-like character (after optional spaces): `$1.`, `$1 .city`, `$1[`. */
function looksLikeReference(text: string): boolean {
  return /^\$[0-9]+\s*[.[?{]/.test(text);
}

/** `${1.city}` text while templates are off: it is passed on as it is, braces and all. */
function reportTemplateLike(text: string, pointer: string, step: number | undefined, options: NormalizedOptions, out: Draft[]): void {
  const parsed = tryParseRef(text, {
    syntax: options.syntax,
    templates: true,
    maxRefLength: options.maxRefLength,
    maxSegments: options.maxSegments,
    maxInterpolations: options.maxInterpolations,
  });
  if (parsed.ok) {
    const first = parsed.value.type === "template" ? parsed.value.parts.find((part) => part.type === "interpolation") : undefined;
    out.push(
      draft(
        "templates-off",
        "warning",
        `${quoted(text, 40)} contains \${…} but templates are off, so it is passed on as text; set the option templates to interpolate it`,
        {
          pointer,
          step,
          span: first?.span,
        },
      ),
    );
    return;
  }
  const error = parsed.error;
  if (!(error instanceof RefSyntaxError)) return;
  out.push(
    draft(
      "malformed-ref",
      "warning",
      `${quoted(text, 40)} looks like a template reference but does not parse (${syntaxDetail(text, error)}); it is passed on as plain text`,
      {
        pointer,
        step,
        span: errorSpan(text, error),
      },
    ),
  );
}

function errorSpan(text: string, error: RefSyntaxError): Span {
  const start = Math.min(error.offset, text.length);
  return { start, end: Math.min(start + 1, text.length) };
}

function syntaxDetail(text: string, error: RefSyntaxError): string {
  const found = error.offset >= text.length ? "the end" : quoted(text.slice(error.offset, error.offset + 1));
  const wanted = error.expected.slice(0, 5).map((item) => (item === "EOF" ? "the end" : item.replace(/^'(.*)'$/, "$1")));
  const expected = wanted.length === 0 ? "" : `, expected ${wanted.join(" or ")}`;
  return `at ${found}, offset ${error.offset}${expected}`;
}
