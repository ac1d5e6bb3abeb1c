/** Semantic tokens: the editor's `documentTokens` (references inside JSON strings) in standard LSP token types. */
import {
  SemanticTokensBuilder,
  type SemanticTokens,
  type SemanticTokensLegend,
  type SemanticTokensParams,
} from "vscode-languageserver/node";
import { documentTokens } from "../document-tokens.js";
import { TOKEN_KINDS, type TokenKind } from "../lexer.js";
import { isPlan, type ServerContext } from "./context.js";

/**
 * The standard LSP token type each token kind is shown as, so every theme colours references
 * without configuration. A `Record` over `TokenKind`: a new kind does not compile until it is mapped.
 */
const SEMANTIC_TYPES: Readonly<Record<TokenKind, string>> = {
  dollar: "keyword",
  brace: "keyword",
  step: "number",
  index: "number",
  separator: "operator",
  operator: "operator",
  key: "property",
  "quoted-key": "property",
  text: "string",
  literal: "string",
  invalid: "string",
  escape: "regexp",
};

/** The semantic tokens legend: the token types of `SEMANTIC_TYPES`, in `TOKEN_KINDS` order, once each. */
export const SEMANTIC_TOKENS_LEGEND: SemanticTokensLegend = {
  tokenTypes: [...new Set(TOKEN_KINDS.map((kind) => SEMANTIC_TYPES[kind]))],
  tokenModifiers: [],
};

/**
 * The semantic tokens of a whole plan document, in `SEMANTIC_TOKENS_LEGEND`'s types; none for a
 * document that is not a plan.
 *
 * @example
 * connection.languages.semanticTokens.on((params) => context.runHandler("semantic tokens", { data: [] }, () => semanticTokens(context, params)))
 */
export function semanticTokens(context: ServerContext, params: SemanticTokensParams): SemanticTokens {
  const document = context.documents.get(params.textDocument.uri);
  if (document === undefined || !isPlan(context, document)) return { data: [] };
  const builder = new SemanticTokensBuilder();
  for (const token of documentTokens(document.getText(), context.editorOptions(document))) {
    const start = document.positionAt(token.span.start);
    builder.push(
      start.line,
      start.character,
      token.span.end - token.span.start,
      SEMANTIC_TOKENS_LEGEND.tokenTypes.indexOf(SEMANTIC_TYPES[token.kind]),
      0,
    );
  }
  return builder.build();
}
