/// <reference lib="dom" />
/**
 * Hover tooltips over references: what `hoverAt` says about the step or key under the pointer (tool,
 * description, output schema), rendered as minimal, safe Markdown.
 */
import type { Extension } from "@codemirror/state";
import { hoverTooltip, type Tooltip } from "@codemirror/view";
import { hoverAt } from "../editor/index.js";
import { currentOptions } from "./config.js";
import { renderMarkdown } from "./markdown.js";

/**
 * The hover extension.
 *
 * @example
 * extensions: [planRefsConfig, planHover()]
 */
export function planHover(): Extension {
  return hoverTooltip((view, pos): Tooltip | null => {
    const hover = hoverAt(view.state.doc.toString(), pos, currentOptions(view.state));
    if (hover === undefined) return null;
    const length = view.state.doc.length;
    const from = Math.max(0, Math.min(hover.span.start, length));
    const to = Math.max(from, Math.min(hover.span.end, length));
    return {
      pos: from,
      end: to,
      above: true,
      create: (tooltipView) => {
        const dom = tooltipView.dom.ownerDocument.createElement("div");
        dom.className = "cm-planref-hover";
        dom.append(renderMarkdown(dom.ownerDocument, hover.markdown));
        return { dom };
      },
    };
  });
}
