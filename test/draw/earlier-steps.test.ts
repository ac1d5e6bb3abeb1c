/**
 * A plan of a session drawn with its earlier steps (`earlierSteps`, the session's own `earlier()`):
 * each referenced step of an earlier plan is an input of the plan, drawn apart (its own column,
 * dashed, another colour, labelled with its id and tool), feeding the steps that reference it; a
 * forgotten one stays missing, and without the option every earlier reference is missing as before.
 */
import { describe, expect, test } from "vitest";
import { COLORS, layoutPlan, planPicture, planToDot, planToMermaid, planToSvg } from "../../src/draw/index.js";
import type { EarlierSteps } from "../../src/lint/lint-options.js";
import { createPlanSession, runPlan } from "../../src/run/index.js";
import { RefError } from "../../src/shared/errors.js";
import { checkDot, checkMermaidFlowchart, expectInert, expectReadable } from "./checks.js";
import { byClass, parseXml } from "./xml.js";

/** A real session after turn 1 (steps 1 search and 2 fetch kept, step 3 forgotten). */
async function turnOne(): Promise<EarlierSteps> {
  const session = createPlanSession({ maxResults: 2 });
  const tools = { search: () => ({ hits: [1, 2] }), fetch: () => ({ body: "x" }), old: () => "o" };
  await runPlan({ steps: [{ id: 3, tool: "old", args: {} }] }, tools, { session });
  await runPlan(
    {
      steps: [
        { id: 1, tool: "search", args: {} },
        { id: 2, tool: "fetch", args: {} },
      ],
    },
    tools,
    { session },
  );
  return session.earlier();
}

const turnTwo = {
  steps: [
    { id: 4, tool: "filter", args: { hits: "$1.hits", body: "$2.body" } },
    { id: 5, tool: "summarise", args: { of: "$4", first: "$1.hits[0]" } },
  ],
};

describe("earlier steps in the pictures", () => {
  test.each([
    {
      name: "drawn as inputs",
      plan: turnTwo,
      earlier: [1, 2],
      missing: [] as number[],
      mermaid: [
        `  subgraph earlier ["earlier plans"]`,
        `    e1["$1<br/>search"]`,
        `    e2["$2<br/>fetch"]`,
        `  e1 -.->|"hits"| s4`,
        `  e2 -.->|"body"| s4`,
        `  e1 -.->|"hits[0]"| s5`,
        `  s4 -->|"(whole result)"| s5`,
        `  class e1,e2 earlier`,
      ],
      dot: [
        `  subgraph "cluster_earlier" {`,
        `    label="earlier plans";`,
        `  "e1" -> "s4" [label="hits"`,
        `  "e1" -> "s5" [label="hits[0]"`,
        `  "s4" -> "s5" [label="(whole result)"`,
        `style="rounded,dashed,filled"`,
        `color="${COLORS.earlier}", style="dashed"`,
      ],
    },
    {
      name: "a forgotten one stays missing",
      plan: { steps: [{ id: 4, tool: "filter", args: { old: "$3", hits: "$1.hits" } }] },
      earlier: [1],
      missing: [3],
      mermaid: [`    e1["$1<br/>search"]`, `  m3 -.->|"(whole result)"| s4`, `  e1 -.->|"hits"| s4`],
      dot: [`  "m3" -> "s4"`, `  "e1" -> "s4"`],
    },
  ])("$name: picture, Mermaid and DOT", async ({ plan, earlier, missing, mermaid, dot }) => {
    const earlierSteps = await turnOne();
    const picture = planPicture(plan, { earlierSteps });
    expect(picture.earlier).toEqual(earlier);
    expect(picture.missing).toEqual(missing);
    expect(picture.steps.filter((step) => step.kind === "earlier").map((step) => [step.id, step.tool])).toEqual(
      earlier.map((id) => [id, id === 1 ? "search" : "fetch"]),
    );
    // Inputs wait for nothing: every step that reads only earlier results is on level 1.
    expect(picture.levels[0]).toEqual([4]);
    for (const edge of picture.edges) expect(edge.state).toBe(missing.includes(edge.from) ? "missing" : "ok");
    const mermaidText = planToMermaid(plan, { earlierSteps });
    checkMermaidFlowchart(mermaidText);
    for (const line of mermaid) expect(mermaidText).toContain(line);
    const dotText = planToDot(plan, { earlierSteps });
    checkDot(dotText);
    for (const part of dot) expect(dotText).toContain(part);
  });

  test("without earlierSteps, a reference to an earlier step is missing (as before)", () => {
    const picture = planPicture(turnTwo);
    expect(picture.earlier).toEqual([]);
    expect(picture.missing).toEqual([1, 2]);
    expect(planToMermaid(turnTwo)).not.toContain("earlier");
  });

  test("SVG: a dashed box of the earlier colour per input, in a column of its own before level 1, its arrows dashed", async () => {
    const earlierSteps = await turnOne();
    const layout = layoutPlan(turnTwo, { earlierSteps });
    expectReadable(layout);
    expect(layout.columns.map((column) => column.kind)).toEqual(["earlier", "level", "level"]);
    expect(layout.summary).toBe("Dependency graph: 2 steps in 2 levels, 2 steps of earlier plans as inputs");
    const svg = planToSvg(turnTwo, { earlierSteps });
    expectInert(svg);
    const root = parseXml(svg);
    const inputs = byClass(root, "plan-refs-earlier");
    expect(inputs.map((box) => box.attributes["data-step"])).toEqual(["1", "2"]);
    for (const box of inputs) {
      const rect = box.children.find((child) => child.name === "rect")!;
      expect(rect.attributes).toMatchObject({ stroke: COLORS.earlier, fill: COLORS.earlierBackground, "stroke-dasharray": "5 4" });
    }
    expect(byClass(root, "plan-refs-missing")).toEqual([]);
    expect(byClass(root, "plan-refs-error")).toEqual([]);
    const arrows = byClass(root, "plan-refs-edge-earlier").map((edge) => `${edge.attributes["data-from"]}>${edge.attributes["data-to"]}`);
    expect(arrows.sort()).toEqual(["1>4", "1>5", "2>4"]);
    for (const edge of byClass(root, "plan-refs-edge-earlier"))
      expect(edge.children.find((child) => child.name === "path")!.attributes).toMatchObject({
        stroke: COLORS.earlier,
        "stroke-dasharray": "5 4",
      });
  });

  test("earlierSteps that are not a session's earlier steps: invalid-options", () => {
    expect(() => planPicture(turnTwo, { earlierSteps: { kept: {} } as unknown as EarlierSteps })).toThrow(RefError);
  });
});
