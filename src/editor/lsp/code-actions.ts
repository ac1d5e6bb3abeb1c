/**
 * Code actions: a `quickfix` for each diagnostic in the requested range whose fix the linter knows
 * (`quickFixes`), as a workspace edit of the document.
 */
import { CodeActionKind, type CodeAction, type CodeActionParams } from "vscode-languageserver/node";
import { quickFixes } from "../quick-fixes.js";
import { isPlan, toRange, type ServerContext } from "./context.js";
import { toDiagnostic } from "./diagnostics.js";

/**
 * The quick fixes whose diagnostic touches `params.range`; `[]` for a document that is not a plan.
 *
 * @example
 * connection.onCodeAction((params) => context.runHandler("code actions", [], () => codeActions(context, params)))
 */
export function codeActions(context: ServerContext, params: CodeActionParams): CodeAction[] {
  const document = context.documents.get(params.textDocument.uri);
  if (document === undefined || !isPlan(context, document)) return [];
  if (
    params.context.only !== undefined &&
    !params.context.only.some((kind) => kind === CodeActionKind.QuickFix || CodeActionKind.QuickFix.startsWith(`${kind}.`) || kind === "")
  )
    return [];
  const from = document.offsetAt(params.range.start);
  const to = document.offsetAt(params.range.end);
  const tools = context.editorOptions(document)?.tools;
  return quickFixes(document.getText(), tools === undefined ? undefined : { tools })
    .filter(({ diagnostic }) => diagnostic.offset !== undefined && diagnostic.offset.start <= to && diagnostic.offset.end >= from)
    .map((fix) => ({
      title: fix.title,
      kind: CodeActionKind.QuickFix,
      diagnostics: [toDiagnostic(document, fix.diagnostic)],
      isPreferred: true,
      edit: { changes: { [document.uri]: fix.edits.map((edit) => ({ range: toRange(document, edit.span), newText: edit.newText })) } },
    }));
}
