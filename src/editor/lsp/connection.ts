/** What the language server's handlers and its catalog loader see of the connection and the open documents. */
import type { TextDocument } from "vscode-languageserver-textdocument";
import type { PublishDiagnosticsParams, RemoteConsole, TextDocuments } from "vscode-languageserver/node";

/** The part of the LSP connection the handlers talk to: its console and its diagnostics. */
export interface ServerConnection {
  readonly console: Pick<RemoteConsole, "error" | "warn">;
  sendDiagnostics(params: PublishDiagnosticsParams): Promise<void>;
}

/** The open documents, as the handlers read them. */
export type OpenDocuments = Pick<TextDocuments<TextDocument>, "get" | "all">;
