/**
 * The editor functions' options: the language options of the plan (the caller's override the plan's
 * own `options`) and the tool catalog (the caller's, else the plan's inline `tools`). Bad values never
 * make an editor function throw: they fall back to the plan's options, then to the defaults.
 */
import type { ToolCatalog } from "../plan/plan.js";
import { normalizeOptions, type NormalizedOptions, type SyntaxOptions } from "../shared/options.js";

/** Options of the editor functions. */
export interface EditorOptions extends SyntaxOptions {
  /** The tool catalog (tool name to `{ description, input, output }`); overrides the plan's inline `tools`. */
  readonly tools?: ToolCatalog | undefined;
  /** Placeholders nested inside objects and arrays count too (as with `resolveRefs`' `deep`). */
  readonly deep?: boolean | undefined;
}

const OPTION_NAMES = ["syntax", "templates", "strict", "deep", "maxRefLength", "maxSegments", "maxInterpolations"] as const;

/**
 * An own data property of a value that may be anything (getters are never called).
 *
 * @example
 * ownData({ a: 1 }, "a")        // 1
 * ownData({ a: 1 }, "toString") // undefined
 */
export function ownData(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null) return undefined;
  const descriptor = Object.getOwnPropertyDescriptor(value, key);
  return descriptor !== undefined && "value" in descriptor ? descriptor.value : undefined;
}

/**
 * Merge option layers (later ones win where they set a value) and normalize them; a layer that does
 * not normalize is dropped, so the result is always usable.
 *
 * @example
 * mergeOptions({ syntax: "path" }, { templates: true }).syntax // "path"
 * mergeOptions({ syntax: "oops" }).syntax                      // "seed"
 */
export function mergeOptions(...layers: unknown[]): NormalizedOptions {
  let merged: Record<string, unknown> = {};
  let result = normalizeOptions(undefined);
  for (const layer of layers) {
    const next: Record<string, unknown> = { ...merged };
    for (const name of OPTION_NAMES) {
      const value = ownData(layer, name);
      if (value !== undefined) next[name] = value;
    }
    try {
      result = normalizeOptions(next);
      merged = next;
    } catch {
      // A bad layer is ignored; the layers before it stand.
    }
  }
  return result;
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
