/**
 * Workload 5: the overhead of `runPlan` (lint, scheduling, argument resolution, events) on 10,000
 * steps with no-op tools, against a plain `Promise.all` over the same tool calls.
 */
import { lintPlan, resolveRefs, runPlan, type ToolFunctions } from "../../src/index.js";
import { measure, ratioTarget, type Workload } from "../harness.js";

const STEPS = 10_000;

/** Step 0 geocodes; every other step reads two fields of its result and is independent of the rest. */
function step(i: number): { id: number; tool: string; args: Record<string, unknown> } {
  if (i === 0) return { id: 0, tool: "geocode", args: { query: "Paris", limit: 1 } };
  return { id: i, tool: "weather", args: { city: "$0.city", country: "$0.country", units: "metric", days: i % 7 } };
}

const place = { city: "Paris", country: "FR", lat: 48.85, lon: 2.35 };
const forecast = { sky: "sunny" };
const tools: ToolFunctions = { geocode: () => place, weather: () => forecast };

const names = {
  run: "runPlan (default concurrency 8)",
  runWide: "runPlan, concurrency 10,000",
  lint: "lintPlan on the same plan (runPlan's first stage)",
  resolveAll: "resolveRefs on every step's args, then Promise.all",
  all: "Promise.all over the same calls (args resolved beforehand)",
} as const;

const workload: Workload = {
  id: "5",
  title: "runPlan overhead: 10,000 steps with no-op tools",
  async run() {
    const plan = JSON.parse(JSON.stringify({ steps: Array.from({ length: STEPS }, (_, i) => step(i)) })) as { steps: ReturnType<typeof step>[] };
    const results = { 0: place };
    // The baseline calls the same functions with the arguments runPlan would hand them.
    const calls = plan.steps.map((s) => ({ tool: tools[s.tool]!, args: s.id === 0 ? s.args : resolveRefs(s.args, results) }));
    const report = await runPlan(plan, tools);
    if (report.status !== "ok" || report.results.size !== STEPS) throw new Error(`workload 5: runPlan ${report.status}, ${report.results.size} results`);
    const signal = new AbortController().signal;
    const rows = await measure(
      {
        [names.run]: () => runPlan(plan, tools),
        [names.runWide]: () => runPlan(plan, tools, { concurrency: STEPS }),
        [names.lint]: () => lintPlan(plan),
        [names.resolveAll]: () => Promise.all(plan.steps.map((s, i) => tools[s.tool]!(s.id === 0 ? s.args : resolveRefs(s.args, results), { stepId: i, signal }))),
        [names.all]: () => Promise.all(calls.map((call, i) => call.tool(call.args, { stepId: i, signal }))),
      },
      { batch: 1, time: 200, rounds: 5, iterations: 3, warmupIterations: 2, async: true },
    );
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows,
      baselines: [names.all],
      targets: [ratioTarget(rows, "runPlan time ÷ Promise.all time (10,000 no-op steps)", names.run, names.all, "max", 3)],
      notes: [
        "One operation runs the whole plan: step 0 (no references), then 9,999 steps that each read `$0.city` and `$0.country` (plus two plain arguments). The tools return a constant object at once.",
        "runPlan lints the plan first, then schedules: the lintPlan row is the part of its time spent before the first tool call; the rest is reading the plan again, scanning and resolving each step's arguments, scheduling and timings (an AbortController is made only for a tool that reads its signal).",
        "The Promise.all row gets each call's arguments already resolved and one shared context object's worth of fields; the resolveRefs row adds the resolution to it.",
      ],
    };
  },
};

export default workload;
