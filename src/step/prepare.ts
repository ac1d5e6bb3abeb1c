/**
 * Preparing steps to run: each step's arguments are snapshotted (snapshot.ts), the placeholders in the
 * snapshot are found once by `scanArgs` (the linter's scan: the same grammar and the same rules about
 * where a placeholder counts as `resolveRefs`), and from that one scan come the steps it depends on
 * (for the scheduler) and whether its placeholders can be resolved straight into the snapshot, the
 * run's own copy, instead of walking and copying the arguments again.
 */
import { referencedStepIds } from "../grammar/ast.js";
import { classifyString } from "../grammar/classify.js";
import type { StepScanner } from "../lint/check-references.js";
import { lintReadPlan } from "../lint/lint-plan.js";
import type { EarlierSteps } from "../lint/lint-options.js";
import type { LocatedStep, ReadPlanResult, ToolCatalog } from "../plan/plan.js";
import { scanArgs, scanSnapshot, type ArgScan } from "../plan/references.js";
import { stackLimit, type Results } from "../resolve/access.js";
import { callContext, type EvaluationContext } from "../resolve/evaluate.js";
import { evaluatePlaceholder, resolveRefs } from "../resolve/resolve-refs.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { asRefError, RefError } from "../shared/errors.js";
import { defineOwn } from "../shared/own-data.js";
import { layeredOptions, normalizeOptions, sameOptionValues, type NormalizedOptions } from "../shared/options.js";
import { ArgsSnapshotter } from "./snapshot.js";

const NONE: readonly number[] = Object.freeze([]);

/** `PreparedStep.placeholders` of a step whose snapshot is resolved by `resolveRefs` itself. */
export const THROUGH_RESOLVE_REFS = -1;

/**
 * A step ready to be scheduled: the steps it depends on (or why its arguments could not be read), and
 * how many placeholders `resolveSnapshot` resolves in its snapshot, in place, or `THROUGH_RESOLVE_REFS`
 * where only `resolveRefs`
 * itself gives the same answer: with `deep` (the walk's rules decide nested values too), a top-level
 * getter, a string the resolver refuses, more placeholders than `maxPlaceholders`, arguments
 * without `Object.prototype` (resolveRefs returns a plain object), or arguments that contain themselves.
 */
export interface PreparedStep {
  /** The steps it depends on (none when its arguments could not be read). */
  readonly dependencies: readonly number[];
  /** Why its arguments could not be read (a Proxy trap threw): the step fails when it is added. */
  readonly unreadable?: RefError;
  readonly placeholders: number;
}

/** What preparing a whole plan gives: the linter's diagnostics, and for each of `read.steps` (by position) what `PreparedStep` says. */
export interface PreparedPlan {
  readonly diagnostics: Diagnostic[];
  /** The run's copy of the plan's `output` (linted as that copy), or why it could not be read. */
  readonly output?: Readonly<Record<string, unknown>> | RefError;
  readonly dependencies: (readonly number[])[];
  /** By position in `read.steps`: the steps whose arguments could not be read, and why. */
  readonly unreadable: ReadonlyMap<number, RefError>;
  /** Each step's `PreparedStep.placeholders`. */
  readonly placeholders: Int32Array;
  /** 1 where a step's snapshot holds own data properties only (no accessor anywhere in it): it may be read directly. */
  readonly ownDataOnly: Uint8Array;
  /** Every step's snapshot is flat (`ArgsSnapshotter.flat`), or could not be read (then it is `{}`). */
  readonly flat: boolean;
}

/**
 * Prepare a whole plan: snapshot every step's arguments (each step's `args` is replaced by its copy:
 * `read` is the caller's own, from `readPlan`), lint the plan on the copies, and take from the
 * linter's scan of each step what it depends on and whether it can be resolved in place. Arguments that cannot be read (a Proxy trap throws)
 * become empty ones, with no dependencies, and their `RefError` is in `unreadable`.
 *
 * @example
 * const read = readPlan(plan);
 * const prepared = preparePlan(plan, read, normalizeOptions(undefined), undefined);
 * prepared.dependencies[1] // [0]: step 1 reads "$0.city"
 */
export function preparePlan(
  plan: unknown,
  read: ReadPlanResult,
  language: NormalizedOptions,
  catalog: ToolCatalog | undefined,
  earlierSteps?: EarlierSteps,
): PreparedPlan {
  const steps = read.steps;
  const snapshots = new ArgsSnapshotter();
  const placeholders = new Int32Array(steps.length).fill(THROUGH_RESOLVE_REFS);
  const ownDataOnly = new Uint8Array(steps.length);
  const dependencies = new Array<readonly number[]>(steps.length);
  const unreadableAt = new Map<number, RefError>();
  let flat = true;
  for (let i = 0; i < steps.length; i++) {
    const unreadable = snapshot(steps[i]!, snapshots);
    if (unreadable !== undefined) {
      dependencies[i] = NONE;
      unreadableAt.set(i, unreadable);
      continue;
    }
    if (!snapshots.flat) flat = false;
    if (snapshots.inPlace) placeholders[i] = 0;
    if (snapshots.ownDataOnly) ownDataOnly[i] = 1;
  }
  const output = read.plan.output === undefined ? undefined : snapshotOutput(read, snapshots);
  // Snapshots first: the linter checks, and the run runs, the same arguments. The linter scans each
  // snapshot once, with this scanner, which keeps what the run needs of the scan as it is made (kept
  // until the end, 10,000 scans would outlive the young generation).
  const scanned = new Uint8Array(steps.length);
  const scanStep: StepScanner = (i, args, options) => {
    const scan = ownDataOnly[i] === 1 ? scanSnapshot(args, options) : scanArgs(args, options);
    scanned[i] = 1;
    // An unreadable step's args are `{}`: no dependencies, as it already has, and it stays THROUGH_RESOLVE_REFS.
    dependencies[i] = dependenciesOf(scan);
    if (placeholders[i] === 0) placeholders[i] = inPlaceCount(scan, language);
    return scan;
  };
  const diagnostics = lintReadPlan(
    plan,
    read,
    { ...language, ...(catalog === undefined ? {} : { tools: catalog }), ...(earlierSteps === undefined ? {} : { earlierSteps }) },
    scanStep,
  );
  // The linter scans every step unless it could not read the plan at all (then it reports an error, and nothing runs).
  for (let i = 0; i < steps.length; i++) if (scanned[i] === 0) scanStep(i, steps[i]!.args, language);
  return {
    diagnostics,
    dependencies,
    unreadable: unreadableAt,
    placeholders,
    ownDataOnly,
    flat,
    ...(output === undefined ? {} : { output }),
  };
}

/** Replace the plan's output with its snapshot (an empty one, when it cannot be read: then the `RefError`). */
function snapshotOutput(read: ReadPlanResult, snapshots: ArgsSnapshotter): Readonly<Record<string, unknown>> | RefError {
  let copy: Record<string, unknown> = {};
  let unreadable: RefError | undefined;
  try {
    copy = snapshots.take(read.plan.output!);
  } catch (thrown) {
    unreadable = asRefError(thrown, "the plan's output");
  }
  (read.plan as { output?: Readonly<Record<string, unknown>> }).output = copy;
  return unreadable ?? copy;
}

/**
 * Prepare one step of a streamed plan (not linted as a whole): its snapshot, and from a scan of it
 * the steps it depends on and its sites.
 *
 * @example
 * prepareStep(step, normalizeOptions(undefined), new ArgsSnapshotter()).dependencies // [1]
 */
export function prepareStep(step: LocatedStep, language: NormalizedOptions, snapshots: ArgsSnapshotter): PreparedStep {
  const unreadable = snapshot(step, snapshots);
  if (unreadable !== undefined) return { dependencies: NONE, unreadable, placeholders: THROUGH_RESOLVE_REFS };
  const scan = snapshots.ownDataOnly ? scanSnapshot(step.args, language) : scanArgs(step.args, language);
  return { dependencies: dependenciesOf(scan), placeholders: snapshots.inPlace ? inPlaceCount(scan, language) : THROUGH_RESOLVE_REFS };
}

/** Replace a step's arguments with their snapshot; the `RefError` if they cannot be read (then they become `{}`). */
function snapshot(step: LocatedStep, snapshots: ArgsSnapshotter): RefError | undefined {
  let args: Record<string, unknown>;
  let unreadable: RefError | undefined;
  try {
    args = snapshots.take(step.args);
  } catch (thrown) {
    args = {};
    unreadable = asRefError(thrown, `the arguments of step ${step.id}`);
  }
  (step as { args: Readonly<Record<string, unknown>> }).args = args;
  return unreadable;
}

/**
 * The step ids a scan's placeholders reference, each once, in order of appearance. A step with one
 * placeholder gets that placeholder's own frozen list (shared by every step that writes it).
 */
export function dependenciesOf(scan: ArgScan): readonly number[] {
  const refs = scan.refs;
  if (refs.length === 0) return NONE;
  const first = referencedStepIds(refs[0]!.ast);
  let ids: number[] | undefined;
  let seen: Set<number> | undefined;
  for (let r = 1; r < refs.length; r++) {
    const more = referencedStepIds(refs[r]!.ast);
    for (let i = 0; i < more.length; i++) {
      const id = more[i]!;
      if (ids === undefined) {
        if (first.includes(id)) continue;
        ids = [...first];
      } else if (seen !== undefined ? seen.has(id) : ids.includes(id)) {
        continue;
      }
      ids.push(id);
      if (seen === undefined && ids.length > 16) seen = new Set(ids);
      else seen?.add(id);
    }
  }
  return ids ?? first;
}

/** How many placeholders `resolveSnapshot` resolves for arguments with this scan, if it gives what `resolveRefs` gives (see `PreparedStep`). */
function inPlaceCount(scan: ArgScan, options: NormalizedOptions): number {
  if (options.deep || scan.refs.length > options.maxPlaceholders) return THROUGH_RESOLVE_REFS;
  // The scan is strict: of the strings it calls malformed, those the resolver refuses too are left to resolveRefs' error.
  for (const bad of scan.malformed) if (classifyString(bad.text, options).kind === "error") return THROUGH_RESOLVE_REFS;
  return scan.refs.length;
}

/**
 * Resolve a snapshot's placeholders in place, as `resolveRefs(snapshot, results, options)` would
 * resolve them (same values, same first error with the same `arg`), for a step prepared with
 * `placeholders` ≥ 0 (that many). Only for a snapshot, the run's own copy: it is changed, and returned.
 *
 * @example
 * const step = { id: 1, tool: "weather", args: { q: "$0.city", units: "metric" }, index: 0, pointer: "/steps/0" };
 * const options = normalizeOptions(undefined);
 * const { placeholders } = prepareStep(step, options, new ArgsSnapshotter()); // 1
 * resolveSnapshot(step.args, placeholders, new Map([[0, { city: "Paris" }]]), options, callContext(options));
 * // step.args: { q: "Paris", units: "metric" }
 */
export function resolveSnapshot(
  copy: Record<string, unknown>,
  placeholders: number,
  results: Results,
  options: NormalizedOptions,
  context: EvaluationContext,
): Record<string, unknown> {
  if (placeholders === 0) return copy;
  // One context for the run: its step memo is this step's (results do not change while one step is resolved).
  context.stepId = context.stepValue = undefined;
  // Top-level strings only (no `deep`), all of them own data (no getter), none the resolver refuses, at
  // most maxPlaceholders placeholders: what `placeholders` ≥ 0 promised. Each string was classified
  // before, so classifying it again is a lookup in the parse cache; the walk stops after the last one.
  try {
    const keys = Object.keys(copy);
    let left = placeholders;
    for (let i = 0; i < keys.length && left > 0; i++) {
      const key = keys[i]!;
      const text = copy[key];
      if (typeof text !== "string") continue;
      const classified = classifyString(text, options);
      if (classified.kind !== "ref") continue;
      left--;
      defineOwn(copy, key, evaluatePlaceholder(classified.ast, text, results, context, "", key));
    }
  } catch (error) {
    throw stackLimit(error);
  }
  return copy;
}

const DEFAULT_LANGUAGE = normalizeOptions(undefined);

/**
 * A run's language options as its steps use them, set once per run (not per step): the caller's over
 * the plan's, what `resolveRefs` is given (`undefined` for the defaults: its fast path), the
 * evaluator's context for resolving a snapshot in place, and the snapshotter of streamed steps.
 *
 * @example
 * const language = new RunLanguage();
 * language.layer(plan.options, callerOptions);
 * const args = language.resolve(snapshot, placeholders, results);
 */
export class RunLanguage {
  options: NormalizedOptions = DEFAULT_LANGUAGE;
  #resolveOptions: NormalizedOptions | undefined;
  /** What the evaluator is told while resolving a snapshot in place (one object per run). */
  #evaluation: EvaluationContext = callContext(DEFAULT_LANGUAGE);
  /** Copies streamed steps' arguments (a whole plan's are copied by `preparePlan`). */
  #snapshots: ArgsSnapshotter | undefined;

  /** The caller's options over the plan's own. */
  layer(planOptions: object | undefined, callerOptions: Readonly<Record<string, unknown>>): void {
    this.options = layeredOptions(planOptions, callerOptions);
    this.#resolveOptions = this.options === DEFAULT_LANGUAGE || sameOptionValues(this.options, DEFAULT_LANGUAGE) ? undefined : this.options;
    this.#evaluation = callContext(this.options);
  }

  /** A streamed step, snapshotted and scanned on its own. */
  prepareStreamed(step: LocatedStep): PreparedStep {
    return prepareStep(step, this.options, (this.#snapshots ??= new ArgsSnapshotter()));
  }

  /**
   * A step's arguments: its placeholders resolved into a copy of its snapshot's top level (the snapshot
   * stays as it was linted, for the plan's hash), unless only resolveRefs can say what they give (it
   * makes its own copy).
   */
  resolve(snapshot: Record<string, unknown>, placeholders: number, results: Results): Record<string, unknown> {
    return placeholders === THROUGH_RESOLVE_REFS
      ? resolveRefs(snapshot, results, this.#resolveOptions)
      : resolveSnapshot({ ...snapshot }, placeholders, results, this.options, this.#evaluation);
  }
}
