/** Initialize: the features the server announces to the client. */
import { CodeActionKind, TextDocumentSyncKind, type InitializeResult } from "vscode-languageserver/node";
import { TRIGGER_CHARACTERS } from "./completion.js";
import { SEMANTIC_TOKENS_LEGEND } from "./semantic-tokens.js";

/**
 * The server's answer to `initialize`: incremental sync, and every feature it has a handler for.
 *
 * @example
 * connection.onInitialize(initialize)
 */
export function initialize(): InitializeResult {
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      completionProvider: { triggerCharacters: TRIGGER_CHARACTERS, resolveProvider: false },
      hoverProvider: true,
      definitionProvider: true,
      referencesProvider: true,
      renameProvider: { prepareProvider: true },
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      semanticTokensProvider: { legend: SEMANTIC_TOKENS_LEGEND, full: true, range: false },
    },
    serverInfo: { name: "plan-refs", version: "0.1.0" },
  };
}
