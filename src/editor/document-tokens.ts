/**
 * The tokens of every reference string of a plan document, with file offsets: what an editor
 * highlights. Escapes in the JSON string are accounted for (`\u0024` is one `$` token six characters
 * wide).
 */
import type { Span } from "../shared/span.js";
import { fileSpan } from "./cursor.js";
import type { EditorOptions } from "./editor-options.js";
import type { TokenKind } from "./lexer.js";
import { withFallback } from "./guard.js";
import { analyzePlan } from "./plan-document.js";
import { tokensOf } from "./tokens.js";

/** A token of a plan document: file offsets. */
export interface DocumentToken {
  readonly kind: TokenKind;
  readonly span: Span;
}

/**
 * The tokens of every string the resolver reads that is a reference or template (or a malformed
 * one), in document order. Never throws.
 *
 * @example
 * documentTokens('{"steps":[{"id":2,"tool":"t","args":{"q":"$1"}}]}').map((t) => t.kind) // ["dollar", "step"]
 */
export function documentTokens(planText: string, options?: EditorOptions): DocumentToken[] {
  return withFallback("documentTokens", [], () => {
    const document = analyzePlan(planText, options);
    const out: DocumentToken[] = [];
    for (const site of document.sites) {
      if (site.classification.kind === "literal") continue;
      for (const token of tokensOf(site.string.value, document.options)) {
        const span = fileSpan(site, token.span);
        if (span.end > span.start) out.push({ kind: token.kind, span });
      }
    }
    return out;
  });
}
