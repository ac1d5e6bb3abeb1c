// The playground page: the plan editor (with the plan-refs CodeMirror extension), the editable tool
// catalog and sample results, the resolved arguments and the dependency graph. Everything runs in
// the page; nothing is fetched from the network.
import { json, jsonParseLinter } from "@codemirror/lang-json";
import { linter, lintGutter } from "@codemirror/lint";
import { EditorState, type Extension } from "@codemirror/state";
import { basicSetup, EditorView } from "codemirror";
import planText from "../trip/plan.json?raw";
import toolsText from "../trip/tools.json?raw";
import { planDiagnostics, planRefs, setPlanRefsTools } from "../../src/codemirror/index.js";
import type { ToolCatalog } from "../../src/plan/plan.js";
import type { Results } from "../../src/resolve/access.js";
import { bindGraphScale, renderGraph } from "./graph-view.js";
import { buildModel } from "./model.js";
import { renderResolved } from "./resolved-view.js";
import resultsText from "./sample-results.json?raw";

function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element as T;
}

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

function parse(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function jsonEditor(parent: HTMLElement, doc: string, onChange: (text: string) => void, extra: Extension = []): EditorView {
  return new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        basicSetup,
        json(),
        extra,
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
}

// Inputs of the side panels; the last valid value is kept while a text is invalid.
let tools: ToolCatalog | undefined = (parse(toolsText) as { value: ToolCatalog }).value;
let results: Results = (parse(resultsText) as { value: Results }).value;
let planValue: unknown = (parse(planText) as { value: unknown }).value;

const status = byId("status");
const graphBox = byId("graph");
bindGraphScale(byId("graph-scale"), graphBox);
const resolvedBox = byId("resolved");
const problemsList = byId<HTMLUListElement>("problems");

function render(): void {
  const model = buildModel(planValue, results);
  renderGraph(graphBox, planValue, tools, model.failed);
  renderResolved(resolvedBox, model.steps);
  for (const note of model.notes)
    resolvedBox.prepend(Object.assign(document.createElement("p"), { className: "input-error", textContent: note }));
}

function showInputError(id: string, message: string | undefined): void {
  const element = byId(id);
  element.hidden = message === undefined;
  element.textContent = message ?? "";
}

function renderProblems(view: EditorView): void {
  const diagnostics = planDiagnostics(view.state);
  const items = diagnostics.map((diagnostic) => {
    const line = view.state.doc.lineAt(diagnostic.from);
    const item = document.createElement("li");
    item.className = `problem ${diagnostic.severity}`;
    const where = document.createElement("button");
    where.type = "button";
    where.className = "where";
    where.textContent = `${line.number}:${diagnostic.from - line.from + 1}`;
    where.addEventListener("click", () => {
      view.dispatch({ selection: { anchor: diagnostic.from, head: diagnostic.to }, scrollIntoView: true });
      view.focus();
    });
    const text = document.createElement("span");
    text.textContent = diagnostic.message;
    item.append(where, text);
    return item;
  });
  problemsList.replaceChildren(...items);
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const others = diagnostics.length - errors;
  const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? "" : "s"}`;
  status.textContent =
    diagnostics.length === 0
      ? "no problems"
      : [errors > 0 ? plural(errors, "error") : "", others > 0 ? plural(others, "warning") : ""].filter(Boolean).join(", ");
  status.className = `status ${errors > 0 ? "bad" : diagnostics.length > 0 ? "warn" : "good"}`;
}

let pending: ReturnType<typeof setTimeout> | undefined;
function onPlanChange(text: string): void {
  clearTimeout(pending);
  // Coalesce a burst of keystrokes into one update of the side panels.
  pending = setTimeout(() => {
    const parsed = parse(text);
    graphBox.classList.toggle("stale", !parsed.ok);
    resolvedBox.classList.toggle("stale", !parsed.ok);
    if (parsed.ok) {
      planValue = parsed.value;
      render();
    }
    renderProblems(planView);
  }, 120);
}

const planView = jsonEditor(byId("plan-editor"), planText, onPlanChange, [
  planRefs({ tools }),
  lintGutter(),
  EditorView.lineWrapping,
  EditorView.editorAttributes.of({ class: "plan-view" }),
]);

const toolsView = jsonEditor(
  byId("tools-editor"),
  toolsText,
  (text) => {
    const parsed = parse(text);
    if (!parsed.ok || !isObject(parsed.value)) {
      showInputError("tools-error", parsed.ok ? "the catalog must be a JSON object" : parsed.message);
      return;
    }
    showInputError("tools-error", undefined);
    tools = parsed.value as ToolCatalog;
    // The plan editor re-lints, re-highlights and completes against the new catalog.
    planView.dispatch({ effects: setPlanRefsTools.of(tools) });
    renderProblems(planView);
    // The graph draws lint errors against the catalog too.
    render();
  },
  linter(jsonParseLinter()),
);

const resultsView = jsonEditor(
  byId("results-editor"),
  resultsText,
  (text) => {
    const parsed = parse(text);
    if (!parsed.ok || !isObject(parsed.value)) {
      showInputError("results-error", parsed.ok ? "the results must be a JSON object (step id → result)" : parsed.message);
      return;
    }
    showInputError("results-error", undefined);
    results = parsed.value as Results;
    render();
  },
  linter(jsonParseLinter()),
);

byId("reset").addEventListener("click", () => {
  for (const [view, text] of [
    [planView, planText],
    [toolsView, toolsText],
    [resultsView, resultsText],
  ] as const) {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
  }
});

render();
renderProblems(planView);

// For the browser test and for poking around in the console.
Object.assign(globalThis, { playground: { plan: planView, tools: toolsView, results: resultsView } });
