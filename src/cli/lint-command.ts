/**
 * `plan-refs lint plan.json [--catalog tools.json] [--tools tools.mjs] [--mcp "COMMAND"]… [--mcp-url URL]…
 * [--format pretty|json] [--strict]`: lint a plan file (with `--mcp`/`--mcp-url`, against MCP servers' schemas). Exit 0 with no errors (with `--strict`, no warnings either), 1 with some, 2 for
 * usage and file errors (a plan that is not JSON included: there is no plan to lint).
 */
import { lintPlanText } from "../lint/lint-plan.js";
import { parseJsonText } from "../plan/json-text.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { LineIndex } from "../shared/positions.js";
import { formatDiagnostics, locateDiagnostics, unknownTools } from "./diagnostics.js";
import { jsonSyntaxError } from "./source-excerpt.js";
import { parseFlags } from "./flags.js";
import { CliError, readTextInput } from "./input.js";
import { CATALOG_FLAGS, commandCatalog, NO_CATALOG_HELP, wantsColor, type CommandIo } from "./io.js";
import { wrongFlagHint } from "./file-kinds.js";
import { loadTools } from "./load-tools.js";
import { MCP_HELP, MCP_OPTIONS, withMcpServers } from "./mcp-flags.js";
import { combineCatalogs } from "../mcp/index.js";
import { printable } from "../shared/text.js";

export const lintUsage =
  'usage: plan-refs lint <plan.json|-> [--catalog <tools.json> | --no-catalog] [--tools <tools.mjs>] [--mcp "COMMAND"]… [--mcp-url URL]… [--mcp-timeout MS] [--format pretty|json] [--strict]';

export const lintHelp = `${lintUsage}

Lint a plan file: every reference checked against the plan (and, with a catalog, against the tools'
schemas) before anything runs. Prints file:line:column severity code message, the source line and
carets under the exact characters, then a count; or the diagnostics as a JSON array.

options:
  --catalog FILE.json   the tool catalog: unknown tools, keys missing from output schemas, type
                        mismatches against input schemas (default: the plan's inline "tools", if
                        any, else the tools.json beside the plan, if there is one)
${NO_CATALOG_HELP}
  --tools MODULE        the JavaScript module that implements the tools: a step whose tool it does
                        not export is an error (the module is imported: its top-level code runs)
${MCP_HELP}
                        With MCP servers, the plan is linted against their tools' schemas
                        (inputSchema, outputSchema); a --catalog entry replaces a server's
  --format pretty|json  pretty (default; colour on a terminal unless NO_COLOR is set) or json
  --strict              warnings fail too (exit 1)
  -h, --help            show this help

exit codes:
  0    no errors (with --strict: no warnings either)
  1    errors (with --strict: or warnings)
  2    usage or file errors (a file that cannot be read, is not JSON, or a catalog of the wrong shape)

example:
  plan-refs lint examples/lint/mistakes.plan.json --catalog examples/lint/tools.json
  plan-refs lint examples/mcp/plan.json --mcp "node examples/mcp/server.mjs"
`;

/**
 * Run `plan-refs lint`; returns the exit code.
 *
 * @example
 * await lintCommand(["plan.json", "--catalog", "tools.json", "--format", "json"], io) // 0, 1 or 2
 */
export async function lintCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    ...CATALOG_FLAGS,
    tools: { type: "string" },
    format: { type: "string", choices: ["pretty", "json"] },
    strict: { type: "boolean" },
    ...MCP_OPTIONS,
  });
  if (positionals.length !== 1)
    throw new CliError(`${positionals.length === 0 ? "missing the plan file" : "lint takes one plan file"}\n${lintUsage}`, "usage");
  const format = values.format ?? "pretty";
  const path = positionals[0]!;
  if (path === "-" && values.catalog === "-") throw new CliError("only one of the plan and --catalog can be read from stdin", "usage");
  const hint = values.tools === undefined ? undefined : wrongFlagHint("--tools", values.tools);
  if (hint !== undefined) throw new CliError(hint, "wrong-flag");

  const name = path === "-" ? "<stdin>" : printable(path);
  const text = readTextInput(path, io);
  const { catalog } = commandCatalog(values, path, text, io);
  const module = values.tools === undefined ? undefined : await loadTools(values.tools, io);
  return withMcpServers(values, io, async (servers) => {
    // With servers, the catalog holds every tool (a module's too): the linter reports unknown tools.
    const tools =
      servers === undefined
        ? catalog
        : combineCatalogs(
            servers,
            module === undefined ? undefined : { names: module.names, label: `--tools ${printable(values.tools!)}` },
            catalog,
          );
    let diagnostics = lintPlanText(text, tools === undefined ? {} : { tools });
    // Not JSON: there is no plan to lint, so it is a file error like the others; with --format json,
    // stdout still holds JSON (what lintPlanText found), for a program that reads it.
    const syntax = diagnostics.find((diagnostic) => diagnostic.code === "json-syntax");
    if (syntax !== undefined) {
      if (format === "json") io.stdout(`${JSON.stringify(diagnostics, null, 2)}\n`);
      const start = syntax.range?.start ?? { line: 1, column: 1 };
      const length = syntax.range !== undefined && syntax.range.end.line === start.line ? syntax.range.end.column - start.column : 1;
      throw jsonSyntaxError(name, text, { ...start, length }, syntax.message);
    }
    if (module !== undefined && servers === undefined)
      diagnostics = mergeByOffset(diagnostics, locateDiagnostics(text, unknownTools(planValue(text), module.names, values.tools!)));
    if (format === "json") {
      io.stdout(`${JSON.stringify(diagnostics, null, 2)}\n`);
    } else {
      const color = wantsColor(io, io.stdoutIsTTY);
      io.stdout(formatDiagnostics(diagnostics, name, new LineIndex(text), color));
    }
    const errors = diagnostics.some((diagnostic) => diagnostic.severity === "error");
    const warnings = diagnostics.some((diagnostic) => diagnostic.severity === "warning");
    return errors || (values.strict === true && warnings) ? 1 : 0;
  });
}

/** The plan value of a text `lintPlanText` accepted as JSON. */
function planValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const document = parseJsonText(text);
    return document.ok ? document.value : undefined;
  }
}

/** Two lists of located diagnostics as one, in file order (stable: the first list first on ties). */
function mergeByOffset(a: readonly Diagnostic[], b: readonly Diagnostic[]): Diagnostic[] {
  return [...a, ...b]
    .map((d, i) => [d, i] as const)
    .sort(([x, i], [y, j]) => (x.offset?.start ?? 0) - (y.offset?.start ?? 0) || i - j)
    .map(([d]) => d);
}
