/**
 * The plan layout's routing and labels: an arrow's label is cut only when it is wider than
 * `PLAN_GEOMETRY.edgeLabelWidth`, arrows into one box get their own slots a label apart, routed arrows
 * keep to the gaps and channels, and the two arrows of a cycle do not cross each other.
 */
import { describe, expect, test } from "vitest";
import { layoutPlan, PLAN_GEOMETRY, type LayoutEdge } from "../../src/draw/index.js";
import { textWidth } from "../../src/draw/text.js";
import type { ToolCatalog } from "../../src/plan/plan.js";
import { expectReadable } from "./checks.js";
import { readJson } from "./fixtures.js";

type Point = { readonly x: number; readonly y: number };

/** Where the orthogonal routes `a` and `b` cross: a horizontal segment of one through a vertical segment of the other, away from both ends. */
function crossings(a: LayoutEdge, b: LayoutEdge): Point[] {
  const segments = (edge: LayoutEdge): [Point, Point][] => edge.points.slice(1).map((point, i) => [edge.points[i]!, point]);
  const found: Point[] = [];
  for (const [p, q] of segments(a)) {
    for (const [s, t] of segments(b)) {
      const pairs: [[Point, Point], [Point, Point]][] = [
        [
          [p, q],
          [s, t],
        ],
        [
          [s, t],
          [p, q],
        ],
      ];
      for (const [[h1, h2], [v1, v2]] of pairs) {
        if (h1.y !== h2.y || v1.x !== v2.x) continue;
        const x = v1.x;
        const y = h1.y;
        if (x > Math.min(h1.x, h2.x) && x < Math.max(h1.x, h2.x) && y > Math.min(v1.y, v2.y) && y < Math.max(v1.y, v2.y))
          found.push({ x, y });
      }
    }
  }
  return found;
}

const mistakes = () =>
  layoutPlan(readJson("examples/lint/mistakes.plan.json"), { catalog: readJson("examples/lint/tools.json") as ToolCatalog });

describe("arrow labels", () => {
  test("a label as wide as the widest allowed is shown whole; one character more is cut, the whole text in the tooltip", () => {
    const characters = Math.floor(PLAN_GEOMETRY.edgeLabelWidth / (PLAN_GEOMETRY.edgeFont * 0.62));
    const fits = "k".repeat(characters);
    const over = "k".repeat(characters + 1);
    const layout = layoutPlan({
      steps: [
        { id: 1, tool: "a", args: {} },
        { id: 2, tool: "b", args: { x: `$1.${fits}` } },
        { id: 3, tool: "c", args: { x: `$1.${over}` } },
      ],
    });
    const label = (to: number) => layout.edges.find((edge) => edge.to === to)!;
    expect(label(2).label).toMatchObject({ text: fits, cut: false });
    expect(label(3).label?.cut).toBe(true);
    expect(label(3).label?.text).toMatch(/^k+…$/);
    expect(textWidth(label(3).label!.text, PLAN_GEOMETRY.edgeFont)).toBeLessThanOrEqual(PLAN_GEOMETRY.edgeLabelWidth);
    expect(label(3).tooltip).toContain(`reads ${over} of $1`);
    expectReadable(layout);
  });

  test("the examples' labels are whole: the trip's three keys of $2, the mistakes' three keys of $1", () => {
    const trip = layoutPlan(readJson("examples/trip/plan.json"), { catalog: readJson("examples/trip/tools.json") as ToolCatalog });
    expect(trip.edges.map((edge) => edge.label?.text)).toEqual(
      expect.arrayContaining([
        "days[0].summary, days[0].highC, days[1].summary",
        "name, country, timezone",
        "sights[0].name, sights[0].area, sights",
      ]),
    );
    expect(trip.edges.every((edge) => edge.label?.cut === false)).toBe(true);
    expect(mistakes().edges.find((edge) => edge.from === 1 && edge.to === 2)?.label?.text).toBe("latitude, longtitude, city");
  });

  test("arrows into one box come in a label's height apart, each label just above its own line", () => {
    const steps = [
      { id: 1, tool: "a", args: {} },
      ...[2, 3, 4, 5, 6].map((id) => ({ id, tool: "b", args: { x: `$1.k${id}` } })),
      { id: 7, tool: "c", args: Object.fromEntries([1, 2, 3, 4, 5, 6].map((id) => [`a${id}`, `$${id}.value`])) },
    ];
    const layout = layoutPlan({ steps });
    const into = layout.edges
      .filter((edge) => edge.to === 7)
      .map((edge) => edge.points[edge.points.length - 1]!.y)
      .sort((a, b) => a - b);
    expect(into).toHaveLength(6);
    for (let i = 1; i < into.length; i++) expect(into[i]! - into[i - 1]!).toBeCloseTo(PLAN_GEOMETRY.labelPitch, 5);
    const target = layout.boxes.find((box) => box.id === 7)!;
    expect(target.height).toBeGreaterThanOrEqual(6 * PLAN_GEOMETRY.labelPitch);
    for (const edge of layout.edges) {
      const end = edge.points[edge.points.length - 1]!;
      expect(edge.label!.box.y + edge.label!.box.height).toBeLessThan(end.y);
      expect(edge.label!.box.y).toBeGreaterThan(end.y - PLAN_GEOMETRY.labelPitch);
    }
    expectReadable(layout);
  });
});

describe("routes", () => {
  test("the two arrows of the mistakes example's cycle (5>6, 6>5) do not cross each other", () => {
    const layout = mistakes();
    const cycle = layout.edges.filter((edge) => edge.state === "cycle");
    expect(cycle.map((edge) => `${edge.from}>${edge.to}`).sort()).toEqual(["5>6", "6>5"]);
    expect(crossings(cycle[0]!, cycle[1]!)).toEqual([]);
    expectReadable(layout);
  });

  test("a self-reference and a two-step cycle among steps that never run: routed around their boxes, no crossing within the cycle", () => {
    const layout = layoutPlan({
      steps: [
        { id: 1, tool: "a", args: { x: "$1.me" } },
        { id: 2, tool: "b", args: { x: "$3.c" } },
        { id: 3, tool: "c", args: { x: "$2.b" } },
      ],
    });
    expect(layout.edges.map((edge) => edge.state)).toEqual(["cycle", "cycle", "cycle"]);
    const two = layout.edges.filter((edge) => edge.from !== edge.to);
    expect(crossings(two[0]!, two[1]!)).toEqual([]);
    expectReadable(layout);
  });

  test("a step reading three earlier levels: the arrows skipping levels run in the channels, not through boxes", () => {
    const layout = layoutPlan({
      steps: [
        { id: 1, tool: "a", args: {} },
        { id: 2, tool: "b", args: { x: "$1.a" } },
        { id: 3, tool: "c", args: { x: "$2.b" } },
        { id: 4, tool: "d", args: { x: "$1.a", y: "$2.b", z: "$3.c" } },
      ],
    });
    expect(
      layout.edges
        .filter((edge) => !edge.curve)
        .map((edge) => `${edge.from}>${edge.to}`)
        .sort(),
    ).toEqual(["1>4", "2>4"]);
    expectReadable(layout);
  });
});
