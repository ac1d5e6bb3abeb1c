/**
 * The extension's options live in editor state, so a new tool catalog (or new language options) is
 * one transaction away and every feature — highlighting, lint, completion, hover — reads the same value.
 */
import { StateEffect, StateField, type EditorState } from "@codemirror/state";
import type { ToolCatalog } from "../plan/plan.js";
import type { Syntax } from "../shared/options.js";

/** Options of `planRefs`. Anything left out falls back to the plan document's own `options` and `tools`. */
export interface PlanRefsOptions {
  /** The tool catalog (tool name to `{ description, input, output }` JSON Schemas); overrides the plan's inline `tools`. */
  readonly tools?: ToolCatalog | undefined;
  readonly syntax?: Syntax | undefined;
  readonly templates?: boolean | undefined;
  readonly deep?: boolean | undefined;
}

/**
 * Replace the tool catalog of a running editor (`undefined` goes back to the plan's inline `tools`).
 *
 * @example
 * view.dispatch({ effects: setPlanRefsTools.of(newCatalog) })
 */
export const setPlanRefsTools = StateEffect.define<ToolCatalog | undefined>();

/**
 * Replace all options of a running editor at once (tools included).
 *
 * @example
 * view.dispatch({ effects: setPlanRefsOptions.of({ syntax: "path", templates: true, tools }) })
 */
export const setPlanRefsOptions = StateEffect.define<PlanRefsOptions>();

/**
 * The current options; `planRefs` seeds it with the options it was given.
 *
 * @example
 * view.state.field(planRefsConfig).tools
 */
export const planRefsConfig = StateField.define<PlanRefsOptions>({
  create: () => ({}),
  update(value, tr) {
    for (const effect of tr.effects) {
      if (effect.is(setPlanRefsOptions)) value = effect.value;
      else if (effect.is(setPlanRefsTools)) value = { ...value, tools: effect.value };
    }
    return value;
  },
});

/**
 * Whether a transaction's effects change the options (so lint and decorations must be recomputed).
 *
 * @example
 * update.transactions.some((tr) => changesOptions(tr.effects))
 */
export function changesOptions(effects: readonly StateEffect<unknown>[]): boolean {
  return effects.some((effect) => effect.is(setPlanRefsTools) || effect.is(setPlanRefsOptions));
}

/**
 * The options as the editor and lint functions take them: keys that are `undefined` are left out,
 * so they do not hide the plan's own settings.
 *
 * @example
 * completionsAt(state.doc.toString(), pos, currentOptions(state))
 */
export function currentOptions(state: EditorState): { tools?: ToolCatalog; syntax?: Syntax; templates?: boolean; deep?: boolean } {
  const config = state.field(planRefsConfig, false) ?? {};
  const out: { tools?: ToolCatalog; syntax?: Syntax; templates?: boolean; deep?: boolean } = {};
  if (config.tools !== undefined) out.tools = config.tools;
  if (config.syntax !== undefined) out.syntax = config.syntax;
  if (config.templates !== undefined) out.templates = config.templates;
  if (config.deep !== undefined) out.deep = config.deep;
  return out;
}
