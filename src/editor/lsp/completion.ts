/** Completion: the editor's `completionsAt` as LSP completion items, in its order. */
import {
  CompletionItemKind,
  MarkupKind,
  type CompletionItem as LspCompletionItem,
  type CompletionParams,
} from "vscode-languageserver/node";
import { completionsAt } from "../completion.js";
import { planAt, toRange, type ServerContext } from "./context.js";

/** Characters after which the client asks for completions. */
export const TRIGGER_CHARACTERS = ["$", ".", "{", "["];

const ITEM_KINDS = { step: CompletionItemKind.Reference, key: CompletionItemKind.Property, index: CompletionItemKind.Value } as const;

/**
 * The completions at a position of a plan, each with the range it replaces; `null` outside a plan.
 *
 * @example
 * connection.onCompletion((params) => context.runHandler("completion", null, () => completion(context, params)))
 */
export function completion(context: ServerContext, params: CompletionParams): LspCompletionItem[] | null {
  const request = planAt(context, params.textDocument.uri, params.position);
  if (request === undefined) return null;
  const { document, text, offset } = request;
  return completionsAt(text, offset, context.editorOptions(document)).map((item, i): LspCompletionItem => {
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
}
