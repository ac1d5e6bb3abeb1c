/**
 * `plan-refs lint plan.json [--tools tools.json] [--format pretty|json] [--strict]`: lint a plan file.
 * Exit 0 with no errors (with `--strict`, no warnings either), 1 with some, 2 for usage and file
 * errors (a plan that is not JSON included: there is no plan to lint).
 */
import { parseArgs } from "node:util";
import pc from "picocolors";
import { lintPlanText } from "../lint/lint-plan.js";
import { locatePositions } from "../lint/text-positions.js";
import { readTools, type ToolCatalog } from "../plan/plan.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { LineIndex } from "../shared/positions.js";
import { CliError, readTextInput } from "./input.js";
import { readJsonInput, type CliIo } from "./io.js";

export const lintUsage = "usage: plan-refs lint <plan.json|-> [--tools <tools.json>] [--format pretty|json] [--strict]";

/**
 * Run `plan-refs lint`; returns the exit code.
 *
 * @example
 * lintCommand(["plan.json", "--tools", "tools.json", "--format", "json"], io) // 0, 1 or 2
 */
export function lintCommand(argv: string[], io: CliIo): number {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      tools: { type: "string" },
      format: { type: "string" },
      strict: { type: "boolean" },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new CliError(`${positionals.length === 0 ? "missing the plan file" : "lint takes one plan file"}\n${lintUsage}`, "usage");
  const format = values.format ?? "pretty";
  if (format !== "pretty" && format !== "json") throw new CliError(`--format must be "pretty" or "json"\n${lintUsage}`, "usage");
  const path = positionals[0]!;
  if (path === "-" && values.tools === "-") throw new CliError("only one of the plan and --tools can be read from stdin", "usage");

  const name = path === "-" ? "<stdin>" : path;
  const text = readTextInput(path);
  const tools = values.tools === undefined ? undefined : readCatalog(values.tools);
  const diagnostics = lintPlanText(text, tools === undefined ? {} : { tools });
  // Not JSON: there is no plan to lint, so it is a file error like the others.
  const syntax = diagnostics.find((diagnostic) => diagnostic.code === "json-syntax");
  if (syntax !== undefined) {
    const start = syntax.range?.start ?? { line: 1, column: 1 };
    throw new CliError(`${name}:${start.line}:${start.column}: ${syntax.message}`, "json-syntax");
  }
  if (format === "json") {
    io.stdout(`${JSON.stringify(diagnostics, null, 2)}\n`);
  } else {
    const color = io.stdoutIsTTY && process.env["NO_COLOR"] === undefined;
    io.stdout(formatDiagnostics(diagnostics, name, new LineIndex(text), color));
  }
  const errors = diagnostics.some((diagnostic) => diagnostic.severity === "error");
  const warnings = diagnostics.some((diagnostic) => diagnostic.severity === "warning");
  return errors || (values.strict === true && warnings) ? 1 : 0;
}

/** Read a tool catalog file; a catalog of the wrong shape is a file error (exit 2) naming the place. */
function readCatalog(path: string): ToolCatalog {
  const name = path === "-" ? "<stdin>" : path;
  const { value, text } = readJsonInput(path);
  const problems: { pointer: string; message: string }[] = [];
  const catalog = readTools(value, (pointer, message) => problems.push({ pointer, message }), "");
  const first = problems[0];
  if (first !== undefined || catalog === undefined) {
    const [at] = locatePositions(text, [{ pointer: first?.pointer ?? "" }]);
    const { line, column } = new LineIndex(text).position(at?.start ?? 0);
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
    throw new CliError(`${name}:${line}:${column}: invalid tool catalog: ${first?.message ?? "expected an object of tools"}${more}`, "invalid-tools");
  }
  return catalog;
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
export function formatDiagnostics(diagnostics: readonly Diagnostic[], name: string, lines: LineIndex, color: boolean): string {
  const c = pc.createColors(color);
  const paint = { error: (s: string) => c.bold(c.red(s)), warning: (s: string) => c.bold(c.yellow(s)), info: (s: string) => c.bold(c.cyan(s)) };
  const caretPaint = { error: c.red, warning: c.yellow, info: c.cyan };
  let out = "";
  for (const diagnostic of diagnostics) {
    const start = diagnostic.range?.start ?? { line: 1, column: 1 };
    const end = diagnostic.range?.end ?? start;
    out += `${c.bold(`${name}:${start.line}:${start.column}`)} ${paint[diagnostic.severity](diagnostic.severity)} ${c.dim(diagnostic.code)} ${diagnostic.message}\n`;
    if (diagnostic.range === undefined) continue;
    const source = lines.lineText(start.line);
    const from = start.column - 1;
    const to = end.line === start.line ? Math.max(end.column - 1, from + 1) : Math.max(source.length, from + 1);
    const shown = excerpt(source, from, to);
    const gutter = String(start.line);
    const pad = " ".repeat(gutter.length);
    out += `${c.dim(` ${gutter} |`)} ${shown.text}\n`;
    out += `${c.dim(` ${pad} |`)} ${" ".repeat(shown.caretStart)}${caretPaint[diagnostic.severity]("^".repeat(shown.caretWidth))}\n`;
  }
  out += `${summary(diagnostics)}\n`;
  return out;
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
  const widen = (s: string): string => s.replaceAll("\t", "  ");
  const before = lead + widen(source.slice(begin, from));
  const marked = widen(source.slice(from, Math.min(to, finish)));
  return { text: lead + widen(source.slice(begin, finish)) + tail, caretStart: before.length, caretWidth: Math.max(1, marked.length) };
}

/** `2 errors, 1 warning` (and infos, when there are some). */
function summary(diagnostics: readonly Diagnostic[]): string {
  const count = (severity: Diagnostic["severity"]): number => diagnostics.filter((diagnostic) => diagnostic.severity === severity).length;
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;
  const infos = count("info");
  return `${plural(count("error"), "error")}, ${plural(count("warning"), "warning")}${infos > 0 ? `, ${infos} info` : ""}`;
}
