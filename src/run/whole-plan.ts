/**
 * `runPlan`'s intake of a whole plan: read once, every step's arguments snapshotted, the plan linted on
 * the snapshots, its tools looked up, and its hash made ready (of the snapshots as they were linted: a
 * step's try gets a copy to resolve). All before any step is added, and synchronously: what was read is
 * garbage before the first tool runs, but the snapshots a deferred hash keeps until it is made.
 */
import { readPlan, type LocatedStep } from "../plan/plan.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { deferPlanHash, PlanText } from "../step/plan-hash.js";
import { preparePlan, type PreparedPlan, type RunLanguage } from "../step/prepare.js";
import type { RunTools } from "./run-tools.js";
import type { RunSettings } from "./run-options.js";
import type { EarlierSteps } from "../lint/lint-options.js";

/** A whole plan, read and checked. */
export interface WholePlan {
  /** Its steps, their arguments replaced by their snapshots. */
  readonly steps: readonly LocatedStep[];
  readonly prepared: PreparedPlan;
  /**
   * Its hash (plan-hash.ts), of its own options and its steps as linted: a function that makes it when
   * first called, where nothing can change the snapshots (flat ones) and the runtime hashes
   * synchronously; else its digest, started now (it runs beside the steps).
   */
  readonly hash: Promise<string> | (() => string);
  /** The linter found errors (in `diagnostics`): nothing runs. */
  readonly invalid: boolean;
  /** In a session: the earlier plans' steps whose results it keeps. */
  readonly earlierIds?: ReadonlySet<number>;
}

/**
 * Read, snapshot and lint a whole plan, with the run's language (layered here over the plan's own
 * options) and tools; the diagnostics go to `diagnostics`.
 */
export function readWholePlan(
  plan: unknown,
  language: RunLanguage,
  tools: RunTools,
  settings: RunSettings,
  diagnostics: Diagnostic[],
  earlier?: (ids: readonly number[]) => EarlierSteps,
): WholePlan {
  const read = readPlan(plan);
  const earlierSteps = earlier?.(read.steps.map((step) => step.id));
  const { steps } = read;
  tools.catalog ??= read.plan.tools;
  language.layer(read.plan.options, settings.language);
  // Snapshots first: the linter checks, and the run runs, the same arguments.
  const prepared = preparePlan(plan, read, language.options, tools.catalog, earlierSteps);
  const hash = (prepared.flat ? deferPlanHash(read.plan.options, steps) : undefined) ?? hashNow(read.plan.options, steps, prepared);
  for (const diagnostic of prepared.diagnostics) diagnostics.push(diagnostic);
  tools.lookUpAll(steps, diagnostics);
  const invalid = diagnostics.some((diagnostic) => diagnostic.severity === "error");
  if (!invalid && settings.validateOutputs) for (const step of steps) tools.schemaOf(step.tool, true);
  return { steps, prepared, hash, invalid, ...(earlierSteps === undefined ? {} : { earlierIds: new Set(earlierSteps.kept.keys()) }) };
}

/** The plan's text made now, from the snapshots as linted, and its digest started. */
function hashNow(options: unknown, steps: readonly LocatedStep[], prepared: PreparedPlan): Promise<string> {
  const text = new PlanText(options, steps.length);
  for (let i = 0; i < steps.length; i++) text.add(steps[i]!, prepared.ownDataOnly[i] === 1);
  return text.hash();
}
