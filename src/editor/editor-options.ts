/**
 * The editor functions' options: the language options of the plan (the caller's override the plan's
 * own `options`) and the tool catalog (the caller's, else the plan's inline `tools`). Bad values never
 * make an editor function throw: each falls back to the plan's value, then to the default.
 */
import type { ToolCatalog } from "../plan/plan.js";
import { layerOptions, type NormalizedOptions, type SyntaxOptions } from "../shared/options.js";
import { ownData } from "../shared/own-data.js";

/** Options of the editor functions. */
export interface EditorOptions extends SyntaxOptions {
  /** The tool catalog (tool name to `{ description, input, output }`); overrides the plan's inline `tools`. */
  readonly tools?: ToolCatalog | undefined;
  /** Placeholders nested inside objects and arrays count too (as with `resolveRefs`' `deep`). */
  readonly deep?: boolean | undefined;
}

/**
 * The language options of an editor function: the caller's layered over the plan's by the rule every
 * entry point shares (`layerOptions`). A bad value is ignored (the plan's value or the default
 * stands) and never makes an editor function throw; the linter reports it as `invalid-options`.
 *
 * @example
 * editorLanguage({ syntax: "path" }, { templates: true }).syntax // "path"
 * editorLanguage(undefined, { syntax: "oops" }).syntax          // "seed"
 */
export function editorLanguage(planOptions: unknown, options: unknown): NormalizedOptions {
  return layerOptions(planOptions, options).options;
}

/**
 * The caller's catalog, when the options carry one.
 *
 * @example
 * callerTools({ tools: { geocode: {} } }) // { geocode: {} }
 */
export function callerTools(options: unknown): unknown {
  return ownData(options, "tools");
}
