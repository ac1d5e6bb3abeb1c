// The dependency graph, drawn by plan-refs/draw's planToSvg (the one renderer: the CLI's
// `plan-refs graph` draws the same picture). Lint errors against the catalog, references to missing
// steps, cycles and references that fail against the sample results are red. The SVG text is parsed
// as XML (never as HTML) and shown at its natural size: a large plan scrolls rather than shrinks.
import { planToSvg } from "../../src/draw/index.js";
import { lintPlan } from "../../src/lint/index.js";
import type { ToolCatalog } from "../../src/plan/plan.js";
import type { Diagnostic } from "../../src/shared/diagnostic.js";

/** Draw the graph of `plan` into `container`, replacing what was there. */
export function renderGraph(container: HTMLElement, plan: unknown, catalog: ToolCatalog | undefined, failed: readonly Diagnostic[]): void {
  const diagnostics = [...lintPlan(plan, catalog === undefined ? {} : { tools: catalog }), ...failed];
  const text = planToSvg(plan, { diagnostics, ...(catalog === undefined ? {} : { catalog }) });
  const parsed = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = parsed.documentElement;
  if (svg.nodeName !== "svg") {
    container.replaceChildren(Object.assign(document.createElement("p"), { className: "input-error", textContent: "the graph could not be drawn" }));
    return;
  }
  container.replaceChildren(document.importNode(svg, true));
}
