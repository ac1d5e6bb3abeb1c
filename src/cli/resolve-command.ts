/**
 * `plan-refs resolve --args args.json --results results.json [--syntax path] [--templates] [--deep] [--strict]`:
 * print the resolved arguments as JSON.
 */
import { parseArgs } from "node:util";
import { resolveRefs } from "../resolve/resolve-refs.js";
import type { Results } from "../resolve/access.js";
import { RefError } from "../shared/errors.js";
import { CliError } from "./input.js";
import { readJsonInput, type CliIo } from "./io.js";

export const resolveUsage = "usage: plan-refs resolve --args <file|-> --results <file|-> [--syntax seed|path] [--templates] [--deep] [--strict]";

export function resolveCommand(argv: string[], io: CliIo): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      args: { type: "string" },
      results: { type: "string" },
      syntax: { type: "string" },
      templates: { type: "boolean" },
      deep: { type: "boolean" },
      strict: { type: "boolean" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.args === undefined || values.results === undefined) throw new CliError(`missing --args or --results\n${resolveUsage}`, "usage");
  if (values.args === "-" && values.results === "-") throw new CliError("only one of --args and --results can be read from stdin", "usage");
  if (values.syntax !== undefined && values.syntax !== "seed" && values.syntax !== "path") throw new CliError(`--syntax must be "seed" or "path"`, "usage");
  const args = readJsonInput(values.args).value;
  const results = readJsonInput(values.results).value;
  try {
    const resolved = resolveRefs(args as Record<string, unknown>, results as Results, {
      syntax: values.syntax as "seed" | "path" | undefined,
      templates: values.templates,
      deep: values.deep,
      strict: values.strict,
    });
    io.stdout(`${JSON.stringify(resolved, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof RefError)) throw error;
    const invalidInput = error.code === "invalid-args" || error.code === "invalid-results";
    io.stderr(`plan-refs: ${error.name} ${error.code}: ${error.message}\n`);
    return invalidInput ? 2 : 1;
  }
}
