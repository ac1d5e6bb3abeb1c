/** The plans of workload 8: chains and diamonds of 10 steps, as plan-refs plans and as bare edges. */

/** Step ids 1–10 and, for each, the steps it waits on. Even plans: a chain; odd: two diamonds and a tail. */
export function predecessors(plan: number): ReadonlyMap<number, readonly number[]> {
  if (plan % 2 === 0) return new Map(Array.from({ length: 10 }, (_, i) => [i + 1, i === 0 ? [] : [i]]));
  return new Map<number, readonly number[]>([
    [1, []],
    [2, [1]],
    [3, [1]],
    [4, [2, 3]],
    [5, [4]],
    [6, [4]],
    [7, [5, 6]],
    [8, [7]],
    [9, [8]],
    [10, [9]],
  ]);
}

/** The steps waiting on `step`. */
export function successors(plan: number, step: number): number[] {
  return [...predecessors(plan)].filter(([, before]) => before.includes(step)).map(([id]) => id);
}

/** The same shape as a plan-refs plan: each step's arguments reference the steps it waits on. */
export function planOf(plan: number): unknown {
  return {
    steps: [...predecessors(plan)].map(([id, before]) => ({
      id,
      tool: "hop",
      args: before.length === 0 ? { plan } : Object.fromEntries(before.map((b) => [`from${b}`, `$${b}.n`])),
    })),
  };
}
