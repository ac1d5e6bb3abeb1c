/// <reference lib="dom" />
/**
 * Reference highlighting: one mark decoration per token of every reference string in the plan, with
 * a class per token kind (`cm-planref-step`, `cm-planref-key`, …). The tokens come from
 * `documentTokens`, so the editor colours exactly what the grammar parses.
 */
import { StateField, type EditorState, type Range } from "@codemirror/state";
import { Decoration, EditorView, type DecorationSet } from "@codemirror/view";
import { documentTokens, type TokenKind } from "../editor/index.js";
import { changesOptions, currentOptions } from "./config.js";

const marks = new Map<TokenKind, Decoration>();

function markFor(kind: TokenKind): Decoration {
  let mark = marks.get(kind);
  if (mark === undefined) {
    mark = Decoration.mark({ class: `cm-planref cm-planref-${kind}` });
    marks.set(kind, mark);
  }
  return mark;
}

function tokenDecorations(state: EditorState): DecorationSet {
  const length = state.doc.length;
  const ranges: Range<Decoration>[] = [];
  for (const token of documentTokens(state.doc.toString(), currentOptions(state))) {
    const from = Math.max(0, Math.min(token.span.start, length));
    const to = Math.max(from, Math.min(token.span.end, length));
    if (to > from) ranges.push(markFor(token.kind).range(from, to));
  }
  return Decoration.set(ranges, true);
}

/**
 * The decorations of every reference token, recomputed when the document or the options change.
 *
 * @example
 * EditorState.create({ doc, extensions: [planRefsConfig, referenceHighlight] })
 */
export const referenceHighlight = StateField.define<DecorationSet>({
  create: tokenDecorations,
  update(value, tr) {
    if (tr.docChanged || changesOptions(tr.effects)) return tokenDecorations(tr.state);
    return value;
  },
  provide: (field) => EditorView.decorations.from(field),
});
