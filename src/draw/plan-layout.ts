/**
 * The geometry of a plan's picture: one column per execution level, left to right, boxes stacked on a
 * grid; a level with more than `maxRows` steps wraps into more columns side by side, so the picture's
 * height stays bounded and a large plan grows only to the right (it scrolls horizontally). Arrows never
 * cross a box: an arrow between neighbouring columns is a curve inside the gap between them; any other
 * (skipping levels, within a wrapped level, back along a cycle) runs orthogonally through the gaps —
 * out into the gap right of its source, along the empty channel between two rows, down the gap left
 * of its target. Every label is fitted to its place (cut with `…`, the full text in a tooltip).
 */
import { fitText, tooltip } from "./text.js";
import { planPicture, pushTo, readDrawOptions, type DrawPlanOptions, type EdgeState, type PictureStep, type PlanPicture } from "./plan-model.js";

/**
 * Box and gap sizes, in pixels.
 *
 * @example
 * PLAN_GEOMETRY.boxWidth + PLAN_GEOMETRY.columnGap // 280: the distance between two levels
 */
export const PLAN_GEOMETRY = Object.freeze({
  boxWidth: 176,
  boxHeight: 52,
  columnGap: 104,
  rowGap: 28,
  padding: 16,
  header: 26,
  idFont: 14,
  toolFont: 12,
  titleFont: 11,
  edgeFont: 10,
  /** Text inset from a box's left and right edges. */
  inset: 12,
});

/** A label placed in the picture: its (fitted) text, the font size, and its estimated bounding box. */
export interface PlacedLabel {
  readonly text: string;
  /** Whether the text was cut to fit (the full text is in the tooltip). */
  readonly cut: boolean;
  readonly fontSize: number;
  /** The baseline's start (`anchor` `start`) or end (`end`) or middle (`middle`). */
  readonly x: number;
  readonly y: number;
  readonly anchor: "start" | "middle" | "end";
  /** The estimated box the text covers. */
  readonly box: { readonly x: number; readonly y: number; readonly width: number; readonly height: number };
}

/** A step's box. */
export interface LayoutBox {
  readonly id: number;
  readonly kind: PictureStep["kind"];
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  /** The grid column (0-based) and row. */
  readonly column: number;
  readonly row: number;
  readonly idLabel: PlacedLabel;
  readonly toolLabel: PlacedLabel;
  readonly tooltip: string;
  /** The linter reports an error on this step (or it never runs, or does not exist). */
  readonly bad: boolean;
}

/** A dependency arrow. */
export interface LayoutEdge {
  readonly from: number;
  readonly to: number;
  readonly state: EdgeState;
  readonly keys: readonly string[];
  /** SVG path data, from the source box's right side to the target box's left side. */
  readonly path: string;
  /** The points the path goes through (a curve's two ends; every corner of an orthogonal route). */
  readonly points: readonly { readonly x: number; readonly y: number }[];
  readonly curve: boolean;
  /** The keys read, near the arrow's head; absent when there is no room (then only in the tooltip). */
  readonly label: PlacedLabel | undefined;
  readonly tooltip: string;
}

/** A column heading ("level 1", "never runs", "missing"). */
export interface LayoutColumn {
  readonly kind: "level" | "stuck" | "missing";
  readonly x: number;
  readonly title: PlacedLabel;
}

/** The whole geometry, as `planToSvg` draws it. */
export interface PlanLayout {
  readonly width: number;
  readonly height: number;
  readonly picture: PlanPicture;
  readonly columns: readonly LayoutColumn[];
  readonly boxes: readonly LayoutBox[];
  readonly edges: readonly LayoutEdge[];
  /** A line above the columns when the linter found errors ("2 lint errors"). */
  readonly note: PlacedLabel | undefined;
  readonly noteTooltip: string;
  /** One sentence about the picture (the SVG's title). */
  readonly summary: string;
}

const G = PLAN_GEOMETRY;

function place(text: string, maxWidth: number, fontSize: number, x: number, y: number, anchor: PlacedLabel["anchor"]): PlacedLabel {
  const fitted = fitText(text, maxWidth, fontSize);
  const left = anchor === "start" ? x : anchor === "end" ? x - fitted.width : x - fitted.width / 2;
  return { text: fitted.text, cut: fitted.cut, fontSize, x, y, anchor, box: { x: left, y: y - fontSize * 0.8, width: fitted.width, height: fontSize } };
}

const plural = (n: number, word: string): string => `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;

/**
 * Lay out the picture of a plan: boxes, arrows, headings, with every label fitted. `planToSvg` draws
 * exactly this; tests check its geometry. Never throws on any plan; bad options are a `RefError`
 * (`invalid-options`).
 *
 * @example
 * const layout = layoutPlan({ steps: [{ id: 1, tool: "geocode", args: {} }, { id: 2, tool: "weather", args: { q: "$1.city" } }] });
 * layout.boxes.map((box) => [box.id, box.column]) // [[1, 0], [2, 1]]
 * layout.edges[0]?.keys // ["city"]
 */
export function layoutPlan(plan: unknown, options?: DrawPlanOptions): PlanLayout {
  const picture = planPicture(plan, options);
  const { maxRows } = readDrawOptions(options);
  const stepOf = new Map(picture.steps.map((step) => [`${step.kind === "missing" ? "m" : "s"}${step.id}`, step]));

  interface Group {
    readonly title: string;
    readonly kind: LayoutColumn["kind"];
    readonly keys: readonly string[];
  }
  const groups: Group[] = [];
  if (picture.missing.length > 0) groups.push({ title: "missing", kind: "missing", keys: picture.missing.map((id) => `m${id}`) });
  picture.levels.forEach((ids, i) => groups.push({ title: `level ${i + 1}`, kind: "level", keys: ids.map((id) => `s${id}`) }));
  if (picture.stuck.length > 0) groups.push({ title: "never runs", kind: "stuck", keys: picture.stuck.map((id) => `s${id}`) });

  // Grid columns: each group cut into columns of at most maxRows boxes.
  const gridColumns: { group: Group; keys: readonly string[]; part: number }[] = [];
  for (const group of groups) {
    for (let start = 0, part = 0; start < group.keys.length; start += maxRows, part++) gridColumns.push({ group, keys: group.keys.slice(start, start + maxRows), part });
  }
  const rows = Math.max(1, ...gridColumns.map((column) => column.keys.length));
  const cell = new Map<string, { column: number; row: number }>();
  gridColumns.forEach((column, c) => {
    // Shorter columns are centred by whole rows, so the channels between rows stay free in every column.
    const offset = Math.floor((rows - column.keys.length) / 2);
    column.keys.forEach((key, r) => cell.set(key, { column: c, row: offset + r }));
  });

  const edgeKey = (edge: { from: number; state: EdgeState }): string => `${edge.state === "missing" ? "m" : "s"}${edge.from}`;
  const placedEdges = picture.edges.filter((edge) => cell.has(edgeKey(edge)) && cell.has(`s${edge.to}`));
  const isCurve = (edge: { from: number; to: number; state: EdgeState }): boolean => cell.get(`s${edge.to}`)!.column === cell.get(edgeKey(edge))!.column + 1;
  const lastColumn = gridColumns.length - 1;
  const leftGap = placedEdges.some((edge) => cell.get(`s${edge.to}`)!.column === 0);
  const rightGap = placedEdges.some((edge) => !isCurve(edge) && cell.get(edgeKey(edge))!.column === lastColumn);

  const noteText = picture.errorCount > 0 ? `${plural(picture.errorCount, "lint error")}${picture.planErrors.length > 0 ? ` (${picture.planErrors.length} about the whole plan)` : ""}` : undefined;
  const top = G.padding + G.header + (noteText === undefined ? 0 : 18);
  const left = G.padding + (leftGap ? G.columnGap : 0);
  const pitchX = G.boxWidth + G.columnGap;
  const pitchY = G.boxHeight + G.rowGap;
  const columnX = (c: number): number => left + c * pitchX;
  const rowY = (r: number): number => top + r * pitchY;
  const contentWidth = gridColumns.length === 0 ? 240 : gridColumns.length * pitchX - G.columnGap;
  const width = left + contentWidth + (rightGap ? G.columnGap : 0) + G.padding;
  // The channel below the last row is used by routed arrows: one row gap more.
  const height = gridColumns.length === 0 ? top + G.boxHeight + G.padding : rowY(rows) + G.padding;

  const columns: LayoutColumn[] = gridColumns.map((column, c) => {
    const title = column.part === 0 ? column.group.title : `${column.group.title} (${column.part + 1})`;
    return { kind: column.group.kind, x: columnX(c), title: place(title, G.boxWidth, G.titleFont, columnX(c) + G.boxWidth / 2, G.padding + (noteText === undefined ? 0 : 18) + 12, "middle") };
  });

  const boxes: LayoutBox[] = [];
  const boxAt = new Map<string, LayoutBox>();
  for (const [key, { column, row }] of cell) {
    const step = stepOf.get(key)!;
    const x = columnX(column);
    const y = rowY(row);
    const inner = G.boxWidth - 2 * G.inset;
    const toolText = step.kind === "missing" ? "no such step" : step.tool;
    // One tooltip line per fact, each made printable on its own (a newline inside a tool name stays escaped).
    const lines = [step.kind === "missing" ? `Step ${step.id} is referenced but is not in the plan` : `Step ${step.id}: ${step.tool}`];
    if (step.kind === "stuck") lines.push("Never runs: it is in a cycle or depends on a step that is");
    lines.push(...step.errors.slice(0, 8));
    if (step.errors.length > 8) lines.push(`… and ${step.errors.length - 8} more errors`);
    const box: LayoutBox = {
      id: step.id,
      kind: step.kind,
      x,
      y,
      width: G.boxWidth,
      height: G.boxHeight,
      column,
      row,
      idLabel: place(`$${step.id}`, inner, G.idFont, x + G.inset, y + 21, "start"),
      toolLabel: place(toolText, inner, G.toolFont, x + G.inset, y + 39, "start"),
      tooltip: lines.map((line) => tooltip(line)).join("\n"),
      bad: step.kind !== "step" || step.errors.length > 0,
    };
    boxes.push(box);
    boxAt.set(key, box);
  }

  // Where arrows leave and enter: spread along the box's side, in a stable order.
  const outgoing = new Map<string, number[]>();
  const incoming = new Map<string, number[]>();
  // Each arrow's place among its source's outgoing and its target's incoming arrows.
  const outSlot = new Int32Array(placedEdges.length);
  const inSlot = new Int32Array(placedEdges.length);
  placedEdges.forEach((edge, i) => {
    outSlot[i] = outgoing.get(edgeKey(edge))?.length ?? 0;
    inSlot[i] = incoming.get(`s${edge.to}`)?.length ?? 0;
    pushTo(outgoing, edgeKey(edge), i);
    pushTo(incoming, `s${edge.to}`, i);
  });
  // Tracks inside the gaps, so that arrows sharing a gap or a channel do not run on top of each other.
  const verticalTracks = Math.max(1, Math.floor((G.columnGap - 24) / 6));
  const horizontalTracks = Math.max(1, Math.floor((G.rowGap - 8) / 4) + 1);
  const gapUse = new Map<string, number>();
  const nextTrack = (key: string): number => {
    const n = gapUse.get(key) ?? 0;
    gapUse.set(key, n + 1);
    return n;
  };

  const edges: LayoutEdge[] = placedEdges.map((edge, i) => {
    const source = boxAt.get(edgeKey(edge))!;
    const target = boxAt.get(`s${edge.to}`)!;
    const outs = outgoing.get(edgeKey(edge))!;
    const ins = incoming.get(`s${edge.to}`)!;
    const x1 = source.x + source.width;
    const y1 = source.y + (source.height * (outSlot[i]! + 1)) / (outs.length + 1);
    const x2 = target.x - 2;
    const y2 = target.y + (target.height * (inSlot[i]! + 1)) / (ins.length + 1);
    let path: string;
    let points: { x: number; y: number }[];
    const curve = isCurve(edge);
    if (curve) {
      const bend = (x2 - x1) / 2;
      path = `M ${r(x1)} ${r(y1)} C ${r(x1 + bend)} ${r(y1)}, ${r(x2 - bend)} ${r(y2)}, ${r(x2)} ${r(y2)}`;
      points = [
        { x: x1, y: y1 },
        { x: x2, y: y2 },
      ];
    } else {
      const xOut = x1 + 12 + (nextTrack(`v${source.column}`) % verticalTracks) * 6;
      const xIn = target.x - 12 - (nextTrack(`v${target.column - 1}`) % verticalTracks) * 6;
      // The channel between rows nearest the middle (channel k runs just below row k-1).
      const channel = Math.min(rows, Math.max(1, Math.round((source.row + target.row + 1) / 2)));
      const yChannel = rowY(channel) - G.rowGap + 4 + (nextTrack(`h${channel}`) % horizontalTracks) * 4;
      points = [
        { x: x1, y: y1 },
        { x: xOut, y: y1 },
        { x: xOut, y: yChannel },
        { x: xIn, y: yChannel },
        { x: xIn, y: y2 },
        { x: x2, y: y2 },
      ];
      path = `M ${r(x1)} ${r(y1)} H ${r(xOut)} V ${r(yChannel)} H ${r(xIn)} V ${r(y2)} H ${r(x2)}`;
    }
    const keys = edge.keys.join(", ");
    const room = target.height / (ins.length + 1) >= G.edgeFont + 3;
    const label = room ? place(keys, G.columnGap - 20, G.edgeFont, target.x - 6, y2 - 4, "end") : undefined;
    let first = `$${edge.to} reads ${keys} of $${edge.from}`;
    if (edge.state === "missing") first += `; step ${edge.from} is not in the plan`;
    if (edge.state === "cycle") first += edge.from === edge.to ? "; a step cannot use its own result" : `; $${edge.from} and $${edge.to} are in a cycle`;
    const lines = [first, ...edge.errors.slice(0, 8)];
    return { from: edge.from, to: edge.to, state: edge.state, keys: edge.keys, path, points, curve, label, tooltip: lines.map((line) => tooltip(line)).join("\n") };
  });

  const stepCount = picture.steps.length - picture.missing.length;
  let summary = `Dependency graph: ${plural(stepCount, "step")} in ${plural(picture.levels.length, "level")}`;
  if (picture.stuck.length > 0) summary += `, ${plural(picture.stuck.length, "step")} that never run`;
  if (picture.missing.length > 0) summary += `, ${plural(picture.missing.length, "missing step")}`;
  if (picture.errorCount > 0) summary += `, ${plural(picture.errorCount, "lint error")}`;
  const note = noteText === undefined ? undefined : place(noteText, Math.max(G.boxWidth, width - 2 * G.padding), G.titleFont + 1, G.padding, G.padding + 12, "start");
  const noteTooltip = [...picture.planErrors.slice(0, 8)].map((line) => tooltip(line)).join("\n");
  return { width: r(width), height: r(height), picture, columns, boxes, edges, note, noteTooltip, summary };
}

function r(value: number): number {
  return Math.round(value * 100) / 100;
}
