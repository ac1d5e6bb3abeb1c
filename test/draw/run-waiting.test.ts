/**
 * Timelines of runs with steps waiting for approval: a dashed bar from when each step's turn came to
 * the run's end (the time it waited), its own colour and legend entry, left out of the critical path;
 * steps a resume reused say so.
 */
import { describe, expect, test } from "vitest";
import { layoutRun, runToMermaid, runToSvg } from "../../src/draw/index.js";
import { resumePlan, runPlan, type ToolFunctions } from "../../src/run/index.js";
import { expectInert } from "./checks.js";
import { byClass, parseXml } from "./xml.js";

const plan = {
  steps: [
    { id: 1, tool: "lookup", args: {} },
    { id: 2, tool: "pay\u202eevil", args: { to: "$1" } },
    { id: 3, tool: "mail", args: { receipt: "$2" } },
    { id: 4, tool: "lookup", args: {} },
  ],
};
const tools: ToolFunctions = { lookup: () => "x", "pay\u202eevil": () => "paid", mail: () => "sent" };

describe("a run with a step waiting for approval", () => {
  test("the waiting step has a dashed bar to the run's end; its dependent never ran; the critical path leaves it out", async () => {
    const report = await runPlan(plan, tools, { approvalTools: ["pay\u202eevil"] });
    expect(report.status).toBe("suspended");
    const layout = layoutRun(report, { plan });
    const row = (id: number) => layout.rows.find((candidate) => candidate.id === id)!;
    expect(row(2).outcome).toBe("waiting");
    expect(row(2).startMs).toBeDefined();
    expect(row(2).endMs).toBe(report.timings.steps.get(2)!.endMs);
    expect(row(2).endMs! - row(2).startMs!).toBe(report.timings.steps.get(2)!.durationMs);
    expect(row(2).tooltip).toMatch(
      /^Step 2 \(pay\\u202eevil\): waiting for approval\nits turn came at .+; it waited .+ \(its tool was not called\)$/,
    );
    expect(row(3).outcome).toBe("not-run");
    expect(layout.criticalPath).not.toContain(2);
    expect(layout.summary).toMatch(/^Run suspended: 4 steps \(2 ok, 1 waiting, 1 not-run\)/);

    const svg = runToSvg(report, { plan });
    const root = expectInert(svg);
    const bar = byClass(root, "plan-refs-waiting")[0]!;
    expect(bar.attributes["data-step"]).toBe("2");
    expect(svg).not.toContain("\u202e");
    expect(svg).toMatch(/<rect [^>]*fill="#ede9fe"[^>]*stroke-dasharray="3 2"/);
    expect(byClass(root, "plan-refs-legend")[0]!.children.some((child) => JSON.stringify(child).includes("waiting"))).toBe(true);
    expect(runToMermaid(report, { plan })).toContain("%% waiting for approval: s2");
  });

  test("a picture without waiting steps has no waiting legend entry (pictures made before are unchanged)", async () => {
    const report = await runPlan(plan, tools);
    expect(runToSvg(report, { plan })).not.toContain("waiting");
  });

  test("a resumed run's reused steps say their result came from the previous run", async () => {
    const first = await runPlan(plan, tools, { approvalTools: ["pay\u202eevil"] });
    const second = await resumePlan(plan, first, tools, { approve: [2] });
    const layout = layoutRun(second, { plan });
    expect(layout.rows.find((row) => row.id === 1)!.tooltip).toContain("its result was taken from the previous run (not called again)");
    expect(layout.rows.find((row) => row.id === 2)!.outcome).toBe("ok");
    parseXml(runToSvg(second, { plan }));
  });
});
