/**
 * Timelines of finished runs: the trip example run with its real tools, a generated run with
 * failures (and the steps behind them skipped), an aborted run, a hand-written report with known
 * times (exact geometry and critical path), and the Mermaid Gantt text.
 */
import { describe, expect, test } from "vitest";
import { layoutRun, planToSvg, runToMermaid, runToSvg, RUN_GEOMETRY } from "../../src/draw/index.js";
import { runPlan, type RunReport, type StepTiming, type ToolFunctions } from "../../src/run/index.js";
import { RefError } from "../../src/shared/errors.js";
import { StepError } from "../../src/step/step-error.js";
import { checkMermaidFlowchart, expectInert } from "./checks.js";
import { drawFixtures, generatedPlan, readJson, runWithFailures } from "./fixtures.js";
import { byClass, parseXml } from "./xml.js";

function report(
  steps: [id: number, start: number, end: number, outcome?: "ok" | "failed" | "aborted"][],
  skipped: number[] = [],
): RunReport {
  const timings = new Map<number, StepTiming>();
  const results = new Map<number, unknown>();
  const errors = new Map<number, StepError>();
  for (const [id, start, end, outcome = "ok"] of steps) {
    timings.set(id, { startMs: start, endMs: end, durationMs: end - start });
    if (outcome === "ok") results.set(id, id);
    else errors.set(id, new StepError(outcome === "aborted" ? "aborted" : "tool-error", id, `tool${id}`, "it broke"));
  }
  return {
    runId: "r",
    status: errors.size > 0 ? "failed" : "ok",
    results,
    errors,
    skipped,
    diagnostics: [],
    timings: { totalMs: Math.max(0, ...steps.map((s) => s[2])), steps: timings },
  };
}

const diamond = {
  steps: [
    { id: 1, tool: "a", args: {} },
    { id: 2, tool: "slow", args: { x: "$1.v" } },
    { id: 3, tool: "fast", args: { x: "$1.v" } },
    { id: 4, tool: "join", args: { x: "$2", y: "$3" } },
    { id: 5, tool: "after", args: { x: "$4" } },
  ],
};

describe("a report with known times", () => {
  const known = report(
    [
      [1, 0, 10],
      [2, 10, 30],
      [3, 10, 15],
      [4, 30, 40, "failed"],
    ],
    [5],
  );
  const layout = layoutRun(known, { plan: diamond });

  test("rows in start order, bars from start to end on the time scale", () => {
    expect(layout.rows.map((row) => row.id)).toEqual([1, 2, 3, 4, 5]);
    const scale = RUN_GEOMETRY.chartWidth / 40;
    const row2 = layout.rows[1]!;
    expect(row2.bar.x).toBeCloseTo(layout.chartLeft + 10 * scale);
    expect(row2.bar.width).toBeCloseTo(20 * scale);
    expect(layout.rows.map((row) => row.outcome)).toEqual(["ok", "ok", "ok", "failed", "skipped"]);
    // The skipped step stands where its dependency (the failed step 4) ended.
    expect(layout.rows[4]!.atMs).toBe(40);
    expect(layout.rows[4]!.startMs).toBeUndefined();
  });

  test("the critical path follows the dependency that ended last", () => {
    expect(layout.criticalPath).toEqual([1, 2, 4]);
    expect(layout.rows.filter((row) => row.critical).map((row) => row.id)).toEqual([1, 2, 4]);
    expect(layout.edges.filter((edge) => edge.critical).map((edge) => `${edge.from}>${edge.to}`)).toEqual(["1>2", "2>4"]);
  });

  test("one arrow per dependency, from the end of the producer to the start of the consumer", () => {
    expect(layout.edges.map((edge) => `${edge.from}>${edge.to}`).sort()).toEqual(["1>2", "1>3", "2>4", "3>4", "4>5"]);
    const rowOf = new Map(layout.rows.map((row) => [row.id, row]));
    for (const edge of layout.edges) {
      const numbers = [...edge.path.matchAll(/-?\d+(\.\d+)?/g)].map((m) => Number(m[0]));
      const producer = rowOf.get(edge.from)!;
      const consumer = rowOf.get(edge.to)!;
      expect(numbers[0]).toBeCloseTo(producer.bar.x + producer.bar.width, 1);
      // Just before the consumer's bar (or at the producer's end, when the consumer started right then).
      expect(numbers[numbers.length - 1]).toBeCloseTo(Math.max(consumer.bar.x - 1, producer.bar.x + producer.bar.width + 0.01), 1);
    }
  });

  test("a time axis with ticks from 0 past the end", () => {
    expect(layout.ticks[0]!.ms).toBe(0);
    expect(layout.ticks[0]!.label.text).toBe("0 ms");
    expect(layout.ticks[layout.ticks.length - 1]!.ms).toBeLessThanOrEqual(40);
    expect(layout.ticks.length).toBeGreaterThanOrEqual(4);
  });

  test("the SVG: one bar per step coloured by outcome, the critical path outlined, tooltips with the error", () => {
    const root = expectInert(runToSvg(known, { plan: diamond }));
    const bars = byClass(root, "plan-refs-bar");
    expect(bars.map((bar) => bar.attributes["data-step"])).toEqual(["1", "2", "3", "4", "5"]);
    expect(byClass(root, "plan-refs-failed").map((bar) => bar.attributes["data-step"])).toEqual(["4"]);
    expect(byClass(root, "plan-refs-skipped").map((bar) => bar.attributes["data-step"])).toEqual(["5"]);
    expect(
      byClass(root, "plan-refs-critical")
        .filter((e) => e.name === "g")
        .map((bar) => bar.attributes["data-step"]),
    ).toEqual(["1", "2", "4"]);
    const failed = bars[3]!.children.find((child) => child.name === "title")!.text;
    expect(failed).toContain("tool-error: step 4 (tool4): it broke");
    expect(byClass(root, "plan-refs-dependency")).toHaveLength(5);
  });

  test("without the plan: rows named from the errors only, no arrows, the critical path is the step that ended last", () => {
    const alone = layoutRun(known);
    expect(alone.edges).toEqual([]);
    expect(alone.criticalPath).toEqual([4]);
    expect(alone.rows.find((row) => row.id === 4)!.label.text).toBe("$4 tool4");
    expect(alone.rows.find((row) => row.id === 1)!.label.text).toBe("$1");
  });

  test("Mermaid Gantt: one task per step, milliseconds, failed steps crit, the critical path active", () => {
    const text = runToMermaid(known, { plan: diamond });
    const lines = text.trimEnd().split("\n");
    expect(lines.slice(0, 4)).toEqual([
      "gantt",
      expect.stringMatching(/^ {2}title Run failed/) as string,
      "  dateFormat x",
      "  axisFormat %S.%L s",
    ]);
    const tasks = lines.filter((line) => / :/.test(line));
    expect(tasks).toEqual([
      "  $1 a :active, s1, 0, 10",
      "  $2 slow :active, s2, 10, 30",
      "  $3 fast :s3, 10, 15",
      "  $4 join :crit, s4, 30, 40",
      "  $5 after :milestone, s5, 40, 40",
    ]);
  });
});

describe("real runs", () => {
  test("the trip example with its tools: four ok bars, five dependencies, the critical path ends at the summary", async () => {
    const plan = readJson("examples/trip/plan.json");
    // A path the compiler does not resolve: the example is plain JavaScript without declarations.
    const example: string = "../../examples/trip/tools.mjs";
    const tools: ToolFunctions = { ...((await import(example)) as ToolFunctions) };
    const result = await runPlan(plan, tools);
    expect(result.status).toBe("ok");
    const layout = layoutRun(result, { plan });
    expect(layout.rows.map((row) => row.outcome)).toEqual(["ok", "ok", "ok", "ok"]);
    expect(layout.edges).toHaveLength(5);
    expect(layout.criticalPath[0]).toBe(1);
    expect(layout.criticalPath[layout.criticalPath.length - 1]).toBe(4);
    expectInert(runToSvg(result, { plan }));
  });

  test("a run with failures: failed, skipped and ok steps as the report says", async () => {
    const plan = generatedPlan(60, 7);
    const result = await runWithFailures(plan, new Set([20, 45]), 7);
    const layout = layoutRun(result, { plan });
    for (const row of layout.rows) {
      if (result.errors.has(row.id)) expect(row.outcome).toBe("failed");
      else if (result.skipped.includes(row.id)) expect(row.outcome).toBe("skipped");
      else expect(row.outcome).toBe("ok");
    }
    expect(layout.rows.some((row) => row.outcome === "skipped")).toBe(true);
    const root = expectInert(runToSvg(result, { plan }));
    expect(byClass(root, "plan-refs-bar")).toHaveLength(60);
  });

  test("an aborted run: the steps running at the abort are aborted, the rest skipped", async () => {
    const controller = new AbortController();
    const plan = {
      steps: [
        { id: 1, tool: "quick", args: {} },
        { id: 2, tool: "hang", args: { x: "$1" } },
        { id: 3, tool: "quick", args: { x: "$2" } },
      ],
    };
    const tools: ToolFunctions = {
      quick: () => 1,
      hang: (_args, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true });
          setTimeout(() => controller.abort(), 5);
        }),
    };
    const result = await runPlan(plan, tools, { signal: controller.signal });
    expect(result.status).toBe("aborted");
    const layout = layoutRun(result, { plan });
    expect(Object.fromEntries(layout.rows.map((row) => [row.id, row.outcome]))).toEqual({ 1: "ok", 2: "aborted", 3: "skipped" });
    expect(byClass(parseXml(runToSvg(result, { plan })), "plan-refs-aborted")).toHaveLength(1);
  });

  test("an invalid run (lint errors, nothing ran): every step of the plan is a row that never ran", async () => {
    const plan = {
      steps: [
        { id: 1, tool: "a", args: { x: "$9" } },
        { id: 2, tool: "a", args: {} },
      ],
    };
    const result = await runPlan(plan, { a: () => 1 });
    expect(result.status).toBe("invalid");
    const layout = layoutRun(result, { plan });
    expect(layout.rows.map((row) => row.outcome)).toEqual(["not-run", "not-run"]);
    expectInert(runToSvg(result, { plan }));
  });

  test("a 1,000-step run draws one bar per step and stays well-formed", async () => {
    const plan = generatedPlan(1000, 3);
    const result = await runWithFailures(plan, new Set([900, 950]), 3);
    const root = expectInert(runToSvg(result, { plan }));
    expect(byClass(root, "plan-refs-bar")).toHaveLength(1000);
    expect(Number(root.attributes.height)).toBeGreaterThan(1000 * RUN_GEOMETRY.rowHeight);
    expect(Number(root.attributes.width)).toBeLessThan(1100);
  });
});

describe("bad input", () => {
  test.each([null, 42, "report"])("a report that is not an object (%s) is a RefError invalid-options", (value) => {
    expect(() => runToSvg(value as unknown as RunReport)).toThrow(RefError);
  });

  test("a report with fields of the wrong kinds draws what it can, without throwing", () => {
    const odd = {
      status: 3,
      results: [],
      errors: "no",
      skipped: "x",
      timings: {
        totalMs: Number.NaN,
        steps: new Map<unknown, unknown>([
          ["1", { startMs: 0, endMs: 1 }],
          [2, { startMs: 0, endMs: Infinity }],
          [3, { startMs: 1, endMs: 2 }],
        ]),
      },
    };
    const layout = layoutRun(odd as unknown as RunReport);
    expect(layout.rows.map((row) => row.id)).toEqual([3]);
    expectInert(runToSvg(odd as unknown as RunReport));
  });

  test("getters in a report are never run", () => {
    let ran = false;
    const sneaky = Object.defineProperty(report([[1, 0, 5]]), "skipped", {
      get() {
        ran = true;
        return [];
      },
    });
    layoutRun(sneaky);
    expect(ran).toBe(false);
  });

  test("a caller's report whose timings are getters is drawn without them, never running them; runPlan's own (made when first read) are read", async () => {
    let ran = false;
    const made = await runPlan({ steps: [{ id: 1, tool: "t", args: {} }] }, { t: () => 1 });
    const copied = { ...made, timings: { totalMs: 5 } };
    Object.defineProperty(copied.timings, "steps", {
      enumerable: true,
      get() {
        ran = true;
        return made.timings.steps;
      },
    });
    expect(layoutRun(copied as unknown as RunReport).rows.map((row) => row.startMs)).toEqual([undefined]);
    expect(ran).toBe(false);
    expect(layoutRun(made).rows.map((row) => row.startMs)).toEqual([made.timings.steps.get(1)!.startMs]);
  });

  test("a run shorter than a millisecond (down to the smallest double) still has a finite axis", () => {
    for (const end of [Number.MIN_VALUE, 1e-9, 0.3, 0]) {
      const layout = layoutRun(report([[1, 0, end]]));
      expect(layout.ticks.length).toBeGreaterThan(1);
      expect(layout.ticks.length).toBeLessThanOrEqual(21);
    }
  });
});

test("drawFixtures builds the three pictures of the browser test, each well-formed and inert", async () => {
  const pictures = await drawFixtures();
  expect(Object.keys(pictures)).toEqual(["trip", "large", "run"]);
  for (const svg of Object.values(pictures)) expectInert(svg);
  expect(byClass(parseXml(pictures.large), "plan-refs-step")).toHaveLength(200);
  expect(byClass(parseXml(pictures.run), "plan-refs-failed").length).toBeGreaterThan(0);
  expect(pictures.trip).toBe(planToSvg(readJson("examples/trip/plan.json"), { catalog: readJson("examples/trip/tools.json") as never }));
  checkMermaidFlowchart("flowchart LR\n");
});
