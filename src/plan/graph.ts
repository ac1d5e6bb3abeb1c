/**
 * The dependency graph of a plan: which steps each step references, which can run together, and the
 * cycles that can never run. Every algorithm here is iterative, so a 100,000-step chain cannot
 * overflow the stack, and linear in steps plus references: steps are numbered densely once and the
 * edges kept in typed arrays, so a large plan costs few allocations.
 */
import { layeredOptions, type ResolveOptions } from "../shared/options.js";
import { readPlan, type PlanStep } from "./plan.js";
import { referencedStepIds } from "../grammar/ast.js";
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
  const normalized = layeredOptions(read.plan.options, options);
  const ids = new Set(read.plan.steps.map((step) => step.id));
  const edges = new Map<number, Set<number>>();
  for (const step of read.plan.steps) {
    const targets = new Set<number>();
    for (const ref of scanArgs(step.args, normalized).refs) {
      for (const target of referencedStepIds(ref.ast)) if (ids.has(target)) targets.add(target);
    }
    edges.set(step.id, targets);
  }
  return graphFromEdges(read.plan.steps, edges);
}

/**
 * The graph of steps whose dependency sets are already known (targets that are not steps are ignored).
 *
 * @example
 * graphFromEdges([{ id: 1 }, { id: 2 }], new Map([[2, new Set([1])]])).levels // [[1], [2]]
 */
export function graphFromEdges(steps: readonly Pick<PlanStep, "id">[], dependencies: ReadonlyMap<number, Iterable<number>>): PlanGraph {
  const dense = denseGraph(steps, dependencies);
  const ids = dense.ids;
  const outDependencies: StepEdges = new Map();
  const dependents: StepEdges = new Map();
  for (const id of ids) {
    outDependencies.set(id, new Set());
    dependents.set(id, new Set());
  }
  for (let node = 0; node < ids.length; node++) {
    const from = ids[node]!;
    for (let e = dense.offsets[node]!; e < dense.offsets[node + 1]!; e++) {
      const to = ids[dense.targets[e]!]!;
      outDependencies.get(from)!.add(to);
      dependents.get(to)!.add(from);
    }
  }
  return {
    dependencies: outDependencies,
    dependents,
    levels: levelsOf(dense).map((level) => level.map((node) => ids[node]!)),
    cycles: cyclesOf(dense),
  };
}

/**
 * Only the cycles of a graph whose steps are already numbered (what the linter builds while it scans),
 * without building the public maps.
 *
 * @example
 * findCycles({ ids: [1, 2], offsets: Int32Array.of(0, 1, 2), targets: Int32Array.of(1, 0) }) // [[1, 2]]
 */
export function findCycles(graph: DenseGraph): number[][] {
  return cyclesOf(graph);
}

/**
 * Steps numbered 0..n-1 (`ids[i]` is the id of node i, ids unique); the nodes that node i references
 * are `targets[offsets[i] .. offsets[i+1])`, each once, in the order they were written.
 */
export interface DenseGraph {
  readonly ids: readonly number[];
  readonly offsets: Int32Array;
  readonly targets: Int32Array;
}

function denseGraph(steps: readonly Pick<PlanStep, "id">[], dependencies: ReadonlyMap<number, Iterable<number>>): DenseGraph {
  const ids: number[] = [];
  const nodeOf = new Map<number, number>();
  for (const { id } of steps) {
    if (nodeOf.has(id)) continue; // A duplicate id is one step.
    nodeOf.set(id, ids.length);
    ids.push(id);
  }
  const offsets = new Int32Array(ids.length + 1);
  const collected: number[] = [];
  ids.forEach((id, node) => {
    for (const target of dependencies.get(id) ?? []) {
      const to = nodeOf.get(target);
      if (to !== undefined) collected.push(to);
    }
    offsets[node + 1] = collected.length;
  });
  return { ids, offsets, targets: Int32Array.from(collected) };
}

/** Kahn's algorithm by layers: a step's level is one more than its deepest dependency's. */
function levelsOf(graph: DenseGraph): number[][] {
  const n = graph.ids.length;
  const { offsets, targets } = graph;
  // Reverse edges (dependents), in the same compressed form.
  const reverseOffsets = new Int32Array(n + 1);
  for (let e = 0; e < targets.length; e++) reverseOffsets[targets[e]! + 1]!++;
  for (let node = 0; node < n; node++) reverseOffsets[node + 1]! += reverseOffsets[node]!;
  const fill = reverseOffsets.slice(0, n);
  const sources = new Int32Array(targets.length);
  const waiting = new Int32Array(n);
  for (let node = 0; node < n; node++) {
    for (let e = offsets[node]!; e < offsets[node + 1]!; e++) {
      const to = targets[e]!;
      sources[fill[to]!++] = node;
      waiting[node]!++;
    }
  }
  let current: number[] = [];
  for (let node = 0; node < n; node++) if (waiting[node] === 0) current.push(node);
  const levels: number[][] = [];
  while (current.length > 0) {
    levels.push(current);
    const next: number[] = [];
    for (const node of current) {
      for (let e = reverseOffsets[node]!; e < reverseOffsets[node + 1]!; e++) {
        const dependent = sources[e]!;
        if (--waiting[dependent]! === 0) next.push(dependent);
      }
    }
    current = next;
  }
  return levels;
}

/** Tarjan's strongly connected components, iteratively; one elementary cycle reported per component. */
function cyclesOf(graph: DenseGraph): number[][] {
  const n = graph.ids.length;
  const { offsets, targets, ids } = graph;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack = new Int32Array(n);
  let stackSize = 0;
  // The explicit call stack: the node and the position of the next edge to follow.
  const callNode = new Int32Array(n);
  const callEdge = new Int32Array(n);
  let depth = 0;
  let counter = 0;
  const cycles: number[][] = [];

  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    const enter = (node: number): void => {
      index[node] = low[node] = counter++;
      stack[stackSize++] = node;
      onStack[node] = 1;
      callNode[depth] = node;
      callEdge[depth] = offsets[node]!;
      depth++;
    };
    enter(root);
    while (depth > 0) {
      const node = callNode[depth - 1]!;
      const edge = callEdge[depth - 1]!;
      if (edge < offsets[node + 1]!) {
        callEdge[depth - 1] = edge + 1;
        const target = targets[edge]!;
        if (index[target] === -1) enter(target);
        else if (onStack[target] === 1 && index[target]! < low[node]!) low[node] = index[target]!;
        continue;
      }
      depth--;
      if (depth > 0) {
        const parent = callNode[depth - 1]!;
        if (low[node]! < low[parent]!) low[parent] = low[node]!;
      }
      if (low[node] === index[node]) {
        const component: number[] = [];
        let member: number;
        do {
          member = stack[--stackSize]!;
          onStack[member] = 0;
          component.push(member);
        } while (member !== node);
        if (component.length > 1 || hasEdge(graph, node, node)) cycles.push(cycleThrough(component, graph).map((m) => ids[m]!));
      }
    }
  }
  return cycles.sort((a, b) => a[0]! - b[0]!);
}

function hasEdge(graph: DenseGraph, from: number, to: number): boolean {
  for (let e = graph.offsets[from]!; e < graph.offsets[from + 1]!; e++) if (graph.targets[e] === to) return true;
  return false;
}

/** The shortest cycle through the component's smallest step id (breadth-first inside the component). */
function cycleThrough(component: number[], graph: DenseGraph): number[] {
  const { offsets, targets, ids } = graph;
  const members = new Set(component);
  const start = component.reduce((a, b) => (ids[b]! < ids[a]! ? b : a));
  const parent = new Map<number, number>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (let e = offsets[node]!; e < offsets[node + 1]!; e++) {
      const target = targets[e]!;
      // A self-loop inside a larger component is not the component's cycle (the linter reports it on its own).
      if (!members.has(target) || (target === node && members.size > 1)) continue;
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
  return [...component].sort((a, b) => ids[a]! - ids[b]!);
}
