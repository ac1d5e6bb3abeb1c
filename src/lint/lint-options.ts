/**
 * The linter's options: the language options of `resolveRefs` (the caller's override the plan's own
 * `options`) and the tool catalog (the caller's, else the plan's inline `tools`).
 */
import { readTools, type PlanOptions, type ToolCatalog } from "../plan/plan.js";
import { RefError } from "../shared/errors.js";
import { normalizeOptions, type NormalizedOptions, type ResolveOptions } from "../shared/options.js";
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
}

/** What the linter works with once options are merged and checked. */
export interface LintSettings {
  readonly options: NormalizedOptions;
  readonly catalog: ToolCatalog | undefined;
}

const OPTION_NAMES = ["syntax", "templates", "strict", "deep", "maxRefLength", "maxSegments", "maxInterpolations", "maxDepth", "maxPlaceholders", "maxOutputLength"] as const;

/**
 * Merge the plan's options under the caller's (an `undefined` caller option does not override) and
 * pick the catalog. Bad caller options become `invalid-options` diagnostics and the defaults are used.
 *
 * @example
 * lintSettings({ syntax: "path" }, undefined, { syntax: undefined, deep: true }, []).options // syntax "path", deep true
 */
export function lintSettings(planOptions: PlanOptions | undefined, planTools: ToolCatalog | undefined, options: LintOptions | undefined, out: Draft[]): LintSettings {
  const merged: Record<string, unknown> = { ...planOptions };
  let callerTools: unknown;
  if (options !== undefined && options !== null && typeof options === "object") {
    for (const name of OPTION_NAMES) {
      const descriptor = Object.getOwnPropertyDescriptor(options, name);
      if (descriptor !== undefined && "value" in descriptor && descriptor.value !== undefined) merged[name] = descriptor.value;
    }
    const tools = Object.getOwnPropertyDescriptor(options, "tools");
    callerTools = tools !== undefined && "value" in tools ? tools.value : undefined;
  } else if (options !== undefined) {
    out.push(draft("invalid-options", "error", "lint options must be an object", { pointer: "" }));
  }

  let normalized: NormalizedOptions;
  try {
    normalized = normalizeOptions(merged as ResolveOptions);
  } catch (error) {
    out.push(draft("invalid-options", "error", error instanceof RefError ? error.message : "invalid options", { pointer: "" }));
    normalized = normalizeOptions({ ...planOptions });
  }

  let catalog = planTools;
  if (callerTools !== undefined) {
    catalog = readTools(callerTools, (pointer, message) => {
      out.push(draft("invalid-options", "error", `options.tools${pointer}: ${message}`, { pointer: "" }));
    }, "");
  }
  return { options: normalized, catalog };
}
