/**
 * Text in pictures: escaping for XML, a width estimate, and fitting a label into a width. Every label
 * a picture shows goes through `fitText` and every tooltip through `tooltip`: unprintable characters
 * become visible escapes (`visible`: the command line's rule, `printable`, plus XML's two forbidden
 * noncharacters), and a label too wide for its place is cut with an ellipsis.
 */
import { cutText, printable } from "../shared/text.js";

/**
 * Every font in the pictures is monospace, so a width estimate holds on any machine.
 *
 * @example
 * `<text font-family="${escapeXml(FONT_FAMILY)}">`
 */
export const FONT_FAMILY = `ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace`;

/**
 * The width of one character as a fraction of the font size: monospace Latin, Greek and Cyrillic
 * advance 0.6 em (DejaVu Sans Mono 0.602, SF Mono 0.600, Consolas 0.55); anything else may come from a
 * proportional fallback font, so it counts as a full em (emoji as 1.25). Estimates err on the wide side.
 */
const NARROW = 0.62;
const WIDE = 1;
const EMOJI = 1.25;

/**
 * How many characters of a tooltip are kept (a 10,000-character tool name is cut there).
 *
 * @example
 * tooltip("x".repeat(10_000)).length // MAX_TOOLTIP + 1 (the "…")
 */
export const MAX_TOOLTIP = 2000;

/**
 * The most characters an arrow's label shows, in the SVG (at its font size) and in Mermaid and DOT
 * text (which lay themselves out; a 10,000-character key would not be read): a longer one is cut.
 *
 * @example
 * fitText("k".repeat(LONGEST_LABEL + 1), textWidth("k".repeat(LONGEST_LABEL), 10), 10).cut // true
 */
export const LONGEST_LABEL = 48;

/** The noncharacters XML 1.0 forbids that `printable` leaves alone. */
const NOT_XML = /[\ufffe\uffff]/g;

/**
 * Text as a picture shows it: `printable` (controls, separators, bidirectional overrides and lone
 * surrogates as escapes), and the two noncharacters XML forbids (U+FFFE, U+FFFF) as `\ufffe`, `\uffff`.
 *
 * @example
 * visible("a\nb\ufffe") // "a\\nb\\ufffe"
 */
export function visible(text: string): string {
  return printable(text).replace(NOT_XML, (character) => `\\u${character.charCodeAt(0).toString(16)}`);
}

function charWidth(code: number): number {
  if (code < 0x0300) return NARROW;
  if (code < 0x0370) return 0; // combining diacritical marks
  if (code < 0x0530) return NARROW; // Greek, Cyrillic
  if (code >= 0xfe00 && code <= 0xfe0f) return 0; // variation selectors
  if (code === 0x200d) return 0; // zero-width joiner
  if (code >= 0x1f000) return EMOJI;
  return WIDE;
}

/**
 * The estimated width of `text` in pixels at `fontSize` (monospace, `FONT_FAMILY`), never less than
 * the rendered width on common fonts.
 *
 * @example
 * textWidth("geocode", 12) // 52.08
 */
export function textWidth(text: string, fontSize: number): number {
  let width = 0;
  for (const character of text) width += charWidth(character.codePointAt(0)!);
  return Math.round(width * fontSize * 100) / 100;
}

/**
 * `text` made `visible`, then cut to fit `maxWidth` pixels at `fontSize`, with `…` when cut (never in
 * the middle of a surrogate pair). `fits` says whether it was cut.
 *
 * @example
 * fitText("summarise-the-whole-trip", 80, 12) // { text: "summarise…", cut: true, width: 78.96 }
 */
export function fitText(
  text: string,
  maxWidth: number,
  fontSize: number,
): { readonly text: string; readonly cut: boolean; readonly width: number } {
  // Only the start of a very long label can be shown: escape and measure just that much.
  const limit = Math.ceil(maxWidth / (fontSize * NARROW)) * 4 + 16;
  const long = text.length > limit;
  const shown = visible(long ? cutText(text, limit) : text);
  if (!long) {
    const full = textWidth(shown, fontSize);
    if (full <= maxWidth) return { text: shown, cut: false, width: full };
  }
  const ellipsis = textWidth("…", fontSize);
  let width = 0;
  let end = 0;
  for (const character of shown) {
    const next = width + charWidth(character.codePointAt(0)!) * fontSize;
    if (next + ellipsis > maxWidth) break;
    width = next;
    end += character.length;
  }
  const shortened = `${shown.slice(0, end)}…`;
  return { text: shortened, cut: true, width: textWidth(shortened, fontSize) };
}

/**
 * A tooltip's text: `visible`, at most `MAX_TOOLTIP` characters (then `…`).
 *
 * @example
 * tooltip("a\nb") // "a\\nb"
 */
export function tooltip(text: string): string {
  return text.length > MAX_TOOLTIP ? `${visible(cutText(text, MAX_TOOLTIP))}…` : visible(text);
}

/**
 * Text for XML character data or a quoted attribute value: `& < > " '` as entities (and, should
 * any be left, U+FFFE and U+FFFF as `visible` writes them). The input must already be `visible`
 * (every label and tooltip is): a control character would not be valid XML.
 *
 * @example
 * escapeXml(`<script>"x" & 'y'`) // "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;"
 */
export function escapeXml(text: string): string {
  // One pass, and none at all for the usual label with nothing to escape (a 10,000-step picture has tens of thousands).
  return XML_SPECIAL.test(text)
    ? text.replace(XML_SPECIALS, (character) => XML_ENTITIES[character] ?? `\\u${character.charCodeAt(0).toString(16)}`)
    : text;
}

const XML_SPECIAL = /[&<>"'\ufffe\uffff]/;
const XML_SPECIALS = /[&<>"'\ufffe\uffff]/g;
const XML_ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * A number for an SVG attribute: at most two decimals, no `-0`.
 *
 * @example
 * num(1 / 3) // "0.33"
 */
export function num(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  return Object.is(rounded, -0) ? "0" : String(rounded);
}
