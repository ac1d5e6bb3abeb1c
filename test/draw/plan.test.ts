/**
 * Pictures of plans: table tests over test/cases/draw.json (the examples, inline plans, generated
 * ones). The SVG must parse as XML and show one box per step and one arrow per dependency (against
 * `planGraph`, an independent count), ids and tools in the labels, the states of the rows; the Mermaid
 * and DOT texts must have balanced blocks, escaped ids, one node per step and one edge per dependency.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { layoutPlan, OUTPUT_NODE, planToDot, planToMermaid, planToSvg, type DrawPlanOptions } from "../../src/draw/index.js";
import { planGraph } from "../../src/plan/graph.js";
import { readPlan, type ToolCatalog } from "../../src/plan/plan.js";
import { RefError } from "../../src/shared/errors.js";
import { generatedPlan, readJson } from "./fixtures.js";
import { byClass, parseXml } from "./xml.js";
import { checkDot, checkMermaidFlowchart, expectReadable } from "./checks.js";

interface PlanRow {
  readonly name: string;
  readonly plan?: unknown;
  readonly generated?: { readonly size: number; readonly seed: number };
  readonly catalog?: string;
  readonly options?: Record<string, unknown>;
  readonly maxRows?: number;
  readonly levels?: number[][];
  readonly stuck?: number[];
  readonly missing?: number[];
  readonly edges?: Record<string, string>;
  readonly keys?: Record<string, string[]>;
  readonly badSteps?: number[];
  readonly columns?: number;
  readonly errorCount?: number;
}

const rows = (JSON.parse(readFileSync(new URL("../cases/draw.json", import.meta.url), "utf8")) as { plans: PlanRow[] }).plans;

function planOf(row: PlanRow): unknown {
  if (row.generated !== undefined) return generatedPlan(row.generated.size, row.generated.seed);
  return typeof row.plan === "string" ? readJson(row.plan) : row.plan;
}

function optionsOf(row: PlanRow): DrawPlanOptions {
  return {
    ...(row.catalog === undefined ? {} : { catalog: readJson(row.catalog) as ToolCatalog }),
    ...(row.options === undefined ? {} : { options: row.options }),
    ...(row.maxRows === undefined ? {} : { maxRows: row.maxRows }),
  };
}

/** The (from, to) pairs among existing steps, from planGraph: the arrows the picture must have, and more for missing steps. */
function graphEdges(plan: unknown, options: DrawPlanOptions): Set<string> {
  const pairs = new Set<string>();
  for (const [to, froms] of planGraph(plan, options.options).dependencies) for (const from of froms) pairs.add(`${from}>${to}`);
  return pairs;
}

describe.each(rows)("$name", (row) => {
  const plan = planOf(row);
  const options = optionsOf(row);
  const layout = layoutPlan(plan, options);
  const svg = planToSvg(plan, options);
  const steps = readPlan(plan).plan.steps;

  test("the SVG is well-formed XML: one box per step (and per missing step), one arrow per dependency", () => {
    const root = parseXml(svg);
    expect(root.name).toBe("svg");
    expect(root.attributes.xmlns).toBe("http://www.w3.org/2000/svg");
    const boxes = [...byClass(root, "plan-refs-step"), ...byClass(root, "plan-refs-missing")];
    expect(boxes.map((box) => Number(box.attributes["data-step"])).sort((a, b) => a - b)).toEqual(
      [...steps.map((step) => step.id), ...layout.picture.missing].sort((a, b) => a - b),
    );
    expect(boxes.every((box) => box.children.filter((child) => child.name === "rect").length === 1)).toBe(true);
    const arrows = byClass(root, "plan-refs-edge").map((edge) => `${edge.attributes["data-from"]}>${edge.attributes["data-to"]}`);
    expect(new Set(arrows).size).toBe(arrows.length);
    const expected = graphEdges(plan, options);
    for (const missing of layout.picture.missing)
      for (const edge of layout.picture.edges) if (edge.from === missing) expected.add(`${edge.from}>${edge.to}`);
    // The plan's output: one box, and an arrow from each step it reads.
    for (const edge of layout.picture.edges) if (edge.to === OUTPUT_NODE) expected.add(`${edge.from}>${edge.to}`);
    expect(byClass(root, "plan-refs-output")).toHaveLength(readPlan(plan).plan.output === undefined ? 0 : 1);
    expect(new Set(arrows)).toEqual(expected);
    for (const edge of byClass(root, "plan-refs-edge")) expect(edge.children.filter((child) => child.name === "path")).toHaveLength(1);
  });

  test("ids and tools are in the labels (cut with … only when too wide, the full text in the tooltip)", () => {
    const root = parseXml(svg);
    const boxOf = new Map(byClass(root, "plan-refs-step").map((box) => [Number(box.attributes["data-step"]), box]));
    for (const step of steps) {
      const box = boxOf.get(step.id)!;
      const texts = box.children.filter((child) => child.name === "text").map((child) => child.text);
      expect(texts[0]).toBe(`$${step.id}`);
      const tool = texts[1]!;
      if (tool.endsWith("…")) expect(step.tool.startsWith(tool.slice(0, -1))).toBe(true);
      else expect(tool).toBe(step.tool);
      expect(box.children.find((child) => child.name === "title")!.text).toContain(`Step ${step.id}: ${step.tool}`);
    }
  });

  test("the rows' levels, stuck and missing steps, arrow states and keys, lint errors", () => {
    const picture = layout.picture;
    if (row.levels !== undefined) expect(picture.levels).toEqual(row.levels);
    if (row.stuck !== undefined) expect(picture.stuck).toEqual(row.stuck);
    if (row.missing !== undefined) expect(picture.missing).toEqual(row.missing);
    if (row.edges !== undefined)
      expect(Object.fromEntries(picture.edges.map((edge) => [`${edge.from}>${edge.to}`, edge.state]))).toEqual(row.edges);
    for (const [pair, keys] of Object.entries(row.keys ?? {}))
      expect(picture.edges.find((edge) => `${edge.from}>${edge.to}` === pair)?.keys).toEqual(keys);
    if (row.badSteps !== undefined)
      expect(
        layout.boxes
          .filter((box) => box.bad && box.kind !== "missing")
          .map((box) => box.id)
          .sort((a, b) => a - b),
      ).toEqual(row.badSteps);
    if (row.errorCount !== undefined) expect(picture.errorCount).toBe(row.errorCount);
    if (row.columns !== undefined) expect(layout.columns).toHaveLength(row.columns);
    // Bad arrows are red, missing ones dashed, in the SVG too.
    const root = parseXml(svg);
    for (const edge of byClass(root, "plan-refs-edge")) {
      const state = picture.edges.find(
        (e) => `${e.from}>${e.to}` === `${edge.attributes["data-from"]}>${edge.attributes["data-to"]}`,
      )!.state;
      const path = edge.children.find((child) => child.name === "path")!;
      expect(path.attributes.stroke === "#dc2626").toBe(state !== "ok");
      expect(path.attributes["stroke-dasharray"] !== undefined).toBe(state === "missing");
    }
  });

  test("no two boxes overlap, labels fit their boxes, no box is taller than maxRows", () => {
    expectReadable(layout);
    const maxRows = row.maxRows ?? 12;
    const perColumn = new Map<number, number>();
    for (const box of layout.boxes) perColumn.set(box.column, (perColumn.get(box.column) ?? 0) + 1);
    expect(Math.max(0, ...perColumn.values())).toBeLessThanOrEqual(maxRows);
  });

  test("Mermaid: balanced subgraphs, escaped ids, one node per step, one edge per dependency", () => {
    const text = planToMermaid(plan, options);
    checkMermaidFlowchart(text);
    const nodes = [...text.matchAll(/^\s+([sm]\d+)\["/gm)].map((m) => m[1]);
    expect(nodes.sort()).toEqual([...steps.map((step) => `s${step.id}`), ...layout.picture.missing.map((id) => `m${id}`)].sort());
    expect([...text.matchAll(/^\s+[sm]\d+ -\.?->\|/gm)]).toHaveLength(layout.picture.edges.length);
  });

  test("DOT: balanced braces and quotes, one node per step, one edge per dependency", () => {
    const text = planToDot(plan, options);
    checkDot(text);
    expect([...text.matchAll(/^\s+"([sm]\d+)" \[label=/gm)].map((m) => m[1]).sort()).toEqual(
      [...steps.map((step) => `s${step.id}`), ...layout.picture.missing.map((id) => `m${id}`)].sort(),
    );
    expect([...text.matchAll(/^\s+"[sm]\d+" -> "(?:s\d+|output)" \[/gm)]).toHaveLength(layout.picture.edges.length);
    expect([...text.matchAll(/^\s+"output" \[label="output"/gm)]).toHaveLength(layout.picture.output ? 1 : 0);
  });
});

describe("options", () => {
  test.each([
    ["maxRows 0", { maxRows: 0 }],
    ["maxRows 1.5", { maxRows: 1.5 }],
    ["maxRows as text", { maxRows: "3" }],
    ["diagnostics not an array", { diagnostics: {} }],
    ["options not an object", 7],
  ])("%s is a RefError invalid-options", (_name, options) => {
    const call = () => planToSvg({ steps: [] }, options as DrawPlanOptions);
    expect(call).toThrow(RefError);
    expect(call).toThrow(expect.objectContaining({ code: "invalid-options" }) as Error);
  });

  test("a getter in the options is never run", () => {
    let ran = false;
    const options = Object.defineProperty({}, "maxRows", {
      get() {
        ran = true;
        return 2;
      },
      enumerable: true,
    });
    planToSvg({ steps: [{ id: 1, tool: "a", args: {} }] }, options);
    expect(ran).toBe(false);
  });

  test("given diagnostics are drawn instead of linting again", () => {
    const plan = { steps: [{ id: 1, tool: "a", args: {} }] };
    const layout = layoutPlan(plan, {
      diagnostics: [{ code: "unknown-tool", severity: "error", message: "no tool a", step: 1, pointer: "/steps/0/tool" }],
    });
    expect(layout.boxes[0]?.bad).toBe(true);
    expect(layout.boxes[0]?.tooltip).toContain("no tool a");
    expect(layout.note?.text).toBe("1 lint error");
  });

  test("bad language options do not throw: the linter reports them and the defaults draw", () => {
    const layout = layoutPlan({ steps: [{ id: 1, tool: "a", args: {} }] }, { options: { syntax: "nope" } as never });
    expect(layout.picture.planErrors.join(" ")).toMatch(/syntax/);
    expect(layout.boxes).toHaveLength(1);
  });
});
