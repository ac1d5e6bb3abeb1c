/**
 * What a picture of a plan shows, computed without any geometry: the steps by execution level, the
 * steps that never run (in or behind a cycle), referenced steps that do not exist, one edge per
 * (referenced step, referencing step) pair with the keys it reads, and the linter's errors on each
 * step and edge. Never throws on any plan: what cannot be read is left out, as the linter does.
 */
import type { ReferenceNode } from "../grammar/ast.js";
import type { EarlierSteps } from "../lint/lint-options.js";
import { lintPlan } from "../lint/lint-plan.js";
import { graphFromEdges } from "../plan/graph.js";
import { OUTPUT_POINTER, readPlan, type ToolCatalog } from "../plan/plan.js";
import { scanArgs } from "../plan/references.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { RefError } from "../shared/errors.js";
import { layerOptions, type NormalizedOptions, type ResolveOptions } from "../shared/options.js";
import { ownData } from "../shared/own-data.js";

/**
 * The state of a dependency arrow: `ok`; `missing`: the referenced step does not exist; `cycle`: both
 * steps are in one cycle (or a step references itself); `error`: the linter reports an error at the
 * reference (an unknown key against the catalog, say).
 */
export type EdgeState = "ok" | "missing" | "cycle" | "error";

/** Options of `layoutPlan`, `planToSvg`, `planToMermaid` and `planToDot`. */
export interface DrawPlanOptions {
  /** The tool catalog the linter checks against (overrides the plan's inline `tools`). */
  readonly catalog?: ToolCatalog | undefined;
  /** Language options (`syntax`, `templates`, `deep`, limits); override the plan's own `options`. */
  readonly options?: ResolveOptions | undefined;
  /** Diagnostics already computed for this plan (`lintPlan`'s): the plan is then not linted again. */
  readonly diagnostics?: readonly Diagnostic[] | undefined;
  /** Most boxes stacked in one column before a level wraps into another column (default 12). */
  readonly maxRows?: number | undefined;
  /**
   * In a session, its earlier plans' steps (the shape `lintPlan` takes, `session.earlier()`): each one
   * this plan refers to is drawn apart, as an input of the plan (kind `earlier`), not as missing.
   */
  readonly earlierSteps?: EarlierSteps | undefined;
}

/**
 * The id of the plan's output in a picture (its node, and the `to` of the arrows into it): the output
 * is no step, and no step has a negative id.
 */
export const OUTPUT_NODE = -1;

/**
 * One node of the picture. `kind` `missing`: a referenced step that is not in the plan; `earlier`: a
 * referenced step of an earlier plan of the session (its result is an input of this plan); `output`:
 * the plan's output (id `OUTPUT_NODE`), after every level, fed by the steps it refers to.
 */
export interface PictureStep {
  readonly id: number;
  readonly tool: string;
  readonly kind: "step" | "stuck" | "missing" | "earlier" | "output";
  /** The 0-based execution level; `null` for steps that never run and missing steps. */
  readonly level: number | null;
  /** The linter's error messages about this step. */
  readonly errors: readonly string[];
}

/** One dependency: `to` reads the result of `from`. */
export interface PictureEdge {
  readonly from: number;
  readonly to: number;
  readonly state: EdgeState;
  /** The paths read from `from`'s result, in the order written (`city`, `items[0]`, `(whole result)`). */
  readonly keys: readonly string[];
  /** The linter's error messages at these references. */
  readonly errors: readonly string[];
}

/** The picture of a plan, without geometry. */
export interface PlanPicture {
  readonly steps: readonly PictureStep[];
  readonly levels: readonly (readonly number[])[];
  readonly stuck: readonly number[];
  readonly missing: readonly number[];
  /** The steps of earlier plans of the session that this plan refers to (its inputs), in id order. */
  readonly earlier: readonly number[];
  readonly edges: readonly PictureEdge[];
  /** Whether the plan has an output (then `steps` has its node, kind `output`). */
  readonly output: boolean;
  /** Lint errors that are about no step (the plan's shape, options, catalog). */
  readonly planErrors: readonly string[];
  /** How many lint errors there are in all. */
  readonly errorCount: number;
}

/**
 * The key an arrow label shows for a reference to a whole result (`$1`).
 *
 * @example
 * layoutPlan({ steps: [{ id: 1, tool: "a", args: {} }, { id: 2, tool: "b", args: { x: "$1" } }] }).edges[0]?.keys // [WHOLE_RESULT]
 */
export const WHOLE_RESULT = "(whole result)";

function pathText(node: ReferenceNode): string {
  if (node.path.length === 0) return WHOLE_RESULT;
  return node.path
    .map((segment, i) =>
      segment.type === "key"
        ? i === 0
          ? segment.name
          : `.${segment.name}`
        : segment.type === "index"
          ? `[${segment.index}]`
          : `[${JSON.stringify(segment.name)}]`,
    )
    .join("");
}

/** Append `value` to the list under `key` (made on first use). */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** An own data property (a getter is never run). */
export function ownOption(object: unknown, key: string): unknown {
  if (typeof object !== "object" || object === null) return undefined;
  try {
    return ownData(object, key);
  } catch {
    return undefined;
  }
}

/** A diagnostic's message, "" when it has none that is text (the diagnostics may be the caller's). */
function messageOf(diagnostic: unknown): string {
  const message = ownOption(diagnostic, "message");
  return typeof message === "string" ? message : "";
}

/** The draw options, checked: `RefError` `invalid-options` for a value that is not an object or a bad `maxRows`. */
export function readDrawOptions(given: unknown): {
  catalog: ToolCatalog | undefined;
  options: ResolveOptions | undefined;
  diagnostics: readonly Diagnostic[] | undefined;
  maxRows: number;
  earlierSteps: EarlierSteps | undefined;
} {
  if (given !== undefined && (typeof given !== "object" || given === null))
    throw new RefError("invalid-options", "the draw options must be an object");
  const maxRows = ownOption(given, "maxRows") ?? 12;
  if (typeof maxRows !== "number" || !Number.isSafeInteger(maxRows) || maxRows < 1)
    throw new RefError("invalid-options", "maxRows must be a positive integer");
  const diagnostics = ownOption(given, "diagnostics");
  if (diagnostics !== undefined && !Array.isArray(diagnostics))
    throw new RefError("invalid-options", "diagnostics must be an array (lintPlan's)");
  const earlierSteps = ownOption(given, "earlierSteps");
  if (earlierSteps !== undefined && !(ownOption(earlierSteps, "kept") instanceof Map))
    throw new RefError(
      "invalid-options",
      "earlierSteps must be a session's earlier steps (session.earlier(): { kept, forgotten, nextStepId })",
    );
  return {
    earlierSteps: earlierSteps as EarlierSteps | undefined,
    catalog: ownOption(given, "catalog") as ToolCatalog | undefined,
    options: ownOption(given, "options") as ResolveOptions | undefined,
    diagnostics: diagnostics as readonly Diagnostic[] | undefined,
    maxRows,
  };
}

/** The language options for scanning: the caller's over the plan's (`layerOptions`); a bad one is ignored (the linter reports it). */
function scanOptions(planOptions: object | undefined, options: ResolveOptions | undefined): NormalizedOptions {
  return layerOptions(planOptions, options).options;
}

/**
 * The picture of a plan (steps, levels, edges and their states). Never throws on any plan; bad
 * draw options are a `RefError` (`invalid-options`).
 *
 * @example
 * planPicture({ steps: [{ id: 1, tool: "geocode", args: {} }, { id: 2, tool: "weather", args: { q: "$1.city" } }] }).edges
 * // [{ from: 1, to: 2, state: "ok", keys: ["city"], errors: [] }]
 */
export function planPicture(plan: unknown, given?: DrawPlanOptions): PlanPicture {
  const settings = readDrawOptions(given);
  const read = readPlan(plan);
  const options = scanOptions(read.plan.options, settings.options);
  let diagnostics: readonly Diagnostic[];
  if (settings.diagnostics !== undefined) diagnostics = settings.diagnostics;
  else {
    const language = settings.options;
    const entries: [string, unknown][] = [];
    try {
      if (typeof language === "object" && language !== null)
        for (const key of Object.keys(language)) entries.push([key, ownOption(language, key)]);
    } catch {
      // An unreadable options object (a revoked Proxy): lint with the plan's own options.
    }
    if (settings.catalog !== undefined) entries.push(["tools", settings.catalog]);
    if (settings.earlierSteps !== undefined) entries.push(["earlierSteps", settings.earlierSteps]);
    // Defined, never assigned: a "__proto__" key stays a plain key (and lintPlan ignores it).
    diagnostics = lintPlan(plan, Object.fromEntries(entries));
  }
  const errors = diagnostics.filter((d) => ownOption(d, "severity") === "error");

  const ids = new Set(read.plan.steps.map((step) => step.id));
  const dependencies = new Map<number, Set<number>>();
  const edges = new Map<string, { from: number; to: number; keys: string[]; nodes: { pointer: string; node: ReferenceNode }[] }>();
  const missing = new Set<number>();
  const kept = settings.earlierSteps?.kept;
  const earlier = new Set<number>();
  // The arrows into one reader (a step, or the output), from the references in `args` at `pointer`.
  const readFrom = (args: Readonly<Record<string, unknown>>, to: number, pointer: string, targets: Set<number> | undefined): void => {
    for (const ref of scanArgs(args, options).refs) {
      for (const node of ref.references) {
        const from = Number(node.step.id);
        if (!Number.isSafeInteger(from)) continue;
        if (ids.has(from)) targets?.add(from);
        else if (kept?.has(from) === true)
          earlier.add(from); // an input of the plan: it waits for nothing
        else missing.add(from);
        const key = `${from}>${to}`;
        let edge = edges.get(key);
        if (edge === undefined) edges.set(key, (edge = { from, to, keys: [], nodes: [] }));
        const text = pathText(node);
        if (!edge.keys.includes(text)) edge.keys.push(text);
        edge.nodes.push({ pointer: pointer + ref.pointer, node });
      }
    }
  };
  for (const step of read.steps) {
    const targets = new Set<number>();
    dependencies.set(step.id, targets);
    readFrom(step.args, step.id, `${step.pointer}/args`, targets);
  }
  const output = read.plan.output;
  if (output !== undefined) readFrom(output, OUTPUT_NODE, OUTPUT_POINTER, undefined);
  const graph = graphFromEdges(read.plan.steps, dependencies);
  const cycleOf = new Map<number, number>();
  graph.cycles.forEach((cycle, i) => cycle.forEach((id) => cycleOf.set(id, i)));
  const placed = new Map<number, number>();
  graph.levels.forEach((level, i) => level.forEach((id) => placed.set(id, i)));

  // Lint errors by step, and by the pointer of the argument they are in.
  const stepErrors = new Map<number, string[]>();
  const pointerErrors = new Map<string, Diagnostic[]>();
  const planErrors: string[] = [];
  const outputErrors: string[] = [];
  for (const diagnostic of errors) {
    const message = messageOf(diagnostic);
    const step = ownOption(diagnostic, "step");
    const pointer = ownOption(diagnostic, "pointer");
    if (typeof step === "number" && ids.has(step)) pushTo(stepErrors, step, message);
    else if (
      output !== undefined &&
      typeof pointer === "string" &&
      (pointer === OUTPUT_POINTER || pointer.startsWith(`${OUTPUT_POINTER}/`))
    )
      outputErrors.push(message);
    else planErrors.push(message);
    if (typeof pointer === "string") pushTo(pointerErrors, pointer, diagnostic);
  }

  const pictureEdges: PictureEdge[] = [];
  for (const edge of edges.values()) {
    const found: string[] = [];
    for (const { pointer, node } of edge.nodes) {
      for (const diagnostic of pointerErrors.get(pointer) ?? []) {
        const span = ownOption(diagnostic, "span") as { start?: unknown; end?: unknown } | undefined;
        const overlaps =
          span === undefined ||
          (typeof span.start === "number" && typeof span.end === "number" && span.start < node.span.end && node.span.start < span.end);
        const message = messageOf(diagnostic);
        if (overlaps && !found.includes(message)) found.push(message);
      }
    }
    let state: EdgeState = "ok";
    if (!ids.has(edge.from) && !earlier.has(edge.from)) state = "missing";
    else if (edge.from === edge.to || (cycleOf.has(edge.from) && cycleOf.get(edge.from) === cycleOf.get(edge.to))) state = "cycle";
    else if (found.length > 0) state = "error";
    pictureEdges.push({ from: edge.from, to: edge.to, state, keys: edge.keys, errors: found });
  }

  const stuck = read.plan.steps.map((step) => step.id).filter((id) => !placed.has(id));
  const steps: PictureStep[] = read.plan.steps.map((step) => ({
    id: step.id,
    tool: step.tool,
    kind: placed.has(step.id) ? "step" : "stuck",
    level: placed.get(step.id) ?? null,
    errors: stepErrors.get(step.id) ?? [],
  }));
  const missingIds = [...missing].sort((a, b) => a - b);
  for (const id of missingIds) steps.push({ id, tool: "", kind: "missing", level: null, errors: [] });
  const earlierIds = [...earlier].sort((a, b) => a - b);
  for (const id of earlierIds) steps.push({ id, tool: kept?.get(id)?.tool ?? "", kind: "earlier", level: null, errors: [] });
  if (output !== undefined) {
    steps.push({ id: OUTPUT_NODE, tool: "output", kind: "output", level: null, errors: outputErrors });
  }
  return {
    steps,
    levels: graph.levels,
    stuck,
    missing: missingIds,
    earlier: earlierIds,
    edges: pictureEdges,
    output: output !== undefined,
    planErrors,
    errorCount: errors.length,
  };
}
