/// <reference lib="dom" />
/**
 * Default colours for reference tokens and the hover card. A base theme: any editor theme can
 * override these classes.
 */
import { EditorView } from "@codemirror/view";

/**
 * The base theme of the extension (light and dark variants).
 *
 * @example
 * extensions: [planRefsBaseTheme]
 */
export const planRefsBaseTheme = EditorView.baseTheme({
  // Reference tokens sit inside JSON strings: the marks set their own colour so the string colour does not win.
  ".cm-planref": { fontWeight: "500" },
  "&light .cm-planref-dollar, &light .cm-planref-dollar *": { color: "#7c3aed" },
  "&light .cm-planref-step, &light .cm-planref-step *": { color: "#7c3aed", fontWeight: "700" },
  "&light .cm-planref-separator, &light .cm-planref-separator *": { color: "#6b7280" },
  "&light .cm-planref-key, &light .cm-planref-key *": { color: "#0369a1" },
  "&light .cm-planref-quoted-key, &light .cm-planref-quoted-key *": { color: "#0e7490" },
  "&light .cm-planref-index, &light .cm-planref-index *": { color: "#b45309" },
  "&light .cm-planref-operator, &light .cm-planref-operator *": { color: "#be185d" },
  "&light .cm-planref-literal, &light .cm-planref-literal *": { color: "#15803d" },
  "&light .cm-planref-brace, &light .cm-planref-brace *": { color: "#7c3aed" },
  "&light .cm-planref-escape, &light .cm-planref-escape *": { color: "#9333ea" },
  "&light .cm-planref-invalid, &light .cm-planref-invalid *": { color: "#dc2626", textDecoration: "underline wavy #dc2626" },
  "&dark .cm-planref-dollar, &dark .cm-planref-dollar *": { color: "#c4b5fd" },
  "&dark .cm-planref-step, &dark .cm-planref-step *": { color: "#c4b5fd", fontWeight: "700" },
  "&dark .cm-planref-separator, &dark .cm-planref-separator *": { color: "#9ca3af" },
  "&dark .cm-planref-key, &dark .cm-planref-key *": { color: "#7dd3fc" },
  "&dark .cm-planref-quoted-key, &dark .cm-planref-quoted-key *": { color: "#67e8f9" },
  "&dark .cm-planref-index, &dark .cm-planref-index *": { color: "#fcd34d" },
  "&dark .cm-planref-operator, &dark .cm-planref-operator *": { color: "#f9a8d4" },
  "&dark .cm-planref-literal, &dark .cm-planref-literal *": { color: "#86efac" },
  "&dark .cm-planref-brace, &dark .cm-planref-brace *": { color: "#c4b5fd" },
  "&dark .cm-planref-escape, &dark .cm-planref-escape *": { color: "#d8b4fe" },
  "&dark .cm-planref-invalid, &dark .cm-planref-invalid *": { color: "#fca5a5", textDecoration: "underline wavy #f87171" },
  ".cm-planref-hover": { maxWidth: "32rem", padding: "2px 8px", fontSize: "90%", lineHeight: "1.4" },
  ".cm-planref-hover p": { margin: "4px 0" },
  ".cm-planref-hover pre": { margin: "4px 0", padding: "4px 6px", overflow: "auto", maxHeight: "16rem", whiteSpace: "pre" },
  "&light .cm-planref-hover pre, &light .cm-planref-hover code": { backgroundColor: "#f3f4f6" },
  "&dark .cm-planref-hover pre, &dark .cm-planref-hover code": { backgroundColor: "#1f2937" },
  ".cm-planref-hover code": { fontFamily: "monospace", borderRadius: "3px" },
});
