/**
 * The types of what classifying a string gives, in a file of their own so that the parse cache
 * (which stores outcomes) and the classifier (which uses the cache) do not import each other.
 */
import type { RefError } from "../shared/errors.js";
import type { RefAst } from "./ast.js";

/**
 * How the resolver sees a string: `literal` passes through unchanged, `ref` is resolved, `error` is a
 * string that is not valid where validity is required (strict mode, templates, limits).
 */
export type Classification =
  { readonly kind: "literal" } | { readonly kind: "ref"; readonly ast: RefAst } | { readonly kind: "error"; readonly error: RefError };

/**
 * What parsing a string gave in one syntax mode, before the options that do not change parsing
 * (`strict`, `maxSegments`, `maxInterpolations`) are applied, so one cached parse serves every option set.
 */
export type Outcome =
  /** Not a placeholder nor a template in this mode, whatever `strict` says. */
  | { readonly kind: "literal" }
  /**
   * Parsed; `segments` (of its longest reference) is checked against `maxSegments` and `interpolations`
   * against `maxInterpolations` on every use. `cheap`: the scanner parsed it.
   */
  | {
      readonly kind: "ref";
      readonly segments: number;
      readonly interpolations: number;
      readonly classification: Classification;
      readonly cheap: boolean;
    }
  /** Starts like a placeholder (`$` and a digit) but is not one: literal, or an error under `strict`. */
  | {
      readonly kind: "not-placeholder";
      readonly text: string;
      readonly offset: number;
      readonly expected: readonly string[];
      strictError?: Classification;
    }
  /** An invalid template: always an error. */
  | { readonly kind: "invalid"; readonly classification: Classification };
