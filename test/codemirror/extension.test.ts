/**
 * The CodeMirror extension without a browser: editor state only (the DOM parts — hover rendering,
 * completion UI, lint marks — are driven in real Chromium by playground-chromium.test.ts). What is checked here is
 * that the extension maps the editor module's and the linter's data onto CodeMirror one to one, and
 * follows option changes.
 */
import { CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { EditorState } from "@codemirror/state";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import {
  planCompletionSource,
  planDiagnostics,
  planRefs,
  planRefsConfig,
  setPlanRefsOptions,
  setPlanRefsTools,
} from "../../src/codemirror/index.js";
import { referenceHighlight } from "../../src/codemirror/highlight.js";
import { completionsAt, documentTokens } from "../../src/editor/index.js";
import { lintPlanText } from "../../src/lint/index.js";
import type { ToolCatalog } from "../../src/plan/plan.js";

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const DOCUMENTS = [
  { name: "trip", plan: read("examples/trip/plan.json"), tools: JSON.parse(read("examples/trip/tools.json")) as ToolCatalog },
  {
    name: "lint mistakes",
    plan: read("examples/lint/mistakes.plan.json"),
    tools: JSON.parse(read("examples/lint/tools.json")) as ToolCatalog,
  },
];

function stateOf(doc: string, tools?: ToolCatalog): EditorState {
  return EditorState.create({ doc, extensions: planRefs(tools === undefined ? {} : { tools }) });
}

function marks(state: EditorState): { from: number; to: number; class: string }[] {
  const out: { from: number; to: number; class: string }[] = [];
  state.field(referenceHighlight).between(0, state.doc.length, (from, to, value) => {
    out.push({ from, to, class: String(value.spec.class) });
  });
  return out;
}

describe.each(DOCUMENTS)("$name plan", ({ plan, tools }) => {
  test("highlighting marks exactly the tokens of documentTokens, with a class per kind", () => {
    const expected = documentTokens(plan, { tools })
      .filter((token) => token.span.end > token.span.start)
      .map((token) => ({ from: token.span.start, to: token.span.end, class: `cm-planref cm-planref-${token.kind}` }))
      .sort((a, b) => a.from - b.from || a.to - b.to);
    expect(expected.length).toBeGreaterThan(0);
    expect(marks(stateOf(plan, tools)).sort((a, b) => a.from - b.from || a.to - b.to)).toEqual(expected);
  });

  test("lint diagnostics cover the linter's exact file offsets", () => {
    const expected = lintPlanText(plan, { tools });
    const got = planDiagnostics(stateOf(plan, tools));
    expect(got.map((d) => [d.from, d.to, d.severity, d.message])).toEqual(
      expected.map((d) => [d.offset!.start, d.offset!.end, d.severity, d.message]),
    );
  });

  test("completion offers what completionsAt offers, over the same range", () => {
    // After every `$` that starts a reference, and after every `.` inside one.
    const positions = [...plan.matchAll(/\$\{?|\$\d+\./g)].map((match) => match.index + match[0].length).slice(0, 40);
    expect(positions.length).toBeGreaterThan(0);
    const state = stateOf(plan, tools);
    let offered = 0;
    for (const pos of positions) {
      const items = completionsAt(plan, pos, { tools });
      const result = planCompletionSource(new CompletionContext(state, pos, true)) as CompletionResult | null;
      if (items.length === 0) {
        expect(result).toBeNull();
        continue;
      }
      offered++;
      expect(result!.options.map((option) => option.label)).toEqual(items.map((item) => item.label));
      expect(result!.from).toBe(Math.min(items[0]!.span.start, pos));
      for (const [i, option] of result!.options.entries()) {
        if (typeof option.apply === "string") {
          expect(option.apply).toBe(items[i]!.insertText);
          expect([items[i]!.span.start, items[i]!.span.end]).toEqual([items[0]!.span.start, items[0]!.span.end]);
        }
      }
    }
    expect(offered).toBeGreaterThan(0);
  });
});

describe("options follow state effects", () => {
  const plan = JSON.stringify(
    {
      options: { syntax: "path" },
      steps: [
        { id: 1, tool: "geocode", args: {} },
        { id: 2, tool: "weather", args: { lat: "$1.lat" } },
      ],
    },
    null,
    2,
  );
  const withLat: ToolCatalog = {
    geocode: { output: { type: "object", properties: { lat: { type: "number" } }, additionalProperties: false } },
    weather: {},
  };
  const withoutLat: ToolCatalog = {
    geocode: { output: { type: "object", properties: { latitude: { type: "number" } }, additionalProperties: false } },
    weather: {},
  };
  const codes = (state: EditorState): string[] => planDiagnostics(state).map((d) => d.source ?? "");

  test("setPlanRefsTools swaps the catalog that lint and completion use", () => {
    let state = stateOf(plan, withLat);
    expect(codes(state)).toEqual([]);
    state = state.update({ effects: setPlanRefsTools.of(withoutLat) }).state;
    expect(state.field(planRefsConfig).tools).toBe(withoutLat);
    expect(codes(state)).toEqual(["plan-refs unknown-key"]);
    const dot = plan.indexOf("$1.") + 3;
    const result = planCompletionSource(new CompletionContext(state, dot, true)) as CompletionResult;
    expect(result.options.map((option) => option.label)).toEqual(["latitude"]);
    // Back to the plan's own (absent) catalog: nothing to check keys against.
    state = state.update({ effects: setPlanRefsTools.of(undefined) }).state;
    expect(codes(state)).toEqual([]);
  });

  test("setPlanRefsOptions replaces the language options, and highlighting follows", () => {
    const seedPlan = JSON.stringify({
      steps: [
        { id: 1, tool: "t", args: {} },
        { id: 2, tool: "t", args: { q: "Weather in ${1.city}" } },
      ],
    });
    let state = stateOf(seedPlan);
    expect(marks(state)).toEqual([]);
    state = state.update({ effects: setPlanRefsOptions.of({ templates: true }) }).state;
    const classes = marks(state).map((mark) => mark.class);
    expect(classes).toContain("cm-planref cm-planref-step");
    expect(classes).toContain("cm-planref cm-planref-brace");
  });

  test("decorations are recomputed when the document changes", () => {
    let state = stateOf(plan, withLat);
    const before = marks(state).length;
    const at = plan.indexOf('"$1.lat"') + 1;
    state = state.update({ changes: { from: at, to: at + "$1.lat".length, insert: "$1.lat.x.y" } }).state;
    expect(marks(state).length).toBeGreaterThan(before);
    expect(marks(state)).toEqual(
      documentTokens(state.doc.toString(), { tools: withLat })
        .filter((token) => token.span.end > token.span.start)
        .map((token) => ({ from: token.span.start, to: token.span.end, class: `cm-planref cm-planref-${token.kind}` }))
        .sort((a, b) => a.from - b.from || a.to - b.to),
    );
  });
});

test("any text gives ranges inside the document, and no exception", () => {
  const pieces = [
    '{"steps":[',
    '{"id":1,"tool":"t","args":{',
    '"q":"$1.a"',
    '"r":"${2}"',
    "}}",
    "]}",
    ",",
    '"',
    "\\u0024",
    "$",
    "1",
    ".",
    "[",
    "]",
    "{",
    "}",
    " ",
    "\n",
    "é",
    "\uD83D",
  ];
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((parts) => parts.join("")),
      fc.nat(),
      (doc, seed) => {
        const state = stateOf(doc);
        for (const d of planDiagnostics(state)) {
          expect(0 <= d.from && d.from <= d.to && d.to <= doc.length).toBe(true);
        }
        for (const mark of marks(state)) expect(0 <= mark.from && mark.from < mark.to && mark.to <= doc.length).toBe(true);
        const pos = doc.length === 0 ? 0 : seed % (doc.length + 1);
        const result = planCompletionSource(new CompletionContext(state, pos, true)) as CompletionResult | null;
        if (result !== null)
          expect(0 <= result.from && result.from <= pos && pos <= (result.to ?? pos) && (result.to ?? pos) <= doc.length).toBe(true);
      },
    ),
    { numRuns: 300 },
  );
});
