// The dependency graph as SVG: one column per execution level, steps as boxes, references as arrows
// from the referenced step to the step that uses it. Red: a reference to a step that does not exist,
// one that failed against the sample results, or a cycle. Built with createElementNS and textContent only.
import type { EdgeModel, GraphModel } from "./model.js";

const SVG = "http://www.w3.org/2000/svg";
const BOX_W = 148;
const BOX_H = 50;
const COL_GAP = 64;
const ROW_GAP = 20;
const PAD = 14;
const HEAD = 22;
/** Vertical distance between the lanes under the boxes that carry arrows across more than one level. */
const LANE = 14;

interface Box {
  readonly x: number;
  readonly y: number;
}

function el<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Draw the graph into `container`, replacing what was there. */
export function renderGraph(container: HTMLElement, graph: GraphModel): void {
  // Keys: "s1" for step 1, "m9" for the missing step 9 (a missing id is never a step's id).
  const columns: { title: string; keys: string[]; kind: "level" | "stuck" | "missing" }[] = graph.levels.map((ids, index) => ({ title: `level ${index + 1}`, keys: ids.map((id) => `s${id}`), kind: "level" }));
  if (graph.stuck.length > 0) columns.push({ title: "never runs", keys: graph.stuck.map((id) => `s${id}`), kind: "stuck" });
  const columnOf = new Map<string, number>();
  columns.forEach((column, c) => column.keys.forEach((key) => columnOf.set(key, c)));
  // A missing step goes in the column just before the first step that references it, so its red arrow stays short.
  const missingAt = new Map<number, number>();
  for (const edge of graph.edges) {
    if (edge.state !== "missing") continue;
    const c = (columnOf.get(`s${edge.to}`) ?? 0) - 1;
    missingAt.set(edge.from, Math.min(c, missingAt.get(edge.from) ?? c));
  }
  if ([...missingAt.values()].some((c) => c < 0)) {
    columns.unshift({ title: "missing", keys: [], kind: "missing" });
    for (const [id, c] of missingAt) missingAt.set(id, c + 1);
  }
  for (const id of graph.missing) columns[missingAt.get(id) ?? 0]?.keys.push(`m${id}`);

  const tallest = Math.max(1, ...columns.map((column) => column.keys.length));
  const columnOfKey = new Map<string, number>();
  columns.forEach((column, c) => column.keys.forEach((key) => columnOfKey.set(key, c)));
  const sourceKey = (edge: EdgeModel): string => `${edge.state === "missing" ? "m" : "s"}${edge.from}`;
  // Arrows that skip a level would cross the boxes in between: they run in lanes below all boxes.
  const long = graph.edges.filter((edge) => (columnOfKey.get(`s${edge.to}`) ?? 0) - (columnOfKey.get(sourceKey(edge)) ?? 0) > 1);
  const boxesBottom = PAD + HEAD + tallest * (BOX_H + ROW_GAP) - ROW_GAP;
  const width = PAD * 2 + Math.max(1, columns.length) * (BOX_W + COL_GAP) - COL_GAP;
  const height = boxesBottom + PAD + long.length * LANE;
  const svg = el("svg", { class: "graph-svg", viewBox: `0 0 ${width} ${height}`, width, height, role: "img" });
  svg.append(el("title", {}, `Dependency graph: ${graph.steps.size} steps in ${graph.levels.length} levels`));

  const defs = el("defs", {});
  for (const [id, cls] of [["arrow-ok", "arrow-ok"], ["arrow-bad", "arrow-bad"]] as const) {
    const marker = el("marker", { id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
    marker.append(el("path", { d: "M 0 0 L 10 5 L 0 10 z", class: cls }));
    defs.append(marker);
  }
  svg.append(defs);

  const boxes = new Map<string, Box>();
  columns.forEach((column, c) => {
    const x = PAD + c * (BOX_W + COL_GAP);
    // Shorter columns are centred vertically, so arrows between levels stay short.
    const offset = ((tallest - column.keys.length) * (BOX_H + ROW_GAP)) / 2;
    svg.append(el("text", { x: x + BOX_W / 2, y: PAD + 12, class: `graph-level graph-level-${column.kind}` }, column.title));
    column.keys.forEach((key, r) => boxes.set(key, { x, y: PAD + HEAD + offset + r * (BOX_H + ROW_GAP) }));
  });

  const edgeGroup = el("g", { class: "graph-edges" });
  const incoming = new Map<number, EdgeModel[]>();
  const outgoing = new Map<string, EdgeModel[]>();
  for (const edge of graph.edges) {
    incoming.set(edge.to, [...(incoming.get(edge.to) ?? []), edge]);
    outgoing.set(sourceKey(edge), [...(outgoing.get(sourceKey(edge)) ?? []), edge]);
  }
  for (const edge of graph.edges) {
    const source = boxes.get(sourceKey(edge));
    const target = boxes.get(`s${edge.to}`);
    if (source === undefined || target === undefined) continue;
    const outs = outgoing.get(sourceKey(edge))!;
    const ins = incoming.get(edge.to)!;
    const y1 = source.y + (BOX_H * (outs.indexOf(edge) + 1)) / (outs.length + 1);
    const y2 = target.y + (BOX_H * (ins.indexOf(edge) + 1)) / (ins.length + 1);
    const bad = edge.state !== "ok";
    let d: string;
    const lane = long.indexOf(edge);
    if (lane >= 0) {
      const x1 = source.x + BOX_W;
      const x2 = target.x - 2;
      const y = boxesBottom + (lane + 1) * LANE - 4;
      d = `M ${x1} ${y1} C ${x1 + 40} ${y1}, ${x1 + 20} ${y}, ${x1 + 50} ${y} L ${x2 - 50} ${y} C ${x2 - 20} ${y}, ${x2 - 40} ${y2}, ${x2} ${y2}`;
    } else if (target.x > source.x) {
      const x1 = source.x + BOX_W;
      const x2 = target.x - 2;
      const bend = Math.max(24, (x2 - x1) / 2);
      d = `M ${x1} ${y1} C ${x1 + bend} ${y1}, ${x2 - bend} ${y2}, ${x2} ${y2}`;
    } else {
      // Backwards or within a column (cycles): loop out to the right and come back in from the left.
      const x1 = source.x + BOX_W;
      const x2 = target.x - 2;
      d = `M ${x1} ${y1} C ${x1 + 60} ${y1 - 70}, ${x2 - 60} ${y2 - 70}, ${x2} ${y2}`;
    }
    const path = el("path", { d, class: `graph-edge graph-edge-${edge.state}`, "marker-end": `url(#${bad ? "arrow-bad" : "arrow-ok"})`, "data-from": edge.from, "data-to": edge.to });
    path.append(el("title", {}, describeEdge(edge)));
    edgeGroup.append(path);
  }
  svg.append(edgeGroup);

  for (const [key, box] of boxes) {
    const missing = key.startsWith("m");
    const id = Number(key.slice(1));
    const stuck = !missing && graph.stuck.includes(id);
    const group = el("g", { class: missing ? "graph-missing" : `graph-step${stuck ? " graph-stuck" : ""}`, "data-step": id, transform: `translate(${box.x} ${box.y})` });
    group.append(el("rect", { width: BOX_W, height: BOX_H, rx: 8, ry: 8 }));
    group.append(el("text", { x: 12, y: 21, class: "graph-id" }, `$${id}`));
    const label = missing ? "no such step" : clip(graph.steps.get(id) ?? "", 18);
    group.append(el("text", { x: 12, y: 39, class: "graph-tool" }, label));
    group.append(el("title", {}, missing ? `Step ${id} is referenced but does not exist` : `Step ${id}: ${graph.steps.get(id) ?? ""}`));
    svg.append(group);
  }
  container.replaceChildren(svg);
}

function describeEdge(edge: EdgeModel): string {
  switch (edge.state) {
    case "ok":
      return `$${edge.to} uses the result of $${edge.from}`;
    case "failed":
      return `$${edge.to} references $${edge.from}, which fails against the sample results`;
    case "missing":
      return `$${edge.to} references $${edge.from}, which does not exist`;
    case "cycle":
      return `$${edge.to} and $${edge.from} are in a cycle`;
  }
}
