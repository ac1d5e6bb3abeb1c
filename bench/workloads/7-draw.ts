/**
 * Workload 7: pictures (`plan-refs/draw`). A 200-step plan drawn as SVG (lint included), Mermaid and
 * DOT, and its layout alone; the timeline of a 1,000-step run with failures as SVG and Mermaid. The
 * issue's target: a 200-step plan and a 1,000-step run each render in under a second.
 */
import { layoutPlan, planToDot, planToMermaid, planToSvg, runToMermaid, runToSvg } from "../../src/index.js";
import { generatedPlan, runWithFailures } from "../../test/draw/fixtures.js";
import { measure, row, type Target, type Workload } from "../harness.js";

const names = {
  svg: "planToSvg, 200-step plan (lints it too)",
  layout: "layoutPlan, 200-step plan",
  mermaid: "planToMermaid, 200-step plan",
  dot: "planToDot, 200-step plan",
  run: "runToSvg, 1,000-step run with its plan",
  gantt: "runToMermaid, 1,000-step run with its plan",
} as const;

function underASecond(rows: Parameters<typeof row>[0], name: string): Target {
  const measured = row(rows, name).medianNs / 1e6;
  return { description: `${name}: milliseconds`, measured, limit: 1000, kind: "max", unit: "ms", met: measured <= 1000 };
}

const workload: Workload = {
  id: "7",
  title: "pictures: a 200-step plan and a 1,000-step run as SVG, Mermaid and DOT",
  async run() {
    const plan = generatedPlan(200, 1);
    const runPlanValue = generatedPlan(1000, 3);
    const report = await runWithFailures(runPlanValue, new Set([900, 950]), 3);
    if (report.errors.size === 0 || report.results.size < 800) throw new Error(`workload 7: the run has ${report.errors.size} errors and ${report.results.size} results`);
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
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows,
      baselines: [names.svg],
      targets: [underASecond(rows, names.svg), underASecond(rows, names.run)],
      notes: [
        `The plan: 200 steps, each reading 1 to 3 keys of up to 3 earlier steps (test/draw/fixtures.ts, seed 1); its SVG is ${(svg.length / 1024).toFixed(0)} KiB.`,
        `The run: 1,000 steps (seed 3) with tools of 0 to 3 ms, steps 900 and 950 failing: ${report.results.size} ok, ${report.errors.size} failed, ${report.skipped.length} skipped; its SVG is ${(timeline.length / 1024).toFixed(0)} KiB.`,
        "planToSvg, planToMermaid and planToDot lint the plan (for the red parts); layoutPlan lints too, and only skips writing the SVG text.",
      ],
    };
  },
};

export default workload;
