/**
 * Diagnostics of every command, printed the linter's way: file:line:column, severity, code and message,
 * the source line and carets under the exact characters. `locateDiagnostics` adds the positions to
 * diagnostics made with a JSON Pointer only (by `runPlan`, or by the command line itself). Every
 * message and source excerpt printed is escaped (`printable`).
 */
import pc from "picocolors";
import { locatePositions } from "../lint/text-positions.js";
import { readPlan } from "../plan/plan.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import type { StepErrorCode } from "../run/step-error.js";

/**
 * What the command line prints in the linter's form: a diagnostic, or a step's error placed in the
 * plan like one (its code is then the step error's).
 */
export type PrintedDiagnostic = Omit<Diagnostic, "code"> & { readonly code: Diagnostic["code"] | StepErrorCode };
import { LineIndex } from "../shared/positions.js";
import { listSome } from "../shared/text.js";
import { unknownToolMessage } from "../run/attempt.js";
import { wantsColor, type CommandIo } from "./io.js";
import { CliError } from "./input.js";
import { printable } from "../shared/text.js";

/**
 * Steps whose tool the `--tools` module does not export: `unknown-tool` diagnostics (pointer only), in
 * the command's own words, with a did-you-mean.
 *
 * @example
 * unknownTools({ steps: [{ id: 1, tool: "fetch_pgae", args: {} }] }, ["fetch_page"], "./tools.mjs")[0].message
 * // 'no function for tool "fetch_pgae" among the functions exported by --tools ./tools.mjs; did you mean "fetch_page"?'
 */
export function unknownTools(plan: unknown, names: readonly string[], modulePath: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const exported = new Set(names);
  for (const step of readPlan(plan).steps) {
    if (exported.has(step.tool)) continue;
    out.push({
      code: "unknown-tool",
      severity: "error",
      step: step.id,
      pointer: `${step.pointer}/tool`,
      message: unknownToolMessage(step.tool, ` among the functions exported by --tools ${printable(modulePath)}`, names, exports),
    });
  }
  return out;
}

/** What a `--tools` module exports, when no name is close to the one asked for. */
function exports(names: Iterable<string>): string {
  const list = [...names];
  return list.length === 0 ? " (it exports no functions)" : ` (it exports: ${listSome(list)})`;
}

/**
 * Diagnostics with `offset` and `range` in `text` (those that have a range already are kept as they
 * are). `text` must be valid JSON.
 *
 * @example
 * locateDiagnostics(planText, unknownTools(plan, names, "./tools.mjs"))[0].range // { start: { line: 7, column: 15 }, … }
 */
export function locateDiagnostics<D extends PrintedDiagnostic>(text: string, diagnostics: readonly D[]): D[] {
  if (diagnostics.length === 0) return [];
  const lines = new LineIndex(text);
  const offsets = locatePositions(text, diagnostics);
  return diagnostics.map((diagnostic, i) => (diagnostic.range !== undefined ? diagnostic : { ...diagnostic, offset: offsets[i]!, range: lines.range(offsets[i]!) }));
}

/** Print diagnostics on stderr, in colour on a terminal (unless NO_COLOR is set). */
export function printDiagnostics(io: CommandIo, diagnostics: readonly PrintedDiagnostic[], name: string, lines: LineIndex): void {
  io.stderr(formatDiagnostics(diagnostics, name, lines, wantsColor(io, io.stderrIsTTY)));
}

/** Widest source line shown; longer lines are cut around the diagnostic. */
const MAX_LINE = 120;

/**
 * The pretty report: per diagnostic `file:line:column severity code message`, the source line and a
 * caret line under the exact characters; then a summary line.
 *
 * @example
 * formatDiagnostics(lintPlanText(text), "plan.json", new LineIndex(text), false)
 */
export function formatDiagnostics(diagnostics: readonly PrintedDiagnostic[], name: string, lines: LineIndex, color: boolean): string {
  const c = pc.createColors(color);
  const paint = { error: (s: string) => c.bold(c.red(s)), warning: (s: string) => c.bold(c.yellow(s)), info: (s: string) => c.bold(c.cyan(s)) };
  const caretPaint = { error: c.red, warning: c.yellow, info: c.cyan };
  let out = "";
  for (const diagnostic of diagnostics) {
    const start = diagnostic.range?.start ?? { line: 1, column: 1 };
    const end = diagnostic.range?.end ?? start;
    out += `${c.bold(`${name}:${start.line}:${start.column}`)} ${paint[diagnostic.severity](diagnostic.severity)} ${c.dim(diagnostic.code)} ${printable(diagnostic.message)}\n`;
    if (diagnostic.range === undefined) continue;
    const source = lines.lineText(start.line);
    const from = start.column - 1;
    const to = end.line === start.line ? Math.max(end.column - 1, from + 1) : Math.max(source.length, from + 1);
    out += sourceExcerpt(source, start.line, from, to, { dim: c.dim, caret: caretPaint[diagnostic.severity] });
  }
  out += `${summary(diagnostics)}\n`;
  return out;
}

const plain = (text: string): string => text;

/**
 * The command line's error for a JSON file that does not parse: `name:line:column: invalid JSON: why`,
 * with the source line and a caret under the place (as the linter shows its diagnostics).
 *
 * @example
 * jsonSyntaxError("plan.json", "[1,]", { line: 1, column: 3, length: 1 }, "trailing comma") // its excerpt: " 1 | [1,]\n   |   ^\n"
 */
export function jsonSyntaxError(name: string, text: string, at: { readonly line: number; readonly column: number; readonly length: number }, message: string): CliError {
  const line = new LineIndex(text).lineText(at.line);
  const from = Math.min(at.column - 1, line.length);
  const to = Math.min(Math.max(from + 1, from + at.length), Math.max(line.length, from + 1));
  return new CliError(`${name}:${at.line}:${at.column}: ${message}`, "json-syntax", 2, sourceExcerpt(line, at.line, from, to));
}

/**
 * A source line and a caret line under its characters `from`…`to` (0-based, in the line), the
 * linter's way: ` 4 | the line` and `   |     ^^^^`, each ending in a newline, escaped and cut to fit.
 *
 * @example
 * sourceExcerpt("export const = ;", 2, 13, 14) // " 2 | export const = ;\n   |              ^\n"
 */
export function sourceExcerpt(source: string, lineNumber: number, from: number, to: number, paint: { dim: (text: string) => string; caret: (text: string) => string } = { dim: plain, caret: plain }): string {
  const shown = excerpt(source, from, to);
  const gutter = String(lineNumber);
  const pad = " ".repeat(gutter.length);
  return `${paint.dim(` ${gutter} |`)} ${shown.text}\n${paint.dim(` ${pad} |`)} ${" ".repeat(shown.caretStart)}${paint.caret("^".repeat(shown.caretWidth))}\n`;
}

/** The part of a source line to show (tabs as two spaces, long lines cut with "…"), and where the carets go. */
function excerpt(source: string, from: number, to: number): { text: string; caretStart: number; caretWidth: number } {
  let begin = 0;
  let finish = source.length;
  if (source.length > MAX_LINE) {
    begin = Math.max(0, from - 40);
    finish = Math.min(source.length, Math.max(begin + MAX_LINE, Math.min(to, from + MAX_LINE)));
  }
  const lead = begin > 0 ? "…" : "";
  const tail = finish < source.length ? "…" : "";
  // Tabs as two spaces; anything else a terminal would act on (a raw U+2028, a bidi override) escaped.
  const widen = (s: string): string => printable(s.replaceAll("\t", "  "));
  const before = lead + widen(source.slice(begin, from));
  const marked = widen(source.slice(from, Math.min(to, finish)));
  return { text: lead + widen(source.slice(begin, finish)) + tail, caretStart: before.length, caretWidth: Math.max(1, marked.length) };
}

/** `2 errors, 1 warning` (and infos, when there are some). */
function summary(diagnostics: readonly PrintedDiagnostic[]): string {
  const count = (severity: Diagnostic["severity"]): number => diagnostics.filter((diagnostic) => diagnostic.severity === severity).length;
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;
  const infos = count("info");
  return `${plural(count("error"), "error")}, ${plural(count("warning"), "warning")}${infos > 0 ? `, ${infos} info` : ""}`;
}
