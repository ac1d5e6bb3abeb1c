/**
 * `plan-refs graph plan.json [--format svg|mermaid|dot] [--out FILE] [--catalog tools.json]`: a plan's
 * dependency graph as a picture (`plan-refs/draw`'s `planToSvg`, `planToMermaid`, `planToDot`), on
 * stdout or into a file. A plan with lint errors is still drawn (the errors in red) and exits 1, as
 * `plan-refs lint` would; usage and file errors exit 2 with nothing written.
 */
import { planToDot, planToMermaid, planToSvg } from "../draw/index.js";
import { lintPlan } from "../lint/lint-plan.js";
import type { ToolCatalog } from "../plan/plan.js";
import { printable } from "../shared/text.js";
import { parseFlags } from "./flags.js";
import { CliError } from "./input.js";
import { catalogBeside, readCatalog, readJsonInput, type CommandIo } from "./io.js";
import { checkResultsTarget, writeResults, type GuardedFile } from "./results-file.js";
import { commandHint, flagWords } from "./hint.js";

export const graphUsage = "usage: plan-refs graph <plan.json|-> [--format svg|mermaid|dot] [--out FILE] [--catalog tools.json]";

export const graphHelp = `${graphUsage}

Draw a plan's dependency graph: steps as boxes by execution level, left to right, labelled with their
id and tool; an arrow per dependency labelled with the keys it reads; references to missing steps,
cycles and lint errors in red. The SVG is self-contained and safe to open whatever the plan holds
(every text escaped, no script, no external reference); a large plan grows to the right (open it in
a browser and scroll) rather than shrinking.

options:
  --format svg|mermaid|dot   SVG (default), a Mermaid flowchart or Graphviz DOT; without --format,
                             an --out name ending in .mmd gives Mermaid and .dot or .gv gives DOT
  --out FILE                 write the picture to FILE instead of stdout (a regular file or a new
                             one; a symbolic link is written through; written whole or not at all;
                             never the plan or the catalog)
  --catalog FILE.json        the tool catalog: references to keys its output schemas lack are drawn
                             as errors (default: the plan's inline "tools", if any)
  -h, --help                 show this help

exit codes:
  0    drawn; the plan has no lint errors
  1    drawn, but the plan has lint errors (they are in red in the picture; plan-refs lint says more)
  2    usage or file errors (a file that cannot be read, a plan that is not JSON, a bad --out): nothing
       was written

examples:
  plan-refs graph examples/trip/plan.json --catalog examples/trip/tools.json
  plan-refs graph examples/lint/mistakes.plan.json --format mermaid
`;

/** The picture formats, and the file name endings that choose them when --format is not given. */
const FORMATS = ["svg", "mermaid", "dot"] as const;
type Format = (typeof FORMATS)[number];

/** The format an --out name implies: `.mmd` Mermaid, `.dot`/`.gv` DOT, anything else SVG. */
function formatOf(out: string | undefined): Format {
  const name = (out ?? "").toLowerCase();
  if (name.endsWith(".mmd") || name.endsWith(".mermaid")) return "mermaid";
  if (name.endsWith(".dot") || name.endsWith(".gv")) return "dot";
  return "svg";
}

/**
 * Run `plan-refs graph`; returns the exit code.
 *
 * @example
 * await graphCommand(["plan.json", "--format", "mermaid"], io) // 0 (the flowchart on stdout), 1 or 2
 */
export function graphCommand(argv: string[], io: CommandIo): number {
  const { values, positionals } = parseFlags(argv, {
    format: { type: "string", choices: FORMATS },
    out: { type: "string" },
    catalog: { type: "string" },
  });
  if (positionals.length !== 1)
    throw new CliError(`${positionals.length === 0 ? "missing the plan file" : "graph takes one plan file"}\n${graphUsage}`, "usage");
  const format = values.format ?? formatOf(values.out);
  const path = positionals[0]!;
  if (path === "-" && values.catalog === "-") throw new CliError("only one of the plan and --catalog can be read from stdin", "usage");
  const guarded: GuardedFile[] = [
    ...(path === "-" ? [] : [{ path, role: "the plan" }]),
    ...(values.catalog === undefined || values.catalog === "-" ? [] : [{ path: values.catalog, role: "the tool catalog" }]),
  ];
  // Checked before reading anything: a bad target is the first thing said.
  const target = values.out === undefined ? undefined : checkResultsTarget(values.out, io.cwd, guarded, "--out", "nothing was written");

  const { value: plan, text: planText } = readJsonInput(path, io);
  const catalog: ToolCatalog | undefined = values.catalog === undefined ? undefined : readCatalog(values.catalog, io);
  const diagnostics = lintPlan(plan, catalog === undefined ? {} : { tools: catalog });
  const drawOptions = { diagnostics, ...(catalog === undefined ? {} : { catalog }) };
  const picture =
    format === "mermaid"
      ? planToMermaid(plan, drawOptions)
      : format === "dot"
        ? planToDot(plan, drawOptions)
        : planToSvg(plan, drawOptions);
  const text = picture.endsWith("\n") ? picture : `${picture}\n`;

  if (target === undefined) io.stdout(text);
  else {
    const failure = writeResults(target, text, guarded);
    if (failure !== undefined)
      throw new CliError(`--out ${target.given}: cannot write the picture (${failure}); nothing was written`, "write-failed");
  }
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === "error").length;
  if (errors > 0) {
    const name = path === "-" ? "<stdin>" : printable(path);
    // lint reads the catalog beside the plan when it is given none: the hint says to lint as this was drawn.
    const sameCatalog =
      values.catalog === undefined && catalogBeside(path, planText, io) !== undefined ? ["--no-catalog"] : flagWords(values, ["catalog"]);
    io.stderr(
      `plan-refs: ${name} has ${errors} lint error${errors === 1 ? "" : "s"}, drawn in red (${commandHint(["lint", path, ...sameCatalog])} for details)\n`,
    );
    return 1;
  }
  return 0;
}
