/**
 * `plan-refs schema --catalog tools.json [--dialect json-schema|openai-strict] [--syntax seed|path]
 * [--templates] [--deep]`: print the JSON Schema of a plan over a tool catalog (`planSchema`), to give
 * a model as its structured output format.
 */
import { planSchema } from "../formats/plan-schema.js";
import { RefError } from "../shared/errors.js";
import { parseFlags } from "./flags.js";
import { SYNTAXES } from "../shared/options.js";
import { CliError } from "./input.js";
import { readCatalog, type CommandIo } from "./io.js";
import { printable } from "../shared/text.js";

export const schemaUsage =
  "usage: plan-refs schema --catalog <tools.json|-> [--dialect json-schema|openai-strict] [--syntax seed|path] [--templates] [--deep]";

export const schemaHelp = `${schemaUsage}

Print the JSON Schema of a plan over a tool catalog on stdout, for a model's structured output: each
step's "tool" is one of the catalog's names and its "args" follow that tool's input schema; where a
value may be a reference ($1.city), a string in the reference language is accepted too.

options:
  --catalog FILE.json   the tool catalog (- reads stdin) (required)
  --dialect NAME        json-schema (default): JSON Schema 2020-12; openai-strict: the subset OpenAI's
                        strict structured output accepts (every property required, optional ones
                        nullable, additionalProperties false; every rewrite: docs/agents.md)
  --syntax seed|path    the reference language of the plan (default: seed); run the plan with the same
  --templates           accept a whole-value \${1.city} where a reference may stand (default: off)
  --deep                accept references inside nested objects and arrays of args (default: top-level
                        arguments only)
  -h, --help            show this help

exit codes:
  0    the schema was printed
  2    usage or file errors (a catalog that cannot be read, is not JSON, has the wrong shape, has no
       tool, or is past a limit)

example:
  plan-refs schema --catalog examples/trip/tools.json --dialect openai-strict
`;

/**
 * Run `plan-refs schema`; returns the exit code.
 *
 * @example
 * schemaCommand(["--catalog", "tools.json", "--dialect", "openai-strict"], io) // 0, or 2
 */
export function schemaCommand(argv: string[], io: CommandIo): number {
  const { values } = parseFlags(
    argv,
    {
      catalog: { type: "string" },
      dialect: { type: "string", choices: ["json-schema", "openai-strict"] },
      syntax: { type: "string", choices: SYNTAXES },
      templates: { type: "boolean" },
      deep: { type: "boolean" },
    },
    { positionals: false },
  );
  if (values.catalog === undefined) throw new CliError(`missing --catalog\n${schemaUsage}`, "usage");
  const catalog = readCatalog(values.catalog, io);
  let schema: unknown;
  try {
    schema = planSchema(catalog, { dialect: values.dialect, syntax: values.syntax, templates: values.templates, deep: values.deep });
  } catch (error) {
    if (!(error instanceof RefError)) throw error;
    const name = values.catalog === "-" ? "<stdin>" : values.catalog;
    throw new CliError(`${name}: ${error.code}: ${error.message}`, error.code);
  }
  // Characters a terminal acts on (inside JSON strings only: JSON's structure is plain ASCII) become \uXXXX escapes: still JSON.
  const text = JSON.stringify(schema, null, 2)
    .split("\n")
    .map((line) => printable(line))
    .join("\n");
  io.stdout(`${text}\n`);
  return 0;
}
