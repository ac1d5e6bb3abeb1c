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
import type { StepErrorCode } from "../step/step-error.js";

/**
 * What the command line prints in the linter's form: a diagnostic, or a step's error placed in the
 * plan like one (its code is then the step error's).
 */
export type PrintedDiagnostic = Omit<Diagnostic, "code"> & { readonly code: Diagnostic["code"] | StepErrorCode };
import { LineIndex } from "../shared/positions.js";
import { listSome } from "../shared/text.js";
import { unknownToolMessage } from "../step/attempt.js";
import { wantsColor, type CommandIo } from "./io.js";
import { sourceExcerpt } from "./source-excerpt.js";
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
  return diagnostics.map((diagnostic, i) =>
    diagnostic.range !== undefined ? diagnostic : { ...diagnostic, offset: offsets[i]!, range: lines.range(offsets[i]!) },
  );
}

/** Print diagnostics on stderr, in colour on a terminal (unless NO_COLOR is set). */
export function printDiagnostics(io: CommandIo, diagnostics: readonly PrintedDiagnostic[], name: string, lines: LineIndex): void {
  io.stderr(formatDiagnostics(diagnostics, name, lines, wantsColor(io, io.stderrIsTTY)));
}

/**
 * The pretty report: per diagnostic `file:line:column severity code message`, the source line and a
 * caret line under the exact characters; then a summary line.
 *
 * @example
 * formatDiagnostics(lintPlanText(text), "plan.json", new LineIndex(text), false)
 */
export function formatDiagnostics(diagnostics: readonly PrintedDiagnostic[], name: string, lines: LineIndex, color: boolean): string {
  const c = pc.createColors(color);
  const paint = {
    error: (s: string) => c.bold(c.red(s)),
    warning: (s: string) => c.bold(c.yellow(s)),
    info: (s: string) => c.bold(c.cyan(s)),
  };
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

/** `2 errors, 1 warning` (and infos, when there are some). */
function summary(diagnostics: readonly PrintedDiagnostic[]): string {
  const count = (severity: Diagnostic["severity"]): number => diagnostics.filter((diagnostic) => diagnostic.severity === severity).length;
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;
  const infos = count("info");
  return `${plural(count("error"), "error")}, ${plural(count("warning"), "warning")}${infos > 0 ? `, ${infos} info` : ""}`;
}
