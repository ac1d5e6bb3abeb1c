// Each step's arguments after resolution against the sample results; a failing argument shows its
// error (a KeyError names the missing step or key) in place of a value.
import type { StepModel } from "./model.js";

function node<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className !== "") element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

function show(value: unknown): string {
  const text = value === undefined ? "undefined" : JSON.stringify(value);
  return text.length > 240 ? `${text.slice(0, 239)}…` : text;
}

/** Render the steps' resolved arguments into `container`. */
export function renderResolved(container: HTMLElement, steps: readonly StepModel[]): void {
  const cards = steps.map((step) => {
    const failed = step.args.some((arg) => !arg.ok);
    const card = node("article", `step-card${failed ? " has-error" : ""}`);
    card.dataset.step = String(step.id);
    const head = node("h3", "");
    head.append(node("span", "step-id", `$${step.id}`), node("span", "step-tool", step.tool));
    if (failed) head.append(node("span", "badge bad", "unresolved"));
    card.append(head);
    const list = node("dl", "args");
    if (step.args.length === 0) list.append(node("dd", "empty", "no arguments"));
    for (const arg of step.args) {
      list.append(node("dt", "", arg.name));
      if (arg.ok) {
        list.append(node("dd", arg.changed ? "value from-ref" : "value", show(arg.value)));
      } else {
        const dd = node("dd", "error");
        dd.append(node("span", "code", arg.error.code), document.createTextNode(` ${arg.error.detail}`));
        list.append(dd);
      }
    }
    card.append(list);
    return card;
  });
  container.replaceChildren(...cards);
}
