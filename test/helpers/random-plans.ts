/**
 * Random plans for the resume and approval properties: steps 1..n, each reading the results of some
 * earlier steps, on a few tools; and tools that count their calls by step.
 */
import fc from "fast-check";
import type { ToolContext, ToolFunctions } from "../../src/index.js";

export const TOOL_NAMES = ["fetch", "pay", "mail"] as const;

export interface RandomStep {
  readonly id: number;
  readonly tool: (typeof TOOL_NAMES)[number];
  readonly args: Record<string, unknown>;
}

/** A plan of 1 to `max` steps; step i reads `$j` for each earlier step j it depends on. */
export function randomPlan(max = 10): fc.Arbitrary<{ steps: RandomStep[] }> {
  return fc.integer({ min: 1, max }).chain((n) =>
    fc
      .tuple(
        fc.array(fc.constantFrom(...TOOL_NAMES), { minLength: n, maxLength: n }),
        fc.array(fc.array(fc.boolean(), { minLength: n, maxLength: n }), { minLength: n, maxLength: n }),
      )
      .map(([tools, edges]) => ({
        steps: tools.map((tool, i) => {
          const args: Record<string, unknown> = { n: i + 1 };
          for (let j = 0; j < i; j++) if (edges[i]![j]) args[`from${j + 1}`] = `$${j + 1}`;
          return { id: i + 1, tool, args };
        }),
      })),
  );
}

/** The steps a step depends on, transitively. */
export function ancestors(plan: { steps: readonly RandomStep[] }, id: number): Set<number> {
  const seen = new Set<number>();
  const visit = (current: number): void => {
    const step = plan.steps.find((candidate) => candidate.id === current)!;
    for (const value of Object.values(step.args)) {
      const dependency = typeof value === "string" ? Number(value.slice(1)) : undefined;
      if (dependency !== undefined && !seen.has(dependency)) {
        seen.add(dependency);
        visit(dependency);
      }
    }
  };
  visit(id);
  return seen;
}

/** Tools that count calls by step id; a step in `failing` throws. */
export function countingTools(failing: ReadonlySet<number> = new Set()): { tools: ToolFunctions; calls: Map<number, number> } {
  const calls = new Map<number, number>();
  const tool = (args: Record<string, unknown>, context: ToolContext): unknown => {
    calls.set(context.stepId, (calls.get(context.stepId) ?? 0) + 1);
    if (failing.has(context.stepId)) throw new Error(`step ${context.stepId} fails`);
    return { step: context.stepId, n: args.n };
  };
  return { tools: Object.fromEntries(TOOL_NAMES.map((name) => [name, tool])), calls };
}
