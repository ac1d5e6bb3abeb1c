/**
 * Hostile names in pictures: a tool named `<script>`, quotes and ampersands, 10,000-character names
 * and keys, control characters, bidirectional overrides, XML's forbidden noncharacters, lone
 * surrogates. Everything comes out escaped (the SVG parses, holds no script and no markup from the
 * plan), and long text is cut with `…` in labels (the tooltip keeps the start, up to 2,000 characters).
 */
import { describe, expect, test } from "vitest";
import {
  dotText,
  escapeXml,
  fitText,
  layoutPlan,
  mermaidText,
  planToDot,
  planToMermaid,
  planToSvg,
  PLAN_GEOMETRY,
  runToMermaid,
  runToSvg,
  textWidth,
} from "../../src/draw/index.js";
import { MAX_TOOLTIP } from "../../src/draw/text.js";
import type { RunReport } from "../../src/run/index.js";
import { StepError } from "../../src/step/step-error.js";
import { checkDot, checkMermaidFlowchart, expectInert } from "./checks.js";
import { allElements, byClass } from "./xml.js";

const LONG = "x".repeat(10_000);
const TOOLS = [
  "<script>alert(1)</script>",
  `"quoted" & 'single' </text></svg><svg onload="alert(1)">`,
  `${LONG}-tool`,
  "new\nline\r\ttab\u0000nul\u001b[2J",
  "abc\u202egnp.exe\u2066",
  "bad\ufffe\uffffchars\ud800lone",
  "]]><!-- -->&amp;&#0;",
  "url(https://example.com/x.png)",
];
const plan = {
  steps: [
    { id: 1, tool: TOOLS[0]!, args: {} },
    ...TOOLS.slice(1).map((tool, i) => ({
      id: i + 2,
      tool,
      args: { a: "$1.city", long: `$1.${LONG}`, missing: `$${"9".repeat(10_000)}`, gone: "$77.k" },
    })),
  ],
};

describe("a plan with hostile names", () => {
  const svg = planToSvg(plan);

  test("the SVG parses, has only known elements, no handler, no external reference", () => {
    const root = expectInert(svg);
    expect(allElements(root).some((element) => element.name === "script")).toBe(false);
    // The names are there, as text: markup from the plan never becomes markup.
    expect(svg).not.toMatch(/<script|<svg onload/i);
    expect(svg).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    for (const element of allElements(root))
      for (const [name, value] of Object.entries(element.attributes)) if (name !== "xmlns") expect(value).not.toMatch(/https?:/);
    expect(byClass(root, "plan-refs-step")).toHaveLength(TOOLS.length);
  });

  test("labels are escaped and cut: the text shown is the start of the name, made printable", () => {
    const layout = layoutPlan(plan);
    for (const box of layout.boxes.filter((b) => b.kind === "step")) {
      const tool = TOOLS[box.id - 1]!;
      expect(box.toolLabel.text).not.toMatch(/[\u0000-\u001f\u202e\u2066\ufffe\uffff]/);
      expect(textWidth(box.toolLabel.text, box.toolLabel.fontSize)).toBeLessThanOrEqual(box.width - 24);
      if (tool.length > 30) expect(box.toolLabel.text.endsWith("…")).toBe(true);
    }
    const long = layout.boxes.find((b) => b.id === 3)!;
    expect(long.toolLabel.text).toMatch(/^x+…$/);
    expect(long.tooltip.split("\n")[0]!.length).toBeLessThanOrEqual("Step 3: ".length + MAX_TOOLTIP + 1);
    expect(long.tooltip).toContain(`Step 3: ${"x".repeat(100)}`);
    // Control characters are visible escapes, one line per fact in the tooltip.
    const controls = layout.boxes.find((b) => b.id === 4)!;
    expect(controls.toolLabel.text.startsWith("new\\nline\\r\\ttab")).toBe(true);
    expect(controls.tooltip.split("\n")[0]).toBe("Step 4: new\\nline\\r\\ttab\\u0000nul\\u001b[2J");
  });

  test("arrow labels (10,000-character keys) are cut too, and the SVG stays small", () => {
    const layout = layoutPlan(plan);
    for (const edge of layout.edges)
      if (edge.label !== undefined)
        expect(textWidth(edge.label.text, edge.label.fontSize)).toBeLessThanOrEqual(PLAN_GEOMETRY.edgeLabelWidth);
    // 8 tools and keys of 10,000 characters, a 10,000-digit step number: tooltips are cut at 2,000.
    expect(svg.length).toBeLessThan(120_000);
  });

  test("Mermaid and DOT: no quote, bracket or newline from a name reaches the text", () => {
    const mermaid = planToMermaid(plan);
    checkMermaidFlowchart(mermaid);
    expect(mermaid).not.toContain("<script");
    expect(mermaid.length).toBeLessThan(20_000);
    const dot = planToDot(plan);
    checkDot(dot);
    expect(dot).not.toContain("\u0000");
    expect(dot.length).toBeLessThan(80_000);
  });

  test("a run report with hostile tool names and error messages", () => {
    const timings = new Map([
      [1, { startMs: 0, endMs: 5, durationMs: 5 }],
      [2, { startMs: 5, endMs: 9, durationMs: 4 }],
    ]);
    const errors = new Map([[2, new StepError("tool-error", 2, TOOLS[1]!, `</title><script>alert(1)</script>${LONG}`)]]);
    const report: RunReport = {
      runId: "r",
      status: "failed",
      results: new Map([[1, 1]]),
      errors,
      skipped: [3],
      diagnostics: [],
      timings: { totalMs: 9, steps: timings },
    };
    const root = expectInert(runToSvg(report, { plan }));
    expect(byClass(root, "plan-refs-bar").length).toBeGreaterThanOrEqual(3);
    const svg = runToSvg(report, { plan });
    expect(svg).not.toMatch(/<script/i);
    const gantt = runToMermaid(report, { plan });
    for (const line of gantt.split("\n").filter((l) => / :/.test(l))) expect(line.split(" :")[0]).toMatch(/^[A-Za-z0-9 _.,$()[\]/#;-]*$/);
  });
});

describe("the escapes", () => {
  test.each([
    ["escapeXml", escapeXml(`<a href="x">&'`), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"],
    ["escapeXml: XML's forbidden noncharacters", escapeXml("a\ufffeb\uffff"), "a\\ufffeb\\uffff"],
    ["mermaidText", mermaidText('a "b" <c> | d:e;#'), "a #34;b#34; #60;c#62; #124; d#58;e#59;#35;"],
    ["mermaidText: astral characters as one code", mermaidText("🚀"), "#128640;"],
    ["dotText", dotText('say "hi" \\ bye\nnext'), 'say \\"hi\\" \\\\ bye\\nnext'],
    ["fitText: cut on a character boundary, never inside a surrogate pair", fitText("🚀".repeat(20), 40, 10).text, "🚀🚀…"],
    ["fitText: short text is left whole", fitText("geocode", 200, 12).text, "geocode"],
  ])("%s", (_name, actual, expected) => {
    expect(actual).toBe(expected);
  });
});

describe("hostile options", () => {
  test('a "__proto__" key in the language options stays a plain key (nothing reaches a prototype)', () => {
    const options = JSON.parse('{ "__proto__": { "polluted": true }, "syntax": "path" }') as Record<string, unknown>;
    const layout = layoutPlan(
      {
        steps: [
          { id: 1, tool: "a", args: {} },
          { id: 2, tool: "b", args: { x: "$1.items[0]" } },
        ],
      },
      { options },
    );
    expect(layout.edges[0]?.keys).toEqual(["items[0]"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("a revoked Proxy as options or plan draws without throwing", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(() => planToSvg({ steps: [] }, { options: proxy })).not.toThrow();
    expect(layoutPlan(proxy).boxes).toEqual([]);
  });
});
