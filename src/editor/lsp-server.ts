/**
 * The plan-refs language server: the editor functions of `plan-refs/editor` and the linter behind the
 * Language Server Protocol (`plan-refs lsp --stdio`). Plan documents are `*.plan.json` files and any
 * JSON document with a top-level `steps` array. The tool catalog is the plan's inline `tools`, else a
 * `tools.json` next to the plan. Every handler runs inside the context's `runHandler`, which logs an
 * error to the client and answers with a fallback: no input can stop the server.
 *
 * This file only wires the connection and the documents; each feature's handler is in `lsp/` (one file
 * a feature, sharing the `ServerContext` of `lsp/context.ts`).
 *
 * Node only (it reads `tools.json` from disk); `plan-refs/editor` itself does not import it.
 */
import { TextDocument } from "vscode-languageserver-textdocument";
import { TextDocuments, type Connection } from "vscode-languageserver/node";
import { setEditorErrorReporter } from "./guard.js";
import { completion } from "./lsp/completion.js";
import { createServerContext, type ServerContext } from "./lsp/context.js";
import { definition, references } from "./lsp/definition.js";
import { createValidation } from "./lsp/diagnostics.js";
import { hover } from "./lsp/hover.js";
import { codeActions } from "./lsp/code-actions.js";
import { initialize } from "./lsp/initialize.js";
import { prepareRename, rename } from "./lsp/rename.js";
import { semanticTokens } from "./lsp/semantic-tokens.js";

export { guardFraming, MAX_CONTENT_LENGTH, MAX_HEADER_BYTES } from "./lsp-framing.js";
export { TRIGGER_CHARACTERS } from "./lsp/completion.js";
export { SEMANTIC_TOKENS_LEGEND } from "./lsp/semantic-tokens.js";
export { localPath } from "./lsp/uri.js";

/** What the server needs from its host. */
export interface LanguageServerOptions {
  /** Read a text file (size-limited, strict UTF-8); throws when it cannot. The CLI passes its safe reader. */
  readonly readTextFile: (path: string) => string;
  /** Wait after the last change before linting, in milliseconds (default 150). */
  readonly debounceMs?: number;
}

/**
 * Serve plan documents on `connection` until the client exits.
 *
 * @example
 * startLanguageServer(createConnection(process.stdin, process.stdout), { readTextFile: (path) => readTextInput(path) })
 */
export function startLanguageServer(connection: Connection, options: LanguageServerOptions): void {
  const documents = new TextDocuments(TextDocument);
  const context = createServerContext(connection, documents, options.readTextFile);
  const { runHandler } = context;
  // An editor function that fell back after an internal error says so in the log.
  setEditorErrorReporter((error, what) => context.log(what, error));
  /** A request handler, guarded: an error is logged and answered with `fallback`. */
  const guarded =
    <P, R>(what: string, fallback: R, handler: (context: ServerContext, params: P) => R) =>
    (params: P): R =>
      runHandler(what, fallback, () => handler(context, params));

  connection.onInitialize(initialize);

  const validation = createValidation(context, options.debounceMs ?? 150);
  documents.onDidOpen((event) => runHandler("opening a document", undefined, () => validation.opened(event.document.uri)));
  documents.onDidChangeContent((event) => runHandler("a change", undefined, () => validation.changed(event.document)));
  documents.onDidClose((event) => runHandler("closing a document", undefined, () => validation.closed(event.document.uri)));

  connection.onCompletion(guarded("completion", null, completion));
  connection.onHover(guarded("hover", null, hover));
  connection.onDefinition(guarded("definition", null, definition));
  connection.onReferences(guarded("references", null, references));
  connection.onPrepareRename(guarded("prepare rename", null, prepareRename));
  // The new name is checked before the guard, so a refusal is always an error response (see `rename`).
  connection.onRenameRequest((params) => rename(context, params));
  connection.onCodeAction(guarded("code actions", [], codeActions));
  connection.languages.semanticTokens.on(guarded("semantic tokens", { data: [] }, semanticTokens));

  documents.listen(connection);
  connection.listen();
}
