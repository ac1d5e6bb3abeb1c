/**
 * Properties of the pictures, over random plans (missing steps, self-references, cycles, wide levels,
 * any tool names) and random run reports: boxes never overlap (in `layoutPlan`'s geometry and in the
 * rectangles of the SVG itself), every label's estimated width fits its box, arrows stay clear of
 * boxes, the SVG is well-formed and inert, the Mermaid and DOT texts are well-formed.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { layoutPlan, layoutRun, planToDot, planToMermaid, planToSvg, runToSvg, PLAN_GEOMETRY, RUN_GEOMETRY } from "../../src/draw/index.js";
import { textWidth } from "../../src/draw/text.js";
import type { RunReport, StepTiming } from "../../src/run/index.js";
import { StepError } from "../../src/step/step-error.js";
import { checkDot, checkMermaidFlowchart, expectInert, expectReadable } from "./checks.js";
import { byClass } from "./xml.js";
import { planArbitrary, toolNameArbitrary } from "./plan-arbitrary.js";

const toolName = toolNameArbitrary;

function rectsApart(rects: { x: number; y: number; width: number; height: number }[]): void {
  const sorted = [...rects].sort((a, b) => a.x - b.x || a.y - b.y);
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length && sorted[j]!.x < sorted[i]!.x + sorted[i]!.width; j++) {
      const a = sorted[i]!;
      const b = sorted[j]!;
      expect(a.y + a.height <= b.y || b.y + b.height <= a.y, `rects at (${a.x}, ${a.y}) and (${b.x}, ${b.y}) overlap`).toBe(true);
    }
  }
}

describe("plan pictures", () => {
  test("property: boxes never overlap, labels fit, arrows clear boxes, the SVG is well-formed and inert", () => {
    fc.assert(
      fc.property(planArbitrary(50), fc.integer({ min: 1, max: 6 }), (plan, maxRows) => {
        const layout = layoutPlan(plan, { maxRows });
        expectReadable(layout);
        const inner = PLAN_GEOMETRY.boxWidth - 2 * PLAN_GEOMETRY.inset;
        for (const box of layout.boxes) {
          expect(textWidth(box.toolLabel.text, box.toolLabel.fontSize)).toBeLessThanOrEqual(inner);
          expect(textWidth(box.idLabel.text, box.idLabel.fontSize)).toBeLessThanOrEqual(inner);
        }
        const svg = planToSvg(plan, { maxRows });
        const root = expectInert(svg);
        // The rectangles as drawn, read back from the SVG.
        const boxes = [...byClass(root, "plan-refs-step"), ...byClass(root, "plan-refs-missing")];
        expect(boxes).toHaveLength(layout.boxes.length);
        const rects = boxes
          .map((box) => box.children.find((child) => child.name === "rect")!.attributes)
          .map((a) => ({ x: Number(a.x), y: Number(a.y), width: Number(a.width), height: Number(a.height) }));
        rectsApart(rects);
        for (const box of boxes) {
          const texts = box.children.filter((child) => child.name === "text");
          for (const text of texts) expect(textWidth(text.text, Number(text.attributes["font-size"]))).toBeLessThanOrEqual(inner);
        }
        checkMermaidFlowchart(planToMermaid(plan));
        checkDot(planToDot(plan));
      }),
      { numRuns: 150 },
    );
  });
});

/** A random finished run, as data (the shape `runPlan` reports). */
const reportArbitrary = fc
  .uniqueArray(
    fc.record({
      id: fc.integer({ min: 0, max: 500 }),
      outcome: fc.constantFrom("ok", "failed", "aborted", "skipped"),
      start: fc.double({ min: 0, max: 5000, noNaN: true }),
      length: fc.double({ min: 0, max: 2000, noNaN: true }),
      tool: toolName,
    }),
    { selector: (step) => step.id, maxLength: 60 },
  )
  .map((steps) => {
    const results = new Map<number, unknown>();
    const errors = new Map<number, StepError>();
    const skipped: number[] = [];
    const timings = new Map<number, StepTiming>();
    let totalMs = 0;
    for (const step of steps) {
      if (step.outcome === "skipped") {
        skipped.push(step.id);
        continue;
      }
      timings.set(step.id, { startMs: step.start, endMs: step.start + step.length, durationMs: step.length });
      totalMs = Math.max(totalMs, step.start + step.length);
      if (step.outcome === "ok") results.set(step.id, { ok: true });
      else
        errors.set(step.id, new StepError(step.outcome === "aborted" ? "aborted" : "tool-error", step.id, step.tool, '<boom> & "quoted"'));
    }
    const report: RunReport = {
      runId: "r",
      status: errors.size > 0 ? "failed" : "ok",
      results,
      errors,
      skipped,
      diagnostics: [],
      timings: { totalMs, steps: timings },
    };
    return { report, steps };
  });

describe("run timelines", () => {
  test("property: one row per step, bars inside the chart from start to end, labels fit, the SVG is well-formed and inert", () => {
    fc.assert(
      fc.property(reportArbitrary, ({ report, steps }) => {
        const layout = layoutRun(report);
        expect(layout.rows.map((row) => row.id).sort((a, b) => a - b)).toEqual(steps.map((step) => step.id).sort((a, b) => a - b));
        const right = layout.chartLeft + RUN_GEOMETRY.chartWidth;
        for (const row of layout.rows) {
          const step = steps.find((s) => s.id === row.id)!;
          expect(row.outcome).toBe(step.outcome);
          expect(row.bar.x).toBeGreaterThanOrEqual(layout.chartLeft - 1e-6);
          expect(row.bar.x + row.bar.width).toBeLessThanOrEqual(right + 2 + 1e-6);
          if (row.startMs !== undefined) {
            const scale = RUN_GEOMETRY.chartWidth / layout.totalMs;
            expect(row.bar.x).toBeCloseTo(layout.chartLeft + row.startMs * scale, 6);
            expect(row.bar.width).toBeCloseTo(Math.max(2, (row.endMs! - row.startMs) * scale), 6);
          }
          expect(row.label.box.x + row.label.box.width).toBeLessThanOrEqual(layout.chartLeft);
          if (row.duration !== undefined) expect(row.duration.box.x + row.duration.box.width).toBeLessThanOrEqual(layout.width);
        }
        // Rows in time order, one row height apart: bars never overlap.
        for (let i = 1; i < layout.rows.length; i++) {
          expect(layout.rows[i]!.atMs).toBeGreaterThanOrEqual(layout.rows[i - 1]!.atMs);
          expect(layout.rows[i]!.bar.y).toBeGreaterThanOrEqual(layout.rows[i - 1]!.bar.y + layout.rows[i - 1]!.bar.height);
        }
        const root = expectInert(runToSvg(report));
        expect(byClass(root, "plan-refs-bar")).toHaveLength(steps.length);
      }),
      { numRuns: 150 },
    );
  });
});
