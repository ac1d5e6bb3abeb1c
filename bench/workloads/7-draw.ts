/**
 * Workload 7: pictures (`plan-refs/draw`). A 200-step plan drawn as SVG (lint included), Mermaid and
 * DOT, and its layout alone; the timeline of a 1,000-step run with failures as SVG and Mermaid; a
 * 10,000-step plan as SVG. The targets: a 200-step plan and a 1,000-step run each render in under a
 * second, and the layout stays linear enough that 10,000 steps render in under two.
 */
import { layoutPlan, planToDot, planToMermaid, planToSvg, runToMermaid, runToSvg } from "../../src/draw/index.js";
import { generatedPlan, runWithFailures } from "../../test/draw/fixtures.js";
import { measure, row, type Target, type Workload } from "../harness.js";

const names = {
  svg: "planToSvg, 200-step plan (lints it too)",
  layout: "layoutPlan, 200-step plan",
  mermaid: "planToMermaid, 200-step plan",
  dot: "planToDot, 200-step plan",
  run: "runToSvg, 1,000-step run with its plan",
  gantt: "runToMermaid, 1,000-step run with its plan",
  large: "planToSvg, 10,000-step plan (lints it too)",
} as const;

function underMs(rows: Parameters<typeof row>[0], name: string, limit: number): Target {
  const measured = row(rows, name).medianNs / 1e6;
  return { description: `${name}: milliseconds`, measured, limit, kind: "max", unit: "ms", met: measured <= limit };
}

const workload: Workload = {
  id: "7",
  title: "pictures: a 200-step plan and a 1,000-step run as SVG, Mermaid and DOT",
  async run() {
    const plan = generatedPlan(200, 1);
    const large = generatedPlan(10_000, 1);
    const runPlanValue = generatedPlan(1000, 3);
    const report = await runWithFailures(runPlanValue, new Set([900, 950]), 3);
    if (report.errors.size === 0 || report.results.size < 800)
      throw new Error(`workload 7: the run has ${report.errors.size} errors and ${report.results.size} results`);
    const svg = planToSvg(plan);
    const timeline = runToSvg(report, { plan: runPlanValue });
    const rows = await measure(
      {
        [names.svg]: () => planToSvg(plan),
        [names.layout]: () => layoutPlan(plan),
        [names.mermaid]: () => planToMermaid(plan),
        [names.dot]: () => planToDot(plan),
        [names.run]: () => runToSvg(report, { plan: runPlanValue }),
        [names.gantt]: () => runToMermaid(report, { plan: runPlanValue }),
      },
      { batch: 1, time: 200, rounds: 5 },
    );
    // About a second a call: three timed calls per round and one warm-up, as workload 4's largest rows.
    rows.push(
      ...(await measure({ [names.large]: () => planToSvg(large) }, { batch: 1, time: 1, rounds: 5, iterations: 3, warmupIterations: 1 })),
    );
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows,
      baselines: [names.svg],
      targets: [underMs(rows, names.svg, 1000), underMs(rows, names.run, 1000), underMs(rows, names.large, 2000)],
      notes: [
        `The plan: 200 steps, each reading 1 to 3 keys of up to 3 earlier steps (test/draw/fixtures.ts, seed 1); its SVG is ${(svg.length / 1024).toFixed(0)} KiB.`,
        `The run: 1,000 steps (seed 3) with tools of 0 to 3 ms, steps 900 and 950 failing: ${report.results.size} ok, ${report.errors.size} failed, ${report.skipped.length} skipped; its SVG is ${(timeline.length / 1024).toFixed(0)} KiB.`,
        "planToSvg, planToMermaid and planToDot lint the plan (for the red parts); layoutPlan lints too, and only skips writing the SVG text.",
        `The 10,000-step plan: the same generator (seed 1); its SVG is ${(planToSvg(large).length / 2 ** 20).toFixed(1)} MiB.`,
      ],
    };
  },
};

export default workload;
