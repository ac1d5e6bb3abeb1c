/**
 * Classification: how the resolver sees a string (a literal, a placeholder or template with its AST,
 * or an error), decided from one parse per string and syntax mode, cached (parse-cache.ts), with the
 * options that do not change parsing (`strict`, the limits) applied on every use.
 */
import { RefSyntaxError, withoutStack } from "../shared/errors.js";
import type { NormalizedOptions } from "../shared/options.js";
import type { RefAst } from "./ast.js";
import type { Classification, Outcome } from "./outcome.js";
import { freezeAst } from "./freeze.js";
import { pathLanguage, runRule, seedLanguage, type RefLanguage } from "./language.js";
import { countInterpolations, countSegments, lengthLimitError, mightBeRef, overLimit } from "./limits.js";
import { admit, cacheable, cachedOutcome } from "./parse-cache.js";
import { scanPlaceholder } from "./scanner.js";
import { DOLLAR, isDigit } from "./tokens.js";

export type { Classification, Outcome } from "./outcome.js";

const LITERAL: Classification = Object.freeze({ kind: "literal" });

const LITERAL_OUTCOME: Outcome = Object.freeze({ kind: "literal" });

/** The grammar of the syntax mode of `options`. */
export function languageOf(options: NormalizedOptions): RefLanguage {
  return options.syntax === "path" ? pathLanguage : seedLanguage;
}

/**
 * Classify a string the way `resolveRefs` does, with options already normalized. Fast for the common
 * case: a string that cannot be a placeholder or template is recognized without parsing, and a string
 * seen before is looked up in the bounded cache.
 *
 * @example
 * classifyString("$1.city", normalizeOptions(undefined)).kind // "ref"
 * classifyString("$5 off", normalizeOptions(undefined)).kind  // "literal"
 */
export function classifyString(text: string, options: NormalizedOptions): Classification {
  return classify(text, options, options.strict);
}

/** `classifyString` with `strict` given apart from the options (so callers need not copy them). */
export function classify(text: string, options: NormalizedOptions, strict: boolean): Classification {
  const startsWithDollar = text.charCodeAt(0) === DOLLAR;
  if (!startsWithDollar && !(options.templates && text.includes("${"))) return LITERAL;
  if (startsWithDollar && !options.templates && !isDigit(text.charCodeAt(1))) return LITERAL;
  // An over-long string is refused only if it could be a placeholder or template; other text (`$5 off …`) passes.
  if (text.length > options.maxRefLength && mightBeRef(text, options))
    return { kind: "error", error: lengthLimitError(text, options.maxRefLength, "placeholder") };
  const mode = (options.syntax === "path" ? 2 : 0) + (options.templates ? 1 : 0);
  let outcome: Outcome | undefined;
  if (!cacheable(text)) {
    outcome = parseOutcome(text, options);
  } else {
    outcome = cachedOutcome(text, mode);
    if (outcome === undefined) {
      outcome = parseOutcome(text, options);
      const cheap = outcome.kind === "literal" || (outcome.kind === "ref" && outcome.cheap);
      // Cached ASTs are shared by every later caller: frozen, so no caller can change another's.
      if (admit(text, mode, outcome, cheap) && outcome.kind === "ref" && outcome.classification.kind === "ref") {
        freezeAst(outcome.classification.ast);
        Object.freeze(outcome.classification);
      }
    }
  }
  switch (outcome.kind) {
    case "ref": {
      const limit = overLimit(outcome.segments, outcome.interpolations, text, options);
      return limit === undefined ? outcome.classification : { kind: "error", error: limit };
    }
    case "literal":
      return LITERAL;
    case "invalid":
      return outcome.classification;
    case "not-placeholder":
      if (!strict) return LITERAL;
      outcome.strictError ??= {
        kind: "error",
        error: withoutStack(() => new RefSyntaxError(outcome.text, outcome.offset, outcome.expected)),
      };
      return outcome.strictError;
  }
}

/** Parse `text` in the syntax mode of `options` (strict and maxSegments aside). */
function parseOutcome(text: string, options: NormalizedOptions): Outcome {
  const isTemplate = options.templates && (text.startsWith("$$") || text.includes("${"));
  if (isDigit(text.charCodeAt(1)) && text.charCodeAt(0) === DOLLAR) {
    const scanned = scanPlaceholder(text, options.syntax);
    if (scanned !== undefined) return refOutcome(scanned, true);
    // Not a placeholder: the grammar says where and why (the scanner reports nothing).
    const parsed = runRule(languageOf(options).placeholder, text);
    if (parsed.ok) return refOutcome(parsed.value, false);
    if (!isTemplate) return { kind: "not-placeholder", text, offset: parsed.offset, expected: parsed.expected };
  } else if (!isTemplate) {
    return LITERAL_OUTCOME;
  }
  const parsed = runRule(languageOf(options).template, text);
  if (!parsed.ok)
    return {
      kind: "invalid",
      classification: { kind: "error", error: withoutStack(() => new RefSyntaxError(text, parsed.offset, parsed.expected)) },
    };
  return refOutcome(parsed.value, false);
}

function refOutcome(ast: RefAst, cheap: boolean): Outcome {
  return {
    kind: "ref",
    segments: countSegments(ast),
    interpolations: countInterpolations(ast),
    classification: { kind: "ref", ast },
    cheap,
  };
}
