/**
 * The linter's options: the language options of `resolveRefs` (the caller's override the plan's own
 * `options`) and the tool catalog (the caller's, else the plan's inline `tools`).
 */
import { readTools, type PlanOptions, type ToolCatalog } from "../plan/plan.js";
import { layerOptions, type NormalizedOptions, type ResolveOptions } from "../shared/options.js";
import { ownData } from "../shared/own-data.js";
import { draft, type Draft } from "./draft.js";

/**
 * Options of `lintPlan` and `lintPlanText`.
 *
 * @example
 * const options: LintOptions = { tools: { geocode: { output: { type: "object" } } }, syntax: "path" };
 */
export interface LintOptions extends ResolveOptions {
  /** The tool catalog (tool name to `{ description, input, output }` JSON Schemas); overrides the plan's inline `tools`. */
  readonly tools?: ToolCatalog | undefined;
  /**
   * Steps of earlier plans of the same session (`PlanSession.earlier()`): a reference to a kept one is
   * checked as a reference to a step of this plan (keys against its tool's output schema, types), one
   * to a forgotten one is `unknown-step` saying why, and a step that reuses an earlier id is
   * `duplicate-step-id`.
   */
  readonly earlierSteps?: EarlierSteps | undefined;
}

/** Steps of earlier plans of a session, as the linter sees them. */
export interface EarlierSteps {
  /** The steps whose results the session keeps: their tool, and which plan of the session made them (1 for the first). */
  readonly kept: ReadonlyMap<number, { readonly tool: string; readonly plan: number }>;
  /** Steps whose results the session no longer keeps, with why. */
  readonly forgotten: ReadonlyMap<number, string>;
  /** The first id a new plan may use. */
  readonly nextStepId: number;
}

/** What the linter works with once options are merged and checked. */
export interface LintSettings {
  readonly options: NormalizedOptions;
  readonly catalog: ToolCatalog | undefined;
}

/**
 * Layer the caller's options over the plan's (`layerOptions`, the rule every entry point shares) and
 * pick the catalog. Each problem with the options is an `invalid-options` diagnostic; a bad value is
 * ignored (the plan's value or the default stands).
 *
 * @example
 * lintSettings({ syntax: "path" }, undefined, { syntax: undefined, deep: true }, []).options // syntax "path", deep true
 */
export function lintSettings(
  planOptions: PlanOptions | undefined,
  planTools: ToolCatalog | undefined,
  options: LintOptions | undefined,
  out: Draft[],
): LintSettings {
  const { options: normalized, problems } = layerOptions(planOptions, options);
  for (const problem of problems) out.push(draft("invalid-options", "error", problem.message, { pointer: "" }));
  let callerTools: unknown;
  try {
    callerTools = ownData(options, "tools");
  } catch {
    // Options that cannot be read are already a problem above.
  }

  let catalog = planTools;
  if (callerTools !== undefined) {
    catalog = readTools(
      callerTools,
      (pointer, message) => {
        out.push(draft("invalid-options", "error", `options.tools${pointer}: ${message}`, { pointer: "" }));
      },
      "",
    );
  }
  return { options: normalized, catalog };
}
