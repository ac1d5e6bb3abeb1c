/**
 * `plan-refs run plan.json --tools ./tools.mjs [--catalog tools.json] [--results out.json]
 *  [--concurrency N] [--timeout MS] [--fail-fast] [--validate-outputs]`: run a plan with the tools a
 * module exports by name. Progress goes to stderr, the results to stdout as JSON (or to --results).
 */
import { renameSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { lintPlanText } from "../lint/index.js";
import { readTools, type ToolCatalog } from "../plan/plan.js";
import { runPlan, type RunReport, type ToolFunction, type ToolFunctions } from "../run/run-plan.js";
import { LineIndex } from "../shared/positions.js";
import { CliError } from "./input.js";
import { readJsonInput, type CliIo } from "./io.js";
import { formatDiagnostics } from "./lint-command.js";
import { liveProgress, lineProgress } from "./progress.js";

export const runUsage =
  "usage: plan-refs run <plan.json|-> --tools <tools.mjs> [--catalog tools.json] [--results out.json] [--concurrency N] [--timeout MS] [--fail-fast] [--validate-outputs]";

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      tools: { type: "string" },
      catalog: { type: "string" },
      results: { type: "string" },
      concurrency: { type: "string" },
      timeout: { type: "string" },
      "fail-fast": { type: "boolean" },
      "validate-outputs": { type: "boolean" },
    },
    strict: true,
    allowPositionals: true,
  });
  const [planPath, ...extra] = positionals;
  if (planPath === undefined || extra.length > 0) throw new CliError(`expected exactly one plan file\n${runUsage}`, "usage");
  if (values.tools === undefined) throw new CliError(`missing --tools <module>\n${runUsage}`, "usage");
  const concurrency = positiveInteger(values.concurrency, "--concurrency");
  const timeoutMs = positiveInteger(values.timeout, "--timeout");

  const planName = planPath === "-" ? "<stdin>" : planPath;
  const { value: planValue, text: planText } = readJsonInput(planPath);
  let catalog: ToolCatalog | undefined;
  if (values.catalog !== undefined) {
    const problems: string[] = [];
    catalog = readTools(readJsonInput(values.catalog).value, (pointer, message) => problems.push(`${values.catalog}: ${pointer || "/"}: ${message}`), "");
    if (problems.length > 0) throw new CliError(problems.join("\n"), "invalid-catalog");
  }
  const tools = await loadTools(values.tools);

  const diagnostics = lintPlanText(planText, catalog === undefined ? {} : { tools: catalog });
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === "error");
  if (errors.length > 0) {
    io.stderr(formatDiagnostics(errors, planName, new LineIndex(planText), io.stderrIsTTY));
    io.stderr(`plan-refs: ${planName} has ${errors.length} lint error${errors.length > 1 ? "s" : ""}; nothing was run\n`);
    return 2;
  }

  const steps = stepList(planValue);
  const progress = io.stderrIsTTY ? liveProgress(io.stderr, steps) : lineProgress(io.stderr);
  // A tool whose promise never settles holds no handle of its own: keep the process alive until the
  // run ends or Ctrl-C aborts it, rather than letting Node exit with nothing written.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  let report: RunReport;
  try {
    report = await runPlan(planValue, tools, {
      ...(catalog === undefined ? {} : { catalog }),
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      failFast: values["fail-fast"] === true,
      validateOutputs: values["validate-outputs"] === true,
      onEvent: progress.onEvent,
      ...(io.signal === undefined ? {} : { signal: io.signal }),
    });
  } finally {
    clearInterval(keepAlive);
  }
  progress.finish();

  if (report.status === "invalid") {
    // Only problems the text lint could not see (a tool the module does not export) reach here.
    io.stderr(report.diagnostics.filter((d) => d.severity === "error").map((d) => `${planName}: ${d.severity} ${d.code} ${d.message} (at ${d.pointer})\n`).join(""));
    io.stderr(`plan-refs: nothing was run\n`);
    return 2;
  }
  const output = `${JSON.stringify(reportJson(report), null, 2)}\n`;
  if (values.results === undefined) io.stdout(output);
  else writeAtomically(values.results, output);
  io.stderr(summary(report));
  return report.status === "ok" ? 0 : report.status === "aborted" ? 130 : 1;
}

function positiveInteger(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(value) || value < 1) throw new CliError(`${flag} must be a positive integer, not "${text.slice(0, 20)}"`, "usage");
  return value;
}

/** Import the tools module; its exported functions (named, or on a default-exported object) are the tools. */
async function loadTools(path: string): Promise<ToolFunctions> {
  const absolute = resolve(path);
  let isFile = false;
  try {
    isFile = statSync(absolute).isFile();
  } catch {
    throw new CliError(`${path}: no such tools module`, "tools-module");
  }
  if (!isFile) throw new CliError(`${path}: the tools module must be a regular file`, "tools-module");
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    throw new CliError(`${path}: cannot load the tools module: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`, "tools-module");
  }
  const tools: Record<string, ToolFunction> = Object.create(null) as Record<string, ToolFunction>;
  const fromDefault = module.default;
  if (typeof fromDefault === "object" && fromDefault !== null) {
    for (const [name, value] of Object.entries(fromDefault)) if (typeof value === "function") tools[name] = value as ToolFunction;
  }
  for (const [name, value] of Object.entries(module)) if (name !== "default" && typeof value === "function") tools[name] = value as ToolFunction;
  return tools;
}

function stepList(plan: unknown): { id: number; tool: string }[] {
  const steps = Array.isArray(plan) ? plan : (plan as { steps?: unknown }).steps;
  return Array.isArray(steps) ? steps.map((step: { id: number; tool: string }) => ({ id: step.id, tool: step.tool })) : [];
}

/** The report as JSON: results and errors keyed by step id. */
export function reportJson(report: RunReport): Record<string, unknown> {
  return {
    status: report.status,
    results: Object.fromEntries(report.results),
    errors: Object.fromEntries([...report.errors].map(([id, error]) => [id, { code: error.code, message: error.message }])),
    skipped: report.skipped,
    timings: { totalMs: Math.round(report.timings.totalMs), steps: Object.fromEntries([...report.timings.steps].map(([id, t]) => [id, Math.round(t.durationMs)])) },
  };
}

function summary(report: RunReport): string {
  const failed = report.errors.size;
  return `plan-refs: ${report.status}: ${report.results.size} result${report.results.size === 1 ? "" : "s"}, ${failed} failed, ${report.skipped.length} skipped in ${Math.round(report.timings.totalMs)} ms\n`;
}

/** Write to a temporary file beside the target, then rename: the target is never left half written. */
function writeAtomically(path: string, text: string): void {
  const temporary = join(dirname(resolve(path)), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    throw new CliError(`${path}: cannot write the results (${(error as NodeJS.ErrnoException).code ?? "error"})`, "write-failed");
  }
}
