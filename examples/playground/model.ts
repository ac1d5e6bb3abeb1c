// What the side panels show, computed from the plan value and the sample results without any DOM:
// each step's arguments resolved one by one (so one failing argument does not hide the others), and
// the references that fail against the sample results (the graph, drawn by planToSvg, shows them red).
import { readPlan, type PlanOptions, type PlanStep } from "../../src/plan/plan.js";
import { scanArgs } from "../../src/plan/references.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import type { Results } from "../../src/resolve/access.js";
import { KeyError, RefError } from "../../src/shared/errors.js";
import { normalizeOptions } from "../../src/shared/options.js";
import type { Diagnostic } from "../../src/shared/diagnostic.js";

export type ArgOutcome =
  | { readonly name: string; readonly ok: true; readonly value: unknown; readonly changed: boolean }
  | { readonly name: string; readonly ok: false; readonly error: RefError };

export interface StepModel {
  readonly id: number;
  readonly tool: string;
  readonly args: readonly ArgOutcome[];
}

export interface PlaygroundModel {
  readonly steps: readonly StepModel[];
  /**
   * References that fail against the sample results, as diagnostics at their argument: the graph
   * (planToSvg) draws their arrows red, as it draws lint errors.
   */
  readonly failed: readonly Diagnostic[];
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

  const failed: Diagnostic[] = [];
  for (const [index, step] of read.steps.entries()) {
    const outcomes = steps[index]!;
    for (const ref of scanArgs(step.args, normalized).refs) {
      const name = decodePointerToken(ref.pointer.split("/")[1] ?? "");
      const outcome = outcomes.args.find((arg) => arg.name === name);
      if (outcome === undefined || outcome.ok || !(outcome.error instanceof KeyError) || outcome.error.step === null) continue;
      const from = outcome.error.step;
      if (!ref.references.some((node) => Number(node.step.id) === from)) continue;
      failed.push({
        code: "unknown-key",
        severity: "error",
        step: step.id,
        pointer: `${step.pointer}/args${ref.pointer}`,
        message: `$${step.id} references $${from}, which fails against the sample results: ${outcome.error.message}`,
      });
    }
  }
  return { steps, notes, failed };
}

/** A JSON Pointer token's text (`~1` is `/`, `~0` is `~`). */
function decodePointerToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
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
