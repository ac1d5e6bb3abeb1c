// The dependency graph, drawn by plan-refs/draw's planToSvg (the one renderer: the CLI's
// `plan-refs graph` draws the same picture). Lint errors against the catalog, references to missing
// steps, cycles and references that fail against the sample results are red. The SVG text is parsed
// as XML (never as HTML). It is fitted to the panel's width by default (style.css scales it by its
// viewBox), and a toggle shows it at its natural size, where a large plan scrolls rather than shrinks.
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
    container.replaceChildren(
      Object.assign(document.createElement("p"), { className: "input-error", textContent: "the graph could not be drawn" }),
    );
    return;
  }
  container.replaceChildren(document.importNode(svg, true));
}

/**
 * Wire `button` to switch `container` between the graph fitted to its width (not pressed, the default)
 * and the graph at its natural size, scrolling (pressed). The state lives on the container's `fit`
 * class, so it survives every redraw of the graph.
 *
 * @example
 * bindGraphScale(document.getElementById("graph-scale")!, document.getElementById("graph")!);
 */
export function bindGraphScale(button: HTMLElement, container: HTMLElement): void {
  const show = (natural: boolean): void => {
    container.classList.toggle("fit", !natural);
    button.setAttribute("aria-pressed", String(natural));
    button.title = natural ? "Fit the graph to the panel's width" : "Show the graph at its natural size (scrolls)";
  };
  show(button.getAttribute("aria-pressed") === "true");
  button.addEventListener("click", () => show(button.getAttribute("aria-pressed") !== "true"));
}
