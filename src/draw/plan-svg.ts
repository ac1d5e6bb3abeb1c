/**
 * A plan's dependency graph as SVG, Mermaid or Graphviz DOT text. The SVG is self-contained: no
 * script, no style sheet, no external reference (its only `url(#…)` references are its own arrow
 * heads), every text escaped, so it is safe to open when the plan is not trusted. Elements carry
 * classes (`plan-refs-step`, `plan-refs-edge-missing`, …) and presentation attributes, so a page's
 * CSS can restyle it; its size is its natural size (`width`, `height` and `viewBox`), for a
 * scrolling container (`overflow: auto`).
 */
import { layoutPlan, PLAN_GEOMETRY, type PlacedLabel, type PlanLayout } from "./plan-layout.js";
import { OUTPUT_NODE, planPicture, type DrawPlanOptions, type EdgeState, type PlanPicture } from "./plan-model.js";
import { escapeXml, FONT_FAMILY, fitText, LONGEST_LABEL, num } from "./text.js";

/**
 * The colours of the pictures (the playground's).
 *
 * @example
 * COLORS.bad // "#dc2626": missing steps, cycles, lint errors
 */
export const COLORS = Object.freeze({
  box: "#f5f3ff",
  boxLine: "#a78bfa",
  id: "#4c1d95",
  text: "#374151",
  muted: "#6b7683",
  edge: "#9ca3af",
  bad: "#dc2626",
  badBackground: "#fef2f2",
  /** A step of an earlier plan of the session, drawn as an input of the plan (dashed). */
  earlier: "#0369a1",
  earlierBackground: "#f0f9ff",
  background: "#ffffff",
});

/**
 * `<text>` for a placed label (its text escaped).
 *
 * @example
 * textElement(layoutPlan(plan).boxes[0]!.idLabel, `fill="#4c1d95"`) // '<text x="28" y="63" font-size="14" fill="#4c1d95">$1</text>'
 */
export function textElement(label: PlacedLabel, attributes: string): string {
  return `<text x="${num(label.x)}" y="${num(label.y)}" font-size="${label.fontSize}"${label.anchor === "start" ? "" : ` text-anchor="${label.anchor}"`} ${attributes}>${escapeXml(label.text)}</text>`;
}

/**
 * The `<defs>` with one arrow head per colour, ids `<prefix>-<name>` (used as `marker-end="url(#…)"`).
 *
 * @example
 * arrowDefs("plan-refs-arrow", { ok: "#9ca3af", bad: "#dc2626" }) // '<defs><marker id="plan-refs-arrow-ok" …'
 */
export function arrowDefs(prefix: string, colors: Readonly<Record<string, string>>, size?: number): string {
  // Without a size, heads scale with the line's width; with one, they are `size` pixels whatever the width.
  const dimensions =
    size === undefined ? `markerWidth="7" markerHeight="7"` : `markerUnits="userSpaceOnUse" markerWidth="${size}" markerHeight="${size}"`;
  const markers = Object.entries(colors).map(
    ([name, color]) =>
      `<marker id="${prefix}-${name}" viewBox="0 0 10 10" refX="9" refY="5" ${dimensions} orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="${color}"/></marker>`,
  );
  return `<defs>${markers.join("")}</defs>`;
}

/**
 * The SVG of a layout from `layoutPlan` (what `planToSvg` returns): for a caller that looks at the
 * geometry before drawing it.
 *
 * @example
 * const layout = layoutPlan(plan);
 * if (layout.width > 4000) console.log("a wide picture: show it in a scrolling panel");
 * const svg = layoutToSvg(layout); // === planToSvg(plan)
 */
export function layoutToSvg(layout: PlanLayout): string {
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="plan-refs-graph" width="${num(layout.width)}" height="${num(layout.height)}" viewBox="0 0 ${num(layout.width)} ${num(layout.height)}" role="img" font-family="${escapeXml(FONT_FAMILY)}">`,
  );
  out.push(`<title>${escapeXml(layout.summary)}</title>`);
  // Heads of a fixed size: the labels beside them are placed clear of exactly this much.
  out.push(
    arrowDefs(
      "plan-refs-arrow",
      layout.picture.earlier.length === 0
        ? { ok: COLORS.edge, bad: COLORS.bad }
        : { ok: COLORS.edge, bad: COLORS.bad, earlier: COLORS.earlier },
      PLAN_GEOMETRY.arrowHead,
    ),
  );
  out.push(`<rect class="plan-refs-background" width="100%" height="100%" fill="${COLORS.background}"/>`);
  if (layout.note !== undefined) {
    out.push(
      `<g class="plan-refs-note">${layout.noteTooltip === "" ? "" : `<title>${escapeXml(layout.noteTooltip)}</title>`}${textElement(layout.note, `fill="${COLORS.bad}"`)}</g>`,
    );
  }
  for (const column of layout.columns) {
    out.push(
      textElement(
        column.title,
        `class="plan-refs-level plan-refs-level-${column.kind}" fill="${column.kind === "level" ? COLORS.muted : column.kind === "earlier" ? COLORS.earlier : COLORS.bad}" letter-spacing="0.5"`,
      ),
    );
  }
  const earlier = new Set(layout.picture.earlier);
  out.push(`<g class="plan-refs-edges" fill="none">`);
  for (const edge of layout.edges) {
    const bad = edge.state !== "ok";
    const input = earlier.has(edge.from);
    const dash = edge.state === "missing" || input ? ` stroke-dasharray="5 4"` : "";
    const head = bad ? "bad" : input ? "earlier" : "ok";
    out.push(
      `<g class="plan-refs-edge plan-refs-edge-${edge.state}${input ? " plan-refs-edge-earlier" : ""}" data-from="${edge.from}" data-to="${edge.to}"><title>${escapeXml(edge.tooltip)}</title>` +
        `<path d="${edge.path}" stroke="${bad ? COLORS.bad : input ? COLORS.earlier : COLORS.edge}" stroke-width="${bad ? 2 : 1.6}"${dash} stroke-linejoin="round" marker-end="url(#plan-refs-arrow-${head})"/>` +
        (edge.label === undefined
          ? ""
          : textElement(
              edge.label,
              `fill="${bad ? COLORS.bad : COLORS.muted}" stroke="${COLORS.background}" stroke-width="3" paint-order="stroke"`,
            )) +
        `</g>`,
    );
  }
  out.push(`</g>`);
  for (const box of layout.boxes) {
    const missing = box.kind === "missing";
    const input = box.kind === "earlier";
    const cls = missing
      ? "plan-refs-missing"
      : input
        ? "plan-refs-earlier"
        : box.kind === "output"
          ? `plan-refs-output${box.bad ? " plan-refs-error" : ""}`
          : `plan-refs-step${box.kind === "stuck" ? " plan-refs-stuck" : ""}${box.bad ? " plan-refs-error" : ""}`;
    const fill = box.bad ? COLORS.badBackground : input ? COLORS.earlierBackground : COLORS.box;
    const line = box.bad ? COLORS.bad : input ? COLORS.earlier : COLORS.boxLine;
    out.push(
      `<g class="${cls}"${box.kind === "output" ? "" : ` data-step="${box.id}"`}><title>${escapeXml(box.tooltip)}</title>` +
        `<rect x="${num(box.x)}" y="${num(box.y)}" width="${box.width}" height="${box.height}" rx="8" ry="8" fill="${fill}" stroke="${line}" stroke-width="1.5"${missing || input ? ` stroke-dasharray="5 4"` : ""}/>` +
        textElement(
          box.idLabel,
          `class="plan-refs-id" font-weight="700" fill="${box.bad ? COLORS.bad : input ? COLORS.earlier : COLORS.id}"`,
        ) +
        textElement(
          box.toolLabel,
          `class="plan-refs-tool" fill="${box.bad ? COLORS.bad : COLORS.text}"${missing ? ` font-style="italic"` : ""}`,
        ) +
        `</g>`,
    );
  }
  if (layout.boxes.length === 0)
    out.push(
      `<text x="${num(layout.width / 2)}" y="${num(layout.height / 2)}" text-anchor="middle" font-size="12" fill="${COLORS.muted}">no steps</text>`,
    );
  out.push(`</svg>`);
  return out.join("\n");
}

/**
 * The dependency graph of a plan as a standalone SVG document (a string): steps as boxes by execution
 * level, left to right, labelled with their id and tool; an arrow per dependency labelled with the
 * keys it reads; references to missing steps dashed red, cycles and lint errors red. Never throws on
 * any plan (what cannot be read is left out, as the linter does); bad options are a `RefError`
 * (`invalid-options`).
 *
 * @example
 * const svg = planToSvg({ steps: [{ id: 1, tool: "geocode", args: {} }, { id: 2, tool: "weather", args: { q: "$1.city" } }] });
 * svg.startsWith("<svg") // true
 */
export function planToSvg(plan: unknown, options?: DrawPlanOptions): string {
  return layoutToSvg(layoutPlan(plan, options));
}

function shortLabel(text: string): string {
  // Character counts, not pixels: Mermaid and Graphviz measure their own text.
  return fitText(text, LONGEST_LABEL, 1 / 0.62).text;
}

/**
 * Text for a Mermaid label inside `"…"` or a Gantt task name: every character but letters, digits,
 * space and `_ . , $ - / ( ) [ ]` written as an entity code (`#34;`), which Mermaid decodes after
 * parsing; nothing can close the string, end a task name (`:`), start a link or inject markup.
 *
 * @example
 * mermaidText('a "b" <c>') // "a #34;b#34; #60;c#62;"
 */
export function mermaidText(text: string): string {
  let out = "";
  for (const character of text) out += /^[A-Za-z0-9 _.,$()[\]/-]$/.test(character) ? character : `#${character.codePointAt(0)};`;
  return out;
}

/**
 * Text for a DOT double-quoted string: `\` and `"` escaped, every line break as `\n` (DOT's centred
 * line break); the text is printable already, so no other control character is left.
 *
 * @example
 * dotText('say "hi" \\ bye') // 'say \\"hi\\" \\\\ bye'
 */
export function dotText(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\r?\n/g, "\\n");
}

const nodeId = (kind: string, id: number): string =>
  id === OUTPUT_NODE ? "output" : `${kind === "missing" ? "m" : kind === "earlier" ? "e" : "s"}${id}`;

/** The kind of node an arrow leaves: a missing step, a step of an earlier plan, or one of the plan's. */
const sourceKind = (picture: PlanPicture, edge: PlanPicture["edges"][number]): "missing" | "earlier" | "step" =>
  edge.state === "missing" ? "missing" : picture.earlier.includes(edge.from) ? "earlier" : "step";

/**
 * The dependency graph of a plan as a Mermaid flowchart (left to right, one subgraph per level):
 * ids are `s<step>` (`m<step>` for a missing step), labels escaped with entity codes, missing steps
 * and bad arrows red (missing ones dotted). Never throws on any plan.
 *
 * @example
 * planToMermaid({ steps: [{ id: 1, tool: "geocode", args: {} }, { id: 2, tool: "weather", args: { q: "$1.city" } }] }).split("\n")[0] // "flowchart LR"
 */
export function planToMermaid(plan: unknown, options?: DrawPlanOptions): string {
  const picture = planPicture(plan, options);
  const lines = ["flowchart LR"];
  const byId = new Map(picture.steps.filter((step) => step.kind !== "missing" && step.kind !== "earlier").map((step) => [step.id, step]));
  const tools = new Map(picture.steps.filter((step) => step.kind === "earlier").map((step) => [step.id, step.tool]));
  const node = (kind: string, id: number, second: string): string =>
    `${nodeId(kind, id)}["${mermaidText(`$${id}`)}<br/>${mermaidText(shortLabel(second))}"]`;
  const group = (name: string, title: string, members: readonly string[]): void => {
    lines.push(`  subgraph ${name} ["${mermaidText(title)}"]`, "    direction TB", ...members.map((member) => `    ${member}`), "  end");
  };
  if (picture.earlier.length > 0)
    group(
      "earlier",
      "earlier plans",
      picture.earlier.map((id) => node("earlier", id, tools.get(id) ?? "")),
    );
  if (picture.missing.length > 0)
    group(
      "missing",
      "missing",
      picture.missing.map((id) => node("missing", id, "no such step")),
    );
  picture.levels.forEach((ids, i) =>
    group(
      `level${i + 1}`,
      `level ${i + 1}`,
      ids.map((id) => node("step", id, byId.get(id)?.tool ?? "")),
    ),
  );
  if (picture.output) group("outputs", "output", [`${nodeId("output", OUTPUT_NODE)}["output"]`]);
  if (picture.stuck.length > 0)
    group(
      "stuck",
      "never runs",
      picture.stuck.map((id) => node("stuck", id, byId.get(id)?.tool ?? "")),
    );
  const bad: number[] = [];
  picture.edges.forEach((edge, i) => {
    const from = sourceKind(picture, edge);
    const arrow = from === "step" ? "-->" : "-.->";
    lines.push(`  ${nodeId(from, edge.from)} ${arrow}|"${mermaidText(shortLabel(edge.keys.join(", ")))}"| ${nodeId("step", edge.to)}`);
    if (edge.state !== "ok") bad.push(i);
  });
  lines.push(`  classDef bad fill:${COLORS.badBackground},stroke:${COLORS.bad},color:${COLORS.bad}`);
  lines.push(`  classDef missing fill:${COLORS.badBackground},stroke:${COLORS.bad},color:${COLORS.bad},stroke-dasharray:5 4`);
  const badSteps = picture.steps
    .filter((step) => step.kind === "stuck" || (step.kind === "step" && step.errors.length > 0))
    .map((step) => nodeId(step.kind, step.id));
  if (badSteps.length > 0) lines.push(`  class ${badSteps.join(",")} bad`);
  if (picture.missing.length > 0) lines.push(`  class ${picture.missing.map((id) => nodeId("missing", id)).join(",")} missing`);
  if (picture.earlier.length > 0) {
    lines.push(`  classDef earlier fill:${COLORS.earlierBackground},stroke:${COLORS.earlier},color:${COLORS.earlier},stroke-dasharray:5 4`);
    lines.push(`  class ${picture.earlier.map((id) => nodeId("earlier", id)).join(",")} earlier`);
  }
  if (bad.length > 0) lines.push(`  linkStyle ${bad.join(",")} stroke:${COLORS.bad},stroke-width:2px`);
  return `${lines.join("\n")}\n`;
}

const EDGE_STYLE: Readonly<Record<EdgeState, string>> = {
  ok: `color="${COLORS.edge}"`,
  missing: `color="${COLORS.bad}", fontcolor="${COLORS.bad}", style="dashed"`,
  cycle: `color="${COLORS.bad}", fontcolor="${COLORS.bad}", penwidth=2`,
  error: `color="${COLORS.bad}", fontcolor="${COLORS.bad}", penwidth=2`,
};

/**
 * The dependency graph of a plan as Graphviz DOT (`rankdir=LR`, one cluster per level): node ids
 * `"s<step>"` (`"m<step>"` for a missing step), every string quoted and escaped, missing steps and
 * bad arrows red (missing ones dashed), tooltips with the full text. Never throws on any plan.
 *
 * @example
 * planToDot({ steps: [{ id: 1, tool: "geocode", args: {} }] }).split("\n")[0] // "digraph plan {"
 */
export function planToDot(plan: unknown, options?: DrawPlanOptions): string {
  const picture = planPicture(plan, options);
  const layout = { tooltip: (text: string) => dotText(fitText(text, 2000, 1 / 0.62).text) };
  const lines = [
    "digraph plan {",
    "  rankdir=LR;",
    `  node [shape=box, style="rounded,filled", fillcolor="${COLORS.box}", color="${COLORS.boxLine}", fontname="monospace"];`,
    `  edge [fontname="monospace", fontsize=10];`,
  ];
  const byId = new Map(picture.steps.filter((step) => step.kind !== "missing").map((step) => [step.id, step]));
  const node = (kind: "step" | "stuck" | "missing" | "earlier", id: number): string => {
    const step = byId.get(id);
    if (kind === "earlier") {
      const tip = layout.tooltip(
        `Step ${id}: ${step?.tool ?? ""}, of an earlier plan of the session (its result is an input of this plan)`,
      );
      return `"${nodeId(kind, id)}" [label="${dotText(`$${id}\n${shortLabel(step?.tool ?? "")}`)}", tooltip="${tip}", color="${COLORS.earlier}", fillcolor="${COLORS.earlierBackground}", fontcolor="${COLORS.earlier}", style="rounded,dashed,filled"];`;
    }
    const second = kind === "missing" ? "no such step" : (step?.tool ?? "");
    const bad = kind !== "step" || (step?.errors.length ?? 0) > 0;
    const tip =
      kind === "missing"
        ? `Step ${id} is referenced but is not in the plan`
        : [`Step ${id}: ${second}`, ...(step?.errors ?? [])].map((line) => layout.tooltip(line)).join("\\n");
    const style = bad
      ? `, color="${COLORS.bad}", fillcolor="${COLORS.badBackground}", fontcolor="${COLORS.bad}"${kind === "missing" ? `, style="rounded,dashed,filled"` : ""}`
      : "";
    return `"${nodeId(kind, id)}" [label="${dotText(`$${id}\n${shortLabel(second)}`)}", tooltip="${tip}"${style}];`;
  };
  const cluster = (name: string, title: string, members: readonly string[]): void => {
    lines.push(
      `  subgraph "cluster_${name}" {`,
      `    label="${dotText(title)}";`,
      `    style="dashed"; color="#d1d5db"; fontname="monospace"; fontsize=11;`,
      ...members.map((member) => `    ${member}`),
      "  }",
    );
  };
  if (picture.earlier.length > 0)
    cluster(
      "earlier",
      "earlier plans",
      picture.earlier.map((id) => node("earlier", id)),
    );
  if (picture.missing.length > 0)
    cluster(
      "missing",
      "missing",
      picture.missing.map((id) => node("missing", id)),
    );
  picture.levels.forEach((ids, i) =>
    cluster(
      `level_${i + 1}`,
      `level ${i + 1}`,
      ids.map((id) => node("step", id)),
    ),
  );
  if (picture.output)
    cluster("output", "output", [
      `"${nodeId("output", OUTPUT_NODE)}" [label="output", tooltip="The plan's output, resolved when every step has run"];`,
    ]);
  if (picture.stuck.length > 0)
    cluster(
      "stuck",
      "never runs",
      picture.stuck.map((id) => node("stuck", id)),
    );
  for (const edge of picture.edges) {
    const kind = sourceKind(picture, edge);
    const style = kind === "earlier" && edge.state === "ok" ? `color="${COLORS.earlier}", style="dashed"` : EDGE_STYLE[edge.state];
    lines.push(
      `  "${nodeId(kind, edge.from)}" -> "${nodeId("step", edge.to)}" [label="${dotText(shortLabel(edge.keys.join(", ")))}", tooltip="${layout.tooltip(`${edge.to === OUTPUT_NODE ? "The output" : `$${edge.to}`} reads ${edge.keys.join(", ")} of $${edge.from}`)}", ${style}];`,
    );
  }
  lines.push("}");
  return `${lines.join("\n")}\n`;
}
