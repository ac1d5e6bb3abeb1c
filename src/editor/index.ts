/**
 * `plan-refs/editor`: editor features for plan documents as pure functions, for any editor or web UI
 * (the language server in `lsp-server.ts` is built on them). Every function takes the document text
 * and 0-based UTF-16 offsets, never throws, and tolerates half-typed text.
 */
export { tokenize, type Token, type TokenKind } from "./tokens.js";
export { TOKEN_KINDS } from "./lexer.js";
export { documentTokens, type DocumentToken } from "./document-tokens.js";
export { completionsAt, type CompletionItem } from "./completion.js";
export { hoverAt, type Hover } from "./hover.js";
export { definitionAt, referencesTo, stepAt, type StepAt } from "./definition.js";
export { applyTextEdits, renameStep, type TextEdit } from "./rename.js";
export type { EditorOptions } from "./editor-options.js";
export type { Span } from "../shared/span.js";
export type { SyntaxOptions } from "../shared/options.js";
export type { ToolCatalog, ToolSpec, JsonSchema } from "../plan/plan.js";
export { fixesOf, quickFixes, type QuickFix } from "./quick-fixes.js";
