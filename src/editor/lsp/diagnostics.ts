/**
 * Diagnostics: every open plan is linted (debounced after a change) and the linter's diagnostics
 * published, once per document version. A change to a `tools.json` lints the open plans next to it
 * again; closing a plan clears its diagnostics.
 */
import { basename, dirname } from "node:path";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic } from "vscode-languageserver/node";
import { lintPlanText } from "../../lint/lint-plan.js";
import type { Diagnostic } from "../../shared/diagnostic.js";
import { isPlan, toRange, type ServerContext } from "./context.js";
import { uriPath } from "./uri.js";

const SEVERITIES = { error: DiagnosticSeverity.Error, warning: DiagnosticSeverity.Warning, info: DiagnosticSeverity.Information } as const;

/** The document events that drive the diagnostics. */
export interface Validation {
  /** A document was opened: lint it now. */
  readonly opened: (uri: string) => void;
  /** A document changed: lint it after the debounce, and the plans beside it if it is a `tools.json`. */
  readonly changed: (document: TextDocument) => void;
  /** A document was closed: forget it, and clear its diagnostics if it was a plan. */
  readonly closed: (uri: string) => void;
}

/**
 * The diagnostics of a server: lint after `debounceMs` of quiet following a change.
 *
 * @example
 * const validation = createValidation(context, 150)
 * documents.onDidOpen((event) => validation.opened(event.document.uri))
 */
export function createValidation(context: ServerContext, debounceMs: number): Validation {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  /** The version of each document last linted. */
  const linted = new Map<string, number>();
  const cancel = (uri: string): void => {
    const pending = timers.get(uri);
    if (pending !== undefined) clearTimeout(pending);
    timers.delete(uri);
  };
  const schedule = (uri: string): void => {
    cancel(uri);
    timers.set(
      uri,
      setTimeout(() => {
        timers.delete(uri);
        context.runHandler(`validating ${uri}`, undefined, () => validate(context, linted, uri));
      }, debounceMs),
    );
  };
  return {
    opened: (uri) => validate(context, linted, uri),
    changed: ({ uri, version }) => {
      if (basename(uriPath(uri)) === "tools.json") {
        // A catalog changed: lint the plans next to it again.
        const folder = dirname(uriPath(uri));
        for (const open of context.documents.all()) {
          if (open.uri === uri || !context.plans.has(open.uri) || dirname(uriPath(open.uri)) !== folder) continue;
          linted.delete(open.uri);
          schedule(open.uri);
        }
      }
      if (linted.get(uri) !== version) schedule(uri);
    },
    closed: (uri) => {
      cancel(uri);
      linted.delete(uri);
      if (context.plans.delete(uri))
        void context.connection
          .sendDiagnostics({ uri, diagnostics: [] })
          .catch((error: unknown) => context.log("clearing diagnostics", error));
    },
  };
}

/** Lint the document at `uri` unless its version was linted already, and publish the diagnostics. */
function validate(context: ServerContext, linted: Map<string, number>, uri: string): void {
  const document = context.documents.get(uri);
  if (document === undefined || linted.get(uri) === document.version) return;
  linted.set(uri, document.version);
  if (!isPlan(context, document)) return;
  let diagnostics: LspDiagnostic[];
  try {
    const tools = context.editorOptions(document)?.tools;
    diagnostics = lintPlanText(document.getText(), tools === undefined ? undefined : { tools }).map((item) => toDiagnostic(document, item));
  } catch (error) {
    context.log(`linting ${uri}`, error);
    const origin = { line: 0, character: 0 };
    diagnostics = [
      {
        range: { start: origin, end: origin },
        severity: DiagnosticSeverity.Error,
        source: "plan-refs",
        message: "plan-refs could not lint this document (see the server log)",
      },
    ];
  }
  void context.connection
    .sendDiagnostics({ uri, version: document.version, diagnostics })
    .catch((error: unknown) => context.log("sending diagnostics", error));
}

/**
 * A linter diagnostic as an LSP diagnostic: at its offsets, else its 1-based line and column range,
 * else at the start of the document.
 *
 * @example
 * toDiagnostic(document, { code: "unknown-step", severity: "error", message: "…", pointer: "/steps/1/args/x", offset: { start: 80, end: 82 } })
 */
export function toDiagnostic(document: TextDocument, diagnostic: Diagnostic): LspDiagnostic {
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
}
