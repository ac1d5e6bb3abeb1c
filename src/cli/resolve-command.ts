/**
 * `plan-refs resolve --args args.json --results results.json [--syntax path] [--templates] [--deep] [--strict]`:
 * print the resolved arguments as JSON. An error in the arguments is printed the linter's way: the
 * args file's line and column, the source line, carets under the failing characters, and a
 * did-you-mean for a key that is close to one the result has.
 */
import { referencesIn } from "../grammar/ast.js";
import { parseRef } from "../grammar/parse.js";
import { didYouMean } from "../lint/did-you-mean.js";
import type { RefAst } from "../grammar/ast.js";
import { readIndex, readKey, readStep, type Results } from "../resolve/access.js";
import { callContext, type EvaluationContext } from "../resolve/evaluate.js";
import { evaluatePlaceholder, resolveRefs } from "../resolve/resolve-refs.js";
import { ArgsWalk } from "../resolve/walk-args.js";
import { normalizeOptions, type NormalizedOptions } from "../shared/options.js";
import type { Diagnostic, DiagnosticCode } from "../shared/diagnostic.js";
import { KeyError, RefError } from "../shared/errors.js";
import { LineIndex } from "../shared/positions.js";
import { quoted } from "../shared/text.js";
import { locateDiagnostics, printDiagnostics } from "./diagnostics.js";
import { parseFlags } from "./flags.js";
import { SYNTAXES } from "../shared/options.js";
import { CliError } from "./input.js";
import { readJsonInput, type CommandIo } from "./io.js";
import { printable } from "../shared/text.js";
import { reportResults } from "../run/report-json.js";

export const resolveUsage =
  "usage: plan-refs resolve --args <file|-> --results <file|-> [--syntax seed|path] [--templates] [--deep] [--strict]";

export const resolveHelp = `${resolveUsage}

Resolve the placeholders of a tool call's arguments ($1.city) against step results, and print the
resolved arguments as JSON on stdout.

options:
  --args FILE       the arguments object (JSON; - reads stdin) (required)
  --results FILE    the step results: an object or array keyed by step id, or a run report (what
                    plan-refs run --results writes: its results are used) (JSON; - reads stdin) (required)
  --syntax seed|path   seed (default): $1.key, the key is the rest of the string; path: $1.a.b[0]
  --templates       interpolate \${1.city} inside strings (default: off)
  --deep            resolve placeholders inside nested objects and arrays too (default: top level only)
  --strict          a string that starts with $ and a digit but does not parse is an error
  -h, --help        show this help

exit codes:
  0    resolved
  1    a reference could not be resolved (printed with its line and column in the args file)
  2    usage or file errors (a file that cannot be read or is not JSON, args that are not an object)

example:
  plan-refs resolve --args examples/seed/args.json --results examples/seed/results.json
`;

export function resolveCommand(argv: string[], io: CommandIo): number {
  const { values } = parseFlags(
    argv,
    {
      args: { type: "string" },
      results: { type: "string" },
      syntax: { type: "string", choices: SYNTAXES },
      templates: { type: "boolean" },
      deep: { type: "boolean" },
      strict: { type: "boolean" },
    },
    { positionals: false },
  );
  if (values.args === undefined || values.results === undefined)
    throw new CliError(`missing --args or --results\n${resolveUsage}`, "usage");
  if (values.args === "-" && values.results === "-") throw new CliError("only one of --args and --results can be read from stdin", "usage");
  const args = readJsonInput(values.args, io);
  const given = readJsonInput(values.results, io).value;
  // A run report (plan-refs run --results) holds the step results under "results": resolve against those.
  const results = reportResults(given) ?? given;
  const options = { syntax: values.syntax, templates: values.templates, deep: values.deep, strict: values.strict };
  try {
    const resolved = resolveRefs(args.value as Record<string, unknown>, results as Results, options);
    io.stdout(`${JSON.stringify(resolved, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof RefError)) throw error;
    if (error.code === "invalid-args" || error.code === "invalid-results") {
      io.stderr(`plan-refs: ${error.name} ${error.code}: ${printable(error.message)}\n`);
      return 2;
    }
    const name = values.args === "-" ? "<stdin>" : printable(values.args);
    // Each reference that fails, as the linter reports each problem, not only the first.
    const errors = everyError(args.value as Record<string, unknown>, results as Results, normalizeOptions(options), error);
    const diagnostics = errors.map((each) => {
      const hint = each instanceof KeyError ? suggestKey(each, results, options) : "";
      // Where it happened: the argument (a JSON Pointer into the args file) and the characters inside it.
      return {
        code: each.code as DiagnosticCode,
        severity: "error",
        message: `${each.name}: ${each.arg === undefined ? each.message : each.detail}${hint}`,
        pointer: each.arg ?? "",
        ...(each.arg !== undefined && each.span !== undefined ? { span: each.span } : {}),
      } satisfies Diagnostic;
    });
    printDiagnostics(io, locateDiagnostics(args.text, diagnostics), name, new LineIndex(args.text));
    return 1;
  }
}

/**
 * Every error `resolveRefs` meets in `args`, in its order, `first` (the one it threw) first: the same
 * walk, going on after a placeholder that fails; inside a template, each interpolation on its own. An
 * error of the walk itself (a limit, a cycle) ends the list, as it ends `resolveRefs`.
 */
function everyError(args: Record<string, unknown>, results: Results, options: NormalizedOptions, first: RefError): RefError[] {
  const walk = new EveryError(results, options);
  try {
    walk.run(args);
  } catch (error) {
    if (!(error instanceof RefError)) return [first];
    walk.errors.push(error);
  }
  const found = walk.errors;
  // The walk meets the same first error; should it not, the error resolveRefs threw is still shown.
  return found.length > 0 && sameError(found[0]!, first) ? found : [first, ...found.filter((error) => !sameError(error, first))];
}

function sameError(a: RefError, b: RefError): boolean {
  return a.code === b.code && a.message === b.message && a.arg === b.arg;
}

/** `resolveRefs`' walk that records each failing placeholder's error and goes on; it builds nothing. */
class EveryError extends ArgsWalk<undefined> {
  readonly errors: RefError[] = [];
  readonly #context: EvaluationContext;

  constructor(
    readonly results: Results,
    options: NormalizedOptions,
  ) {
    super(options);
    this.#context = callContext(options);
  }

  run(args: Record<string, unknown>): void {
    this.walkTop(args);
  }

  protected constant(): undefined {
    return undefined;
  }

  protected container(): undefined {
    return undefined;
  }

  protected placeholder(ast: RefAst, text: string, parent: string, key: string): undefined {
    const before = this.errors.length;
    if (ast.type === "template") {
      for (const part of ast.parts) if (part.type === "interpolation") this.#evaluate(part.expression, text, parent, key);
    }
    // The whole value (a template's own errors: its output's length): when its parts had none.
    if (this.errors.length === before) this.#evaluate(ast, text, parent, key);
    return undefined;
  }

  #evaluate(ast: RefAst, text: string, parent: string, key: string): void {
    try {
      evaluatePlaceholder(ast, text, this.results, this.#context, parent, key);
    } catch (error) {
      if (!(error instanceof RefError)) throw error;
      this.errors.push(error);
    }
  }
}

/** "; did you mean "city"?" for a missing key close to one the result has there, else "". Never throws. */
function suggestKey(
  error: KeyError,
  results: unknown,
  options: { syntax?: "seed" | "path" | undefined; templates?: boolean | undefined },
): string {
  if (
    error.code !== "missing-key" ||
    typeof error.key !== "string" ||
    error.ref === undefined ||
    error.segment === undefined ||
    error.span === undefined
  )
    return "";
  try {
    const ast = parseRef(error.ref, { syntax: options.syntax, templates: options.templates });
    const span = error.span;
    const reference = referencesIn(ast).find((node) =>
      node.path.some((segment) => segment.span.start === span.start && segment.span.end === span.end),
    );
    if (reference === undefined) return "";
    let value = readStep(results as Results, reference.step.id);
    for (const segment of reference.path.slice(0, error.segment)) {
      value = segment.type === "index" ? readIndex(value, segment.index) : readKey(value, segment.name);
    }
    if (typeof value !== "object" || value === null) return "";
    const keys = value instanceof Map ? [...value.keys()].filter((key): key is string => typeof key === "string") : Object.keys(value);
    const suggestion = didYouMean(error.key, keys);
    return suggestion === undefined ? "" : `; did you mean ${quoted(suggestion)}?`;
  } catch {
    return "";
  }
}
