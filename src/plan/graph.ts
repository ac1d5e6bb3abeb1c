/**
 * The dependency graph of a plan: which steps each step references, which can run together, and the
 * cycles that can never run. Every algorithm here is iterative, so a 100,000-step chain cannot
 * overflow the stack, and linear in steps plus references.
 */
import { normalizeOptions, type ResolveOptions } from "../shared/options.js";
import { readPlan, type PlanStep } from "./plan.js";
import { scanArgs } from "./references.js";

/** Step ids to the steps they reference (or that reference them). */
export type StepEdges = Map<number, Set<number>>;

/** What `planGraph` returns. */
export interface PlanGraph {
  /** For each step, the steps it references (existing steps only). */
  readonly dependencies: StepEdges;
  /** For each step, the steps that reference it. */
  readonly dependents: StepEdges;
  /** Steps that can run at the same time once the previous levels are done; steps in or behind a cycle are in no level. */
  readonly levels: number[][];
  /** Each cycle as the steps around it, in reference order: `[1, 2]` means 1 references 2 and 2 references 1. */
  readonly cycles: number[][];
}

/**
 * Build the dependency graph of a plan (an object with `steps`, or an array of steps). Malformed steps
 * are left out; references to steps that do not exist are not edges (the linter reports them).
 *
 * @example
 * planGraph({ steps: [{ id: 1, tool: "geocode", args: {} }, { id: 2, tool: "weather", args: { at: "$1" } }] }).levels
 * // [[1], [2]]
 */
export function planGraph(plan: unknown, options?: ResolveOptions): PlanGraph {
  const read = readPlan(plan);
  const normalized = normalizeOptions({ ...read.plan.options, ...options });
  const ids = new Set(read.plan.steps.map((step) => step.id));
  const edges = new Map<number, Set<number>>();
  for (const step of read.plan.steps) {
    const targets = new Set<number>();
    for (const ref of scanArgs(step.args, normalized).refs) {
      for (const node of ref.references) {
        const target = Number(node.step.id);
        if (Number.isSafeInteger(target) && ids.has(target)) targets.add(target);
      }
    }
    edges.set(step.id, targets);
  }
  return graphFromEdges(read.plan.steps, edges);
}

/** The graph of steps whose dependency sets are already known. */
export function graphFromEdges(steps: readonly Pick<PlanStep, "id">[], dependencies: StepEdges): PlanGraph {
  const dependents: StepEdges = new Map(steps.map((step) => [step.id, new Set<number>()]));
  for (const [from, targets] of dependencies) for (const to of targets) dependents.get(to)?.add(from);
  return { dependencies, dependents, levels: levelsOf(steps, dependencies, dependents), cycles: cyclesOf(steps, dependencies) };
}

/** Kahn's algorithm by layers: a step's level is one more than its deepest dependency's. */
function levelsOf(steps: readonly Pick<PlanStep, "id">[], dependencies: StepEdges, dependents: StepEdges): number[][] {
  const waiting = new Map<number, number>();
  let current: number[] = [];
  for (const step of steps) {
    const count = dependencies.get(step.id)?.size ?? 0;
    waiting.set(step.id, count);
    if (count === 0) current.push(step.id);
  }
  const levels: number[][] = [];
  while (current.length > 0) {
    levels.push(current);
    const next: number[] = [];
    for (const id of current) {
      for (const dependent of dependents.get(id) ?? []) {
        const left = waiting.get(dependent)! - 1;
        waiting.set(dependent, left);
        if (left === 0) next.push(dependent);
      }
    }
    current = next;
  }
  return levels;
}

/** Tarjan's strongly connected components, iteratively; one elementary cycle reported per component. */
function cyclesOf(steps: readonly Pick<PlanStep, "id">[], dependencies: StepEdges): number[][] {
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;

  for (const { id: root } of steps) {
    if (index.has(root)) continue;
    const work: { node: number; edges: Iterator<number> }[] = [];
    const enter = (node: number): void => {
      index.set(node, counter);
      low.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: (dependencies.get(node) ?? new Set<number>()).values() });
    };
    enter(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const next = frame.edges.next();
      if (!next.done) {
        const target = next.value;
        if (!index.has(target)) enter(target);
        else if (onStack.has(target)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: number[] = [];
        let member: number;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && (dependencies.get(frame.node)?.has(frame.node) ?? false);
        if (component.length > 1 || selfLoop) components.push(component);
      }
    }
  }
  return components.map((component) => cycleThrough(component, dependencies)).sort((a, b) => a[0]! - b[0]!);
}

/** The shortest cycle through the smallest step of a component (breadth-first inside the component). */
function cycleThrough(component: number[], dependencies: StepEdges): number[] {
  const members = new Set(component);
  const start = component.reduce((a, b) => Math.min(a, b));
  const parent = new Map<number, number>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const target of dependencies.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const cycle = [node];
        while (cycle[cycle.length - 1] !== start) cycle.push(parent.get(cycle[cycle.length - 1]!)!);
        return cycle.reverse();
      }
      if (!parent.has(target)) {
        parent.set(target, node);
        queue.push(target);
      }
    }
  }
  return [...component].sort((a, b) => a - b);
}
