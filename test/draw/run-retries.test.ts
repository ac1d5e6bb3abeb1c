/**
 * Timelines of runs with retried steps: each try is drawn (the failed ones in the failed colours, the
 * last in the step's outcome's), the waits between them are the gaps of a pale dashed span, and the
 * tooltip says each try's times and each wait; `report.attemptTimes` carries the tries.
 */
import { describe, expect, test } from "vitest";
import { layoutRun, OUTCOME_COLORS, runToSvg } from "../../src/draw/index.js";
import { runPlan, type RunReport, type ToolFunctions } from "../../src/run/index.js";
import { expectInert } from "./checks.js";
import { byClass } from "./xml.js";

const plan = {
  steps: [
    { id: 1, tool: "flaky", args: {} },
    { id: 2, tool: "steady", args: { after: "$1" } },
  ],
};

function flakyTools(fails: number): ToolFunctions {
  return {
    flaky: (_args, ctx) => {
      if ((ctx?.attempt ?? 1) <= fails) throw new Error(`down on try ${ctx?.attempt}`);
      return "up";
    },
    steady: () => "ok",
  };
}

describe("a run with a retried step", () => {
  test("report.attemptTimes holds each try, in order, within the step's timing; a step tried once has none", async () => {
    const report = await runPlan(plan, flakyTools(2), { retry: { attempts: 3, initialDelayMs: 5, jitter: "none" } });
    expect(report.status).toBe("ok");
    const tries = report.attemptTimes?.get(1);
    expect(tries?.length).toBe(3);
    const timing = report.timings.steps.get(1)!;
    expect(tries![0]!.startMs).toBe(timing.startMs);
    expect(tries![2]!.endMs).toBe(timing.endMs);
    for (let i = 1; i < 3; i++) expect(tries![i]!.startMs).toBeGreaterThanOrEqual(tries![i - 1]!.endMs);
    for (const each of tries!) expect(each.durationMs).toBe(each.endMs - each.startMs);
    expect(report.attemptTimes?.has(2)).toBe(false);
  });

  test("a run without retries has no attemptTimes (its report is as before)", async () => {
    const report = await runPlan(plan, flakyTools(0), { retry: { attempts: 3 } });
    expect(report.attemptTimes).toBeUndefined();
  });

  test("each try is drawn, the failed ones red, the last in its outcome's colour, the waits as the gaps of a dashed span; the tooltip tells each", async () => {
    const report = await runPlan(plan, flakyTools(2), { retry: { attempts: 3, initialDelayMs: 5, jitter: "none" } });
    const layout = layoutRun(report, { plan });
    const row = layout.rows.find((candidate) => candidate.id === 1)!;
    expect(row.tries?.length).toBe(3);
    expect(row.tries![0]!.x).toBe(row.bar.x);
    for (const each of row.tries!) expect(each.x + each.width).toBeLessThanOrEqual(row.bar.x + row.bar.width + 1);
    expect(row.tooltip).toMatch(
      /\ntry 1: from .+ to .+ \(.+\), failed; then waited .+\ntry 2: from .+, failed; then waited .+\ntry 3: from .+ to .+ \([^)]+\)(\n|$)/,
    );
    expect(layout.rows.find((candidate) => candidate.id === 2)!.tries).toBeUndefined();

    const svg = runToSvg(report, { plan });
    const root = expectInert(svg);
    const bar = byClass(root, "plan-refs-bar").find((element) => element.attributes["data-step"] === "1")!;
    const tries = byClass(bar, "plan-refs-try");
    expect(tries.map((element) => [element.attributes["data-try"], element.attributes.fill])).toEqual([
      ["1", OUTCOME_COLORS.failed.fill],
      ["2", OUTCOME_COLORS.failed.fill],
      ["3", OUTCOME_COLORS.ok.fill],
    ]);
    expect(byClass(bar, "plan-refs-retry-wait")[0]!.attributes["stroke-dasharray"]).toBe("3 2");
    // The step tried once is drawn as ever: one bar, no tries.
    const steady = byClass(root, "plan-refs-bar").find((element) => element.attributes["data-step"] === "2")!;
    expect(byClass(steady, "plan-refs-try")).toEqual([]);
  });

  test("tries that do not fit the step's timing, or are out of order, are left out (a report is data)", () => {
    const report = {
      status: "ok",
      results: new Map([[1, "up"]]),
      errors: new Map(),
      skipped: [],
      diagnostics: [],
      timings: { totalMs: 100, steps: new Map([[1, { startMs: 10, endMs: 90, durationMs: 80 }]]) },
      attemptTimes: new Map<number, unknown>([
        [
          1,
          [
            { startMs: 10, endMs: 20 },
            { startMs: 15, endMs: 30 },
            { startMs: 50, endMs: 200 },
            { startMs: 60, endMs: 90 },
            "no try",
            {
              get startMs() {
                throw new Error("getter run");
              },
            },
          ],
        ],
        [
          7,
          [
            { startMs: 0, endMs: 1 },
            { startMs: 2, endMs: 3 },
          ],
        ],
      ]),
    } as unknown as RunReport;
    const row = layoutRun(report).rows.find((candidate) => candidate.id === 1)!;
    expect(row.tries?.map((each) => [each.startMs, each.endMs])).toEqual([
      [10, 20],
      [60, 90],
    ]);
    expect(layoutRun(report).rows.find((candidate) => candidate.id === 7)).toBeUndefined();
  });
});
