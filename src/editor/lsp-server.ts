/**
 * The plan-refs language server: the editor functions of `plan-refs/editor` and the linter behind the
 * Language Server Protocol (`plan-refs lsp --stdio`). Plan documents are `*.plan.json` files and any
 * JSON document with a top-level `steps` array. The tool catalog is the plan's inline `tools`, else a
 * `tools.json` next to the plan. Every handler catches its own errors and logs them to the client:
 * no input can stop the server.
 *
 * Node only (it reads `tools.json` from disk); `plan-refs/editor` itself does not import it.
 */
import { statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import {
  CompletionItemKind,
  DiagnosticSeverity,
  ErrorCodes,
  MarkupKind,
  ResponseError,
  SemanticTokensBuilder,
  TextDocumentSyncKind,
  TextDocuments,
  type CompletionItem as LspCompletionItem,
  type Connection,
  type Diagnostic as LspDiagnostic,
  type InitializeResult,
  type Location,
  type Range as LspRange,
  type SemanticTokensLegend,
} from "vscode-languageserver/node";
import { lintPlanText } from "../lint/lint-plan.js";
import { parseJsonText } from "../plan/json-text.js";
import { readTools, type ToolCatalog } from "../plan/plan.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import type { Span } from "../shared/span.js";
import { completionsAt } from "./completion.js";
import { definitionAt, referencesTo, stepAt } from "./definition.js";
import { documentTokens } from "./document-tokens.js";
import type { EditorOptions } from "./editor-options.js";
import { setEditorErrorReporter } from "./guard.js";
import { hoverAt } from "./hover.js";
import { TOKEN_KINDS, type TokenKind } from "./lexer.js";
import { analyzePlan, property } from "./plan-document.js";
import { renameStep } from "./rename.js";

export { guardFraming, MAX_CONTENT_LENGTH, MAX_HEADER_BYTES } from "./lsp-framing.js";

/** What the server needs from its host. */
export interface LanguageServerOptions {
  /** Read a text file (size-limited, strict UTF-8); throws when it cannot. The CLI passes its safe reader. */
  readonly readTextFile: (path: string) => string;
  /** Wait after the last change before linting, in milliseconds (default 150). */
  readonly debounceMs?: number;
}

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

/** Characters after which the client asks for completions. */
export const TRIGGER_CHARACTERS = ["$", ".", "{", "["];

const SEVERITIES = { error: DiagnosticSeverity.Error, warning: DiagnosticSeverity.Warning, info: DiagnosticSeverity.Information } as const;
const ITEM_KINDS = { step: CompletionItemKind.Reference, key: CompletionItemKind.Property, index: CompletionItemKind.Value } as const;
const STEP_ID = /^(?:0|[1-9][0-9]*)$/;

/**
 * Serve plan documents on `connection` until the client exits.
 *
 * @example
 * startLanguageServer(createConnection(process.stdin, process.stdout), { readTextFile: (path) => readTextInput(path) })
 */
export function startLanguageServer(connection: Connection, options: LanguageServerOptions): void {
  const documents = new TextDocuments(TextDocument);
  const debounceMs = options.debounceMs ?? 150;
  /** Documents recognised as plans stay plans while open, even when an edit breaks them for a moment. */
  const plans = new Set<string>();
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const linted = new Map<string, number>();
  const catalogs = new Map<string, { stamp: string; catalog: ToolCatalog | undefined }>();
  const optionsByCatalog = new WeakMap<ToolCatalog, EditorOptions>();

  const log = (what: string, error: unknown): void => {
    try {
      connection.console.error(`plan-refs: ${what}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    } catch {
      // The connection is gone: nothing left to tell.
    }
  };

  // An editor function that fell back after an internal error says so in the log.
  setEditorErrorReporter((error, what) => log(what, error));

  /**
   * Run a handler; an error is logged to this connection and answered with `fallback`. (The editor
   * functions' own `withFallback` reports to the process-wide reporter instead.)
   */
  const runHandler = <T>(what: string, fallback: T, run: () => T): T => {
    try {
      return run();
    } catch (error) {
      log(what, error);
      return fallback;
    }
  };

  const isPlan = (document: TextDocument): boolean => {
    if (plans.has(document.uri)) return true;
    const path = uriPath(document.uri);
    const json = path.endsWith(".json") || document.languageId === "json" || document.languageId === "jsonc";
    if (!json) return false;
    const text = document.getText();
    const analysed = analyzePlan(text);
    const plan = path.endsWith(".plan.json") || (analysed.root?.type === "object" && analysed.isPlan);
    if (plan) plans.add(document.uri);
    return plan;
  };

  /**
   * The catalog of `tools.json` next to the plan (an open editor's text first, else the file). Only
   * for a plan on this machine: a `file://host/…` URI names a file elsewhere, so there is no catalog
   * beside it to read (the plan is still linted, with its inline `tools` if any).
   */
  const toolsNextTo = (uri: string): ToolCatalog | undefined => {
    const file = localPath(uri);
    if (file === undefined) return undefined;
    const path = join(dirname(file), "tools.json");
    const open = documents.get(pathToFileURL(path).href);
    let stamp: string;
    if (open !== undefined) stamp = `open:${open.version}`;
    else {
      try {
        const stats = statSync(path);
        if (!stats.isFile()) return undefined;
        stamp = `file:${stats.mtimeMs}:${stats.size}`;
      } catch {
        return undefined;
      }
    }
    const cached = catalogs.get(path);
    if (cached?.stamp === stamp) return cached.catalog;
    let catalog: ToolCatalog | undefined;
    try {
      const parsed = parseJsonText(open?.getText() ?? options.readTextFile(path));
      const problems: string[] = [];
      catalog = parsed.ok ? readTools(parsed.value, (pointer, message) => problems.push(`${pointer || "/"}: ${message}`), "") : undefined;
      if (!parsed.ok) connection.console.warn(`plan-refs: ${path}:${parsed.error.line}:${parsed.error.column}: invalid JSON: ${parsed.error.message}`);
      else if (problems.length > 0) connection.console.warn(`plan-refs: ${path}: ${problems.slice(0, 3).join("; ")}`);
    } catch (error) {
      log(`cannot read ${path}`, error);
      catalog = undefined;
    }
    catalogs.set(path, { stamp, catalog });
    return catalog;
  };

  /** The editor options of a plan: `tools.json` next to it, unless the plan has its own `tools`. */
  const editorOptions = (document: TextDocument): EditorOptions | undefined => {
    if (property(analyzePlan(document.getText()).root, "tools") !== undefined) return undefined;
    const catalog = toolsNextTo(document.uri);
    if (catalog === undefined) return undefined;
    let cached = optionsByCatalog.get(catalog);
    if (cached === undefined) optionsByCatalog.set(catalog, (cached = { tools: catalog }));
    return cached;
  };

  const toRange = (document: TextDocument, span: Span): LspRange => ({ start: document.positionAt(span.start), end: document.positionAt(span.end) });

  const toDiagnostic = (document: TextDocument, diagnostic: Diagnostic): LspDiagnostic => {
    const range =
      diagnostic.offset !== undefined
        ? toRange(document, diagnostic.offset)
        : diagnostic.range !== undefined
          ? {
              start: { line: diagnostic.range.start.line - 1, character: diagnostic.range.start.column - 1 },
              end: { line: diagnostic.range.end.line - 1, character: diagnostic.range.end.column - 1 },
            }
          : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    return { range, severity: SEVERITIES[diagnostic.severity], code: diagnostic.code, source: "plan-refs", message: diagnostic.message };
  };

  const validate = (uri: string): void => {
    const document = documents.get(uri);
    if (document === undefined || linted.get(uri) === document.version) return;
    linted.set(uri, document.version);
    if (!isPlan(document)) return;
    let diagnostics: LspDiagnostic[];
    try {
      const tools = editorOptions(document)?.tools;
      diagnostics = lintPlanText(document.getText(), tools === undefined ? undefined : { tools }).map((item) => toDiagnostic(document, item));
    } catch (error) {
      log(`linting ${uri}`, error);
      const origin = { line: 0, character: 0 };
      diagnostics = [{ range: { start: origin, end: origin }, severity: DiagnosticSeverity.Error, source: "plan-refs", message: "plan-refs could not lint this document (see the server log)" }];
    }
    void connection.sendDiagnostics({ uri, version: document.version, diagnostics }).catch((error: unknown) => log("sending diagnostics", error));
  };

  const schedule = (uri: string, delay: number): void => {
    const pending = timers.get(uri);
    if (pending !== undefined) clearTimeout(pending);
    timers.set(
      uri,
      setTimeout(() => {
        timers.delete(uri);
        runHandler(`validating ${uri}`, undefined, () => validate(uri));
      }, delay),
    );
  };

  /** The plan document and offset of a request, when the document is a plan. */
  const at = (uri: string, position: { line: number; character: number }): { document: TextDocument; text: string; offset: number } | undefined => {
    const document = documents.get(uri);
    if (document === undefined || !isPlan(document)) return undefined;
    return { document, text: document.getText(), offset: document.offsetAt(position) };
  };

  connection.onInitialize(
    (): InitializeResult => ({
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        completionProvider: { triggerCharacters: TRIGGER_CHARACTERS, resolveProvider: false },
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        renameProvider: { prepareProvider: true },
        semanticTokensProvider: { legend: SEMANTIC_TOKENS_LEGEND, full: true, range: false },
      },
      serverInfo: { name: "plan-refs", version: "0.1.0" },
    }),
  );

  documents.onDidOpen((event) => runHandler("opening a document", undefined, () => validate(event.document.uri)));
  documents.onDidChangeContent((event) =>
    runHandler("a change", undefined, () => {
      const { uri } = event.document;
      if (basename(uriPath(uri)) === "tools.json") {
        // A catalog changed: lint the plans next to it again.
        const folder = dirname(uriPath(uri));
        for (const open of documents.all()) {
          if (open.uri === uri || !plans.has(open.uri) || dirname(uriPath(open.uri)) !== folder) continue;
          linted.delete(open.uri);
          schedule(open.uri, debounceMs);
        }
      }
      if (linted.get(uri) !== event.document.version) schedule(uri, debounceMs);
    }),
  );
  documents.onDidClose((event) =>
    runHandler("closing a document", undefined, () => {
      const { uri } = event.document;
      const pending = timers.get(uri);
      if (pending !== undefined) clearTimeout(pending);
      timers.delete(uri);
      linted.delete(uri);
      if (plans.delete(uri)) void connection.sendDiagnostics({ uri, diagnostics: [] }).catch((error: unknown) => log("clearing diagnostics", error));
    }),
  );

  connection.onCompletion((params) =>
    runHandler("completion", null, () => {
      const request = at(params.textDocument.uri, params.position);
      if (request === undefined) return null;
      const { document, text, offset } = request;
      return completionsAt(text, offset, editorOptions(document)).map((item, i): LspCompletionItem => {
        // A key written as `["a b"]` replaces the `.` too: filter it by what was typed there.
        const filterText = item.insertText.startsWith("[") && text[item.span.start] === "." ? `.${item.label}` : item.insertText;
        return {
          label: item.label,
          kind: ITEM_KINDS[item.kind],
          ...(item.detail === undefined ? {} : { detail: item.detail }),
          ...(item.documentation === undefined ? {} : { documentation: { kind: MarkupKind.Markdown, value: item.documentation } }),
          textEdit: { range: toRange(document, item.span), newText: item.insertText },
          filterText,
          sortText: String(i).padStart(6, "0"),
        };
      });
    }),
  );

  connection.onHover((params) =>
    runHandler("hover", null, () => {
      const request = at(params.textDocument.uri, params.position);
      const hover = request === undefined ? undefined : hoverAt(request.text, request.offset, editorOptions(request.document));
      if (request === undefined || hover === undefined) return null;
      return { contents: { kind: MarkupKind.Markdown, value: hover.markdown }, range: toRange(request.document, hover.span) };
    }),
  );

  connection.onDefinition((params) =>
    runHandler("definition", null, () => {
      const request = at(params.textDocument.uri, params.position);
      const span = request === undefined ? undefined : definitionAt(request.text, request.offset, editorOptions(request.document));
      if (request === undefined || span === undefined) return null;
      return { uri: request.document.uri, range: toRange(request.document, span) };
    }),
  );

  connection.onReferences((params) =>
    runHandler("references", null, () => {
      const request = at(params.textDocument.uri, params.position);
      if (request === undefined) return null;
      const { document, text, offset } = request;
      const options = editorOptions(document);
      const target = stepAt(text, offset, options);
      if (target === undefined) return null;
      const locations: Location[] = [];
      if (params.context.includeDeclaration) {
        for (const step of analyzePlan(text, options).steps) {
          if (step.id === target.stepId && step.idNode !== undefined) {
            locations.push({ uri: document.uri, range: toRange(document, { start: step.idNode.offset, end: step.idNode.offset + step.idNode.length }) });
          }
        }
      }
      for (const span of referencesTo(text, target.stepId, options)) locations.push({ uri: document.uri, range: toRange(document, span) });
      return locations;
    }),
  );

  connection.onPrepareRename((params) =>
    runHandler("prepare rename", null, () => {
      const request = at(params.textDocument.uri, params.position);
      if (request === undefined) return null;
      const { document, text, offset } = request;
      const options = editorOptions(document);
      const target = stepAt(text, offset, options);
      if (target === undefined || !target.exists) return null;
      // A malformed string is not a reference: renaming from it would leave it as it is.
      const renamable = target.declaration || referencesTo(text, target.stepId, options).some((span) => span.start === target.span.start);
      return renamable ? { range: toRange(document, target.span), placeholder: String(target.stepId) } : null;
    }),
  );

  connection.onRenameRequest((params) => {
    const request = at(params.textDocument.uri, params.position);
    if (request === undefined) return null;
    const { document, text, offset } = request;
    const newName = params.newName.trim();
    const newId = Number(newName);
    if (!STEP_ID.test(newName) || !Number.isSafeInteger(newId)) {
      return new ResponseError(ErrorCodes.InvalidParams, `a step id is a non-negative integer, not "${newName.slice(0, 20)}"`);
    }
    return runHandler("rename", null, () => {
      const options = editorOptions(document);
      const target = stepAt(text, offset, options);
      if (target === undefined || !target.exists) return null;
      if (target.stepId !== newId && analyzePlan(text, options).byId.has(newId)) {
        return new ResponseError(ErrorCodes.InvalidParams, `step ${newId} already exists`);
      }
      const edits = renameStep(text, target.stepId, newId, options).map((edit) => ({ range: toRange(document, edit.span), newText: edit.newText }));
      return { changes: { [document.uri]: edits } };
    });
  });

  connection.languages.semanticTokens.on((params) =>
    runHandler("semantic tokens", { data: [] }, () => {
      const document = documents.get(params.textDocument.uri);
      if (document === undefined || !isPlan(document)) return { data: [] };
      const builder = new SemanticTokensBuilder();
      for (const token of documentTokens(document.getText(), editorOptions(document))) {
        const start = document.positionAt(token.span.start);
        builder.push(start.line, start.character, token.span.end - token.span.start, SEMANTIC_TOKENS_LEGEND.tokenTypes.indexOf(SEMANTIC_TYPES[token.kind]), 0);
      }
      return builder.build();
    }),
  );

  documents.listen(connection);
  connection.listen();
}

/** The path of a document URI (a local `file:` URI's file path; otherwise the URI's path part). */
function uriPath(uri: string): string {
  const local = localPath(uri);
  if (local !== undefined) return local;
  try {
    return new URL(uri).pathname;
  } catch {
    return uri;
  }
}

/**
 * The file path of a `file:` URI on this machine (no host, or `localhost`); `undefined` for any other
 * URI, `file://host/…` included (a file on another machine, whatever the platform would make of it).
 * Never throws.
 *
 * @example
 * localPath("file:///home/me/trip.plan.json") // "/home/me/trip.plan.json"
 * localPath("file://server/share/trip.plan.json") // undefined
 */
export function localPath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    const url = new URL(uri);
    if (url.hostname !== "" && url.hostname !== "localhost") return undefined;
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}
