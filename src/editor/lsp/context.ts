/**
 * What every handler of the language server shares: the open documents, the plans among them, the
 * editor options of a plan (its tool catalog), the log, and `runHandler`, the one guard that turns a
 * handler's error into a log line and a fallback answer. Handlers take a `ServerContext` and the
 * request's parameters; `startLanguageServer` builds the context once and wires them to the connection.
 */
import type { TextDocument } from "vscode-languageserver-textdocument";
import type { Position, Range as LspRange } from "vscode-languageserver/node";
import type { Span } from "../../shared/span.js";
import type { EditorOptions } from "../editor-options.js";
import { analyzePlan } from "../plan-document.js";
import { catalogOptions } from "./catalog.js";
import type { OpenDocuments, ServerConnection } from "./connection.js";
import { uriPath } from "./uri.js";

export type { OpenDocuments, ServerConnection } from "./connection.js";

/** What the handlers share. */
export interface ServerContext {
  readonly connection: ServerConnection;
  readonly documents: OpenDocuments;
  /** The URIs of documents recognised as plans: they stay plans while open, even when an edit breaks them for a moment. */
  readonly plans: Set<string>;
  /** Log an error to the client (never throws: a connection that is gone is told nothing). */
  readonly log: (what: string, error: unknown) => void;
  /** Run a handler; an error is logged and answered with `fallback`. The one guard of every handler. */
  readonly runHandler: <T>(what: string, fallback: T, run: () => T) => T;
  /** The editor options of a plan: `tools.json` next to it, unless the plan has its own `tools`. */
  readonly editorOptions: (document: TextDocument) => EditorOptions | undefined;
}

/** A request on a plan: its document, the document's text and the request's offset in it. */
export interface PlanRequest {
  readonly document: TextDocument;
  readonly text: string;
  readonly offset: number;
}

/**
 * The context of a server on `connection` serving `documents`; `readTextFile` reads a `tools.json`.
 *
 * @example
 * const context = createServerContext(connection, documents, (path) => readFileSync(path, "utf8"))
 */
export function createServerContext(
  connection: ServerConnection,
  documents: OpenDocuments,
  readTextFile: (path: string) => string,
): ServerContext {
  const log = (what: string, error: unknown): void => {
    try {
      connection.console.error(`plan-refs: ${what}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    } catch {
      // The connection is gone: nothing left to tell.
    }
  };
  // (The editor functions' own `withFallback` reports to the process-wide reporter instead.)
  const runHandler = <T>(what: string, fallback: T, run: () => T): T => {
    try {
      return run();
    } catch (error) {
      log(what, error);
      return fallback;
    }
  };
  const editorOptions = catalogOptions({ connection, documents, readTextFile, log });
  return { connection, documents, plans: new Set(), log, runHandler, editorOptions };
}

/**
 * Whether `document` is a plan: a `*.plan.json` file, or a JSON document with a top-level `steps`
 * array. A document once recognised stays a plan while it is open.
 */
export function isPlan(context: ServerContext, document: TextDocument): boolean {
  if (context.plans.has(document.uri)) return true;
  const path = uriPath(document.uri);
  const json = path.endsWith(".json") || document.languageId === "json" || document.languageId === "jsonc";
  if (!json) return false;
  const analysed = analyzePlan(document.getText());
  const plan = path.endsWith(".plan.json") || (analysed.root?.type === "object" && analysed.isPlan);
  if (plan) context.plans.add(document.uri);
  return plan;
}

/** The plan document and offset of a request, when the document is an open plan. */
export function planAt(context: ServerContext, uri: string, position: Position): PlanRequest | undefined {
  const document = context.documents.get(uri);
  if (document === undefined || !isPlan(context, document)) return undefined;
  return { document, text: document.getText(), offset: document.offsetAt(position) };
}

/** The LSP range of a span of offsets. */
export function toRange(document: TextDocument, span: Span): LspRange {
  return { start: document.positionAt(span.start), end: document.positionAt(span.end) };
}
