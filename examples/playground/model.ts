// What the side panels show, computed from the plan value and the sample results without any DOM:
// each step's arguments resolved one by one (so one failing argument does not hide the others), and
// the dependency graph with the state of each edge.
import { planGraph } from "../../src/plan/graph.js";
import { readPlan, type PlanOptions, type PlanStep } from "../../src/plan/plan.js";
import { scanArgs } from "../../src/plan/references.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import type { Results } from "../../src/resolve/access.js";
import { KeyError, RefError } from "../../src/shared/errors.js";
import { normalizeOptions } from "../../src/shared/options.js";

export type ArgOutcome =
  | { readonly name: string; readonly ok: true; readonly value: unknown; readonly changed: boolean }
  | { readonly name: string; readonly ok: false; readonly error: RefError };

export interface StepModel {
  readonly id: number;
  readonly tool: string;
  readonly args: readonly ArgOutcome[];
}

/** `ok`: resolved; `failed`: resolving against the sample results failed there; `missing`: no such step; `cycle`: part of a cycle. */
export type EdgeState = "ok" | "failed" | "missing" | "cycle";

export interface EdgeModel {
  /** The referenced step. */
  readonly from: number;
  /** The step whose arguments hold the reference. */
  readonly to: number;
  readonly state: EdgeState;
}

export interface GraphModel {
  readonly steps: ReadonlyMap<number, string>;
  readonly levels: readonly (readonly number[])[];
  /** Steps in or behind a cycle: they have no level. */
  readonly stuck: readonly number[];
  /** Referenced step ids that no step has. */
  readonly missing: readonly number[];
  readonly edges: readonly EdgeModel[];
}

export interface PlaygroundModel {
  readonly steps: readonly StepModel[];
  readonly graph: GraphModel;
  /** Problems that stop the panels from being computed fully (invalid plan options). */
  readonly notes: readonly string[];
}

/** Compute the panels' model. Never throws: problems become notes or failed arguments. */
export function buildModel(planValue: unknown, results: Results): PlaygroundModel {
  const notes: string[] = [];
  const read = readPlan(planValue);
  const options: PlanOptions = read.plan.options ?? {};
  let normalized;
  try {
    normalized = normalizeOptions(options);
  } catch (error) {
    notes.push(error instanceof Error ? error.message : String(error));
    normalized = normalizeOptions(undefined);
  }
  const language = { syntax: normalized.syntax, templates: normalized.templates, deep: normalized.deep };
  const steps = read.plan.steps.map((step) => resolveStep(step, results, language));

  const ids = new Set(read.plan.steps.map((step) => step.id));
  const graph = planGraph(read.plan, language);
  const inCycle = new Set(graph.cycles.flat());
  const placed = new Set(graph.levels.flat());
  const failedEdges = new Set<string>();
  for (const step of steps) {
    for (const arg of step.args) {
      if (!arg.ok && arg.error instanceof KeyError && arg.error.step !== null) failedEdges.add(`${arg.error.step}>${step.id}`);
    }
  }

  const edges = new Map<string, EdgeModel>();
  const missing = new Set<number>();
  for (const step of read.plan.steps) {
    for (const ref of scanArgs(step.args, normalized).refs) {
      for (const node of ref.references) {
        const from = Number(node.step.id);
        if (!Number.isSafeInteger(from)) continue;
        const key = `${from}>${step.id}`;
        if (edges.has(key)) continue;
        let state: EdgeState = "ok";
        if (!ids.has(from)) {
          state = "missing";
          missing.add(from);
        } else if (inCycle.has(from) && inCycle.has(step.id)) state = "cycle";
        else if (failedEdges.has(key)) state = "failed";
        edges.set(key, { from, to: step.id, state });
      }
    }
  }
  return {
    steps,
    notes,
    graph: {
      steps: new Map(read.plan.steps.map((step) => [step.id, step.tool])),
      levels: graph.levels,
      stuck: read.plan.steps.map((step) => step.id).filter((id) => !placed.has(id)),
      missing: [...missing].sort((a, b) => a - b),
      edges: [...edges.values()],
    },
  };
}

function resolveStep(step: PlanStep, results: Results, options: object): StepModel {
  const args: ArgOutcome[] = [];
  for (const [name, value] of Object.entries(step.args)) {
    try {
      // One argument at a time, as its own object (defined, never assigned, so "__proto__" stays a plain key).
      const single = Object.fromEntries([[name, value]]) as Record<string, unknown>;
      const resolved = resolveRefs(single, results, options)[name];
      args.push({ name, ok: true, value: resolved, changed: resolved !== value });
    } catch (error) {
      args.push({ name, ok: false, error: error instanceof RefError ? error : new RefError("access", String(error)) });
    }
  }
  return { id: step.id, tool: step.tool, args };
}
