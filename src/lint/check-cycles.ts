/**
 * The graph stage of the linter: cycles (steps that can never run), and forward references that are
 * not part of one. It reuses the edges the per-step stage collected; nothing is scanned again.
 */
import { findCycles } from "../plan/graph.js";
import type { LocatedStep } from "../plan/plan.js";
import { draft, type Draft } from "./draft.js";
import type { NormalizedOptions } from "../shared/options.js";
import { firstReference, type StepScan } from "./check-references.js";

/**
 * Report each cycle once, at the reference from its first step to the next one, and the forward
 * references that are not inside a cycle.
 *
 * @example
 * const out: Draft[] = [];
 * checkCycles(read.steps, nodeOf, checkReferences(read.steps, nodeOf, out, { options }), options, out);
 */
export function checkCycles(
  steps: readonly LocatedStep[],
  nodeOf: ReadonlyMap<number, number>,
  scan: StepScan,
  options: NormalizedOptions,
  out: Draft[],
): void {
  const cycles = findCycles(scan.graph);
  const cycleOf = new Map<number, number>();
  cycles.forEach((cycle, index) => {
    for (const id of cycle) if (!cycleOf.has(id)) cycleOf.set(id, index);
    const [first, second] = cycle;
    if (first === undefined || second === undefined) return; // Self-loops are reported as self-ref.
    const from = steps[nodeOf.get(first) ?? -1];
    const edge = from === undefined ? undefined : firstReference(from, second, options);
    const around = [...cycle, first].map((id) => `step ${id}`).join(" → ");
    const message = `cycle: ${around}; each waits for the next, so none of these steps can ever run`;
    out.push(
      draft(
        "cycle",
        "error",
        message,
        edge === undefined ? { pointer: "", step: first } : { pointer: edge.pointer, step: first, span: edge.span },
      ),
    );
  });
  for (const edge of scan.forward) {
    const inCycle = cycleOf.get(edge.from.id);
    if (inCycle !== undefined && inCycle === cycleOf.get(edge.to.id)) continue;
    out.push(
      draft(
        "forward-ref",
        "warning",
        `step ${edge.from.id} uses the result of step ${edge.to.id}, which comes later in the plan; it runs (steps run in dependency order) but reads oddly: move step ${edge.to.id} before step ${edge.from.id}`,
        { pointer: edge.pointer, step: edge.from.id, span: edge.span },
      ),
    );
  }
}
