/** Hover: the editor's `hoverAt` (the step, its tool and the value's schema) as Markdown. */
import { MarkupKind, type Hover as LspHover, type HoverParams } from "vscode-languageserver/node";
import { hoverAt } from "../hover.js";
import { planAt, toRange, type ServerContext } from "./context.js";

/**
 * The hover at a position of a plan, over the reference it describes; `null` where there is none.
 *
 * @example
 * connection.onHover((params) => context.runHandler("hover", null, () => hover(context, params)))
 */
export function hover(context: ServerContext, params: HoverParams): LspHover | null {
  const request = planAt(context, params.textDocument.uri, params.position);
  const found = request === undefined ? undefined : hoverAt(request.text, request.offset, context.editorOptions(request.document));
  if (request === undefined || found === undefined) return null;
  return { contents: { kind: MarkupKind.Markdown, value: found.markdown }, range: toRange(request.document, found.span) };
}
