/**
 * The geometry of a plan's picture: one column per execution level, left to right, boxes stacked on a
 * grid; a level with more than `maxRows` steps wraps into more columns side by side, so the picture's
 * height stays bounded and a large plan grows only to the right (it scrolls horizontally).
 *
 * Arrows run in the channels between ranks: the vertical gaps between columns and the horizontal
 * channels between rows, never through a box. The gap left of a column has three zones, left to right:
 * the vertical tracks of arrows leaving the column before it, the tracks of arrows entering this
 * column, and the label zone, where every arrow into the column ends in a straight line with its label
 * just above it. An arrow between neighbouring columns is a curve from its source to the label zone;
 * any other (skipping levels, within a wrapped level, back along a cycle) leaves on a track, runs along
 * a channel between two rows and comes in on a track. Each arrow into a box has its own slot on the
 * box's left side, one label's height apart, and nothing but these lines enters a label zone, so no
 * label covers another label, a box or an arrow it does not belong to. Gaps and channels are as wide
 * as their tracks and labels need; a label is cut (`…`, the full text in the arrow's tooltip) only
 * when it is wider than `PLAN_GEOMETRY.edgeLabelWidth`. Every step is linear in the number of arrows
 * (sorting aside), with at most `PLAN_GEOMETRY.maxTracks` tracks in a zone or channel.
 */
import { fitText, LONGEST_LABEL, textWidth, tooltip } from "./text.js";
import {
  OUTPUT_NODE,
  planPicture,
  pushTo,
  readDrawOptions,
  type DrawPlanOptions,
  type EdgeState,
  type PictureStep,
  type PlanPicture,
} from "./plan-model.js";

/** The font size of arrow labels (in PLAN_GEOMETRY). */
const EDGE_FONT = 10;

/**
 * Box, gap and label sizes, in pixels.
 *
 * @example
 * PLAN_GEOMETRY.edgeLabelWidth // 297.6: LONGEST_LABEL (48) characters at 10 px; a wider label is cut
 */
export const PLAN_GEOMETRY = Object.freeze({
  boxWidth: 176,
  /** The least height of a box; a box with many arrows coming in is as tall as their labels need. */
  boxHeight: 52,
  /** The narrowest gap between two columns. */
  columnGap: 64,
  /** The lowest channel between two rows. */
  rowGap: 28,
  padding: 16,
  header: 26,
  idFont: 14,
  toolFont: 12,
  titleFont: 11,
  edgeFont: EDGE_FONT,
  /** Text inset from a box's left and right edges. */
  inset: 12,
  /** The widest label of an arrow (`LONGEST_LABEL` characters); a wider one is cut, its full text in the arrow's tooltip. */
  edgeLabelWidth: textWidth("k".repeat(LONGEST_LABEL), EDGE_FONT),
  /** The distance between two arrows coming into one box: a label's height and the room around it. */
  labelPitch: 16,
  /** The distance between two vertical tracks in a gap, and between two tracks of a channel. */
  trackPitch: 6,
  channelPitch: 5,
  /** Most tracks in a gap's zone or a channel; more arrows share tracks (lines may then lie on each other, never on a label). */
  maxTracks: 24,
  /** The arrow head's length and width (fixed, whatever the line's width). */
  arrowHead: 8,
  /** The least width of a gap's track zone (room for a curve). */
  minRoute: 40,
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
  /** The points the path goes through (a curve's start, where it meets its straight end, and the end; every corner of an orthogonal route). */
  readonly points: readonly { readonly x: number; readonly y: number }[];
  readonly curve: boolean;
  /** The keys read, just above the arrow's last straight line (cut only past `PLAN_GEOMETRY.edgeLabelWidth`); always there on a layout of this version. */
  readonly label: PlacedLabel | undefined;
  readonly tooltip: string;
}

/** A column heading ("level 1", "never runs", "missing", "earlier plans"). */
export interface LayoutColumn {
  readonly kind: "level" | "stuck" | "missing" | "earlier" | "output";
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

/**
 * How far a text's box reaches above and below its baseline, as fractions of the font size: a little
 * more than the monospace fonts of FONT_FAMILY (DejaVu Sans Mono 0.93 and 0.24), as a browser's
 * `getBBox` measures them.
 */
const TEXT_ASCENT = 0.95;
const TEXT_DESCENT = 0.25;

function place(text: string, maxWidth: number, fontSize: number, x: number, y: number, anchor: PlacedLabel["anchor"]): PlacedLabel {
  return placeFitted(fitText(text, maxWidth, fontSize), fontSize, x, y, anchor);
}

function placeFitted(
  fitted: ReturnType<typeof fitText>,
  fontSize: number,
  x: number,
  y: number,
  anchor: PlacedLabel["anchor"],
): PlacedLabel {
  const left = anchor === "start" ? x : anchor === "end" ? x - fitted.width : x - fitted.width / 2;
  return {
    text: fitted.text,
    cut: fitted.cut,
    fontSize,
    x,
    y,
    anchor,
    box: { x: left, y: y - fontSize * TEXT_ASCENT, width: fitted.width, height: fontSize * (TEXT_ASCENT + TEXT_DESCENT) },
  };
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
  // Keyed by id alone: a missing step's id is, by definition, no step's id.
  const stepOf = new Map(picture.steps.map((step) => [step.id, step]));

  interface Group {
    readonly title: string;
    readonly kind: LayoutColumn["kind"];
    readonly keys: readonly number[];
  }
  const groups: Group[] = [];
  // The earlier plans' steps are the plan's inputs: a column of their own, before everything.
  if (picture.earlier.length > 0) groups.push({ title: "earlier plans", kind: "earlier", keys: picture.earlier });
  if (picture.missing.length > 0) groups.push({ title: "missing", kind: "missing", keys: picture.missing });
  picture.levels.forEach((ids, i) => groups.push({ title: `level ${i + 1}`, kind: "level", keys: ids }));
  if (picture.output) groups.push({ title: "output", kind: "output", keys: [OUTPUT_NODE] });
  if (picture.stuck.length > 0) groups.push({ title: "never runs", kind: "stuck", keys: picture.stuck });

  // Grid columns: each group cut into columns of at most maxRows boxes.
  const gridColumns: { group: Group; keys: readonly number[]; part: number }[] = [];
  for (const group of groups) {
    for (let start = 0, part = 0; start < group.keys.length; start += maxRows, part++)
      gridColumns.push({ group, keys: group.keys.slice(start, start + maxRows), part });
  }
  const columnCount = gridColumns.length;
  const rows = Math.max(1, ...gridColumns.map((column) => column.keys.length));
  const cell = new Map<number, { column: number; row: number }>();
  gridColumns.forEach((column, c) => {
    // Shorter columns are centred by whole rows, so the channels between rows stay free in every column.
    const offset = Math.floor((rows - column.keys.length) / 2);
    column.keys.forEach((key, r) => cell.set(key, { column: c, row: offset + r }));
  });

  // The routes, before any pixel: which arrows are curves, which channel the others take.
  interface Route {
    readonly edge: PlanPicture["edges"][number];
    readonly source: { column: number; row: number };
    readonly target: { column: number; row: number };
    readonly curve: boolean;
    /** The channel a routed arrow runs along: channel k lies below row k-1 and above row k. */
    readonly channel: number;
    readonly text: ReturnType<typeof fitText>;
    inSlot: number;
    outSlot: number;
    track: number;
    outTrack: number;
    inTrack: number;
    y1: number;
    y2: number;
    yChannel: number;
  }
  const routes: Route[] = [];
  for (const edge of picture.edges) {
    const source = cell.get(edge.from);
    const target = cell.get(edge.to);
    if (source === undefined || target === undefined) continue;
    const curve = target.column === source.column + 1;
    // Down to a lower row: the channel just above the target; otherwise the one just below the source.
    // So a routed arrow always leaves its source downwards, and two arrows of one cycle never share a channel.
    const channel = curve ? 0 : target.row > source.row ? target.row : source.row + 1;
    const text = fitText(edge.keys.join(", "), G.edgeLabelWidth, G.edgeFont);
    routes.push({
      edge,
      source,
      target,
      curve,
      channel,
      text,
      inSlot: 0,
      outSlot: 0,
      track: 0,
      outTrack: 0,
      inTrack: 0,
      y1: 0,
      y2: 0,
      yChannel: 0,
    });
  }

  // Slots on the boxes' sides, ordered by where each arrow comes from (or goes to), in half rows:
  // row r's middle is 2r+1, channel k is 2k. Arrows that arrive in that order do not cross at the box.
  const incoming = new Map<number, Route[]>();
  const outgoing = new Map<number, Route[]>();
  for (const route of routes) {
    pushTo(incoming, route.edge.to, route);
    pushTo(outgoing, route.edge.from, route);
  }
  const approach = (route: Route): number => (route.curve ? 2 * route.source.row + 1 : 2 * route.channel);
  const departure = (route: Route): number => (route.curve ? 2 * route.target.row + 1 : 2 * route.channel);
  for (const list of incoming.values())
    list
      .sort((a, b) => approach(a) - approach(b) || a.source.column - b.source.column || a.edge.from - b.edge.from)
      .forEach((route, i) => (route.inSlot = i));
  for (const list of outgoing.values())
    list
      .sort((a, b) => departure(a) - departure(b) || a.target.column - b.target.column || a.edge.to - b.edge.to)
      .forEach((route, i) => (route.outSlot = i));

  // Rows: as tall as the most arrows coming into one of their boxes need (one label pitch each).
  const rowHeight = new Array<number>(rows).fill(G.boxHeight);
  for (const [key, list] of incoming) {
    const row = cell.get(key)!.row;
    rowHeight[row] = Math.max(rowHeight[row]!, G.labelPitch * list.length + 4);
  }
  // Channel tracks: greedy interval colouring over the gaps each routed arrow spans (gap g lies left
  // of column g), in the order the arrows start; tracks beyond maxTracks are shared.
  const channelRoutes = new Map<number, Route[]>();
  for (const route of routes) if (!route.curve) pushTo(channelRoutes, route.channel, route);
  const channelTracks = new Array<number>(rows + 1).fill(1);
  const span = (route: Route): [number, number] => {
    const out = route.source.column + 1;
    const into = route.target.column;
    return out <= into ? [out, into] : [into, out];
  };
  for (const [channel, list] of channelRoutes) {
    list.sort((a, b) => span(a)[0] - span(b)[0] || span(a)[1] - span(b)[1]);
    const ends: number[] = [];
    for (const route of list) {
      const [low, high] = span(route);
      let track = ends.findIndex((end) => end < low);
      if (track < 0 && ends.length < G.maxTracks) track = ends.length;
      if (track < 0) track = ends.indexOf(Math.min(...ends));
      ends[track] = high;
      route.track = track;
    }
    channelTracks[channel] = Math.max(1, ends.length);
  }
  const channelHeight = (k: number): number => Math.max(G.rowGap, 12 + (channelTracks[k]! - 1) * G.channelPitch);

  const noteText =
    picture.errorCount > 0
      ? `${plural(picture.errorCount, "lint error")}${picture.planErrors.length > 0 ? ` (${picture.planErrors.length} about the whole plan)` : ""}`
      : undefined;
  const top = G.padding + G.header + (noteText === undefined ? 0 : 18);
  const rowTop = new Array<number>(rows + 1);
  rowTop[0] = top;
  for (let r = 0; r < rows; r++) rowTop[r + 1] = rowTop[r]! + rowHeight[r]! + channelHeight(r + 1);
  const channelY = (route: Route): number => {
    const k = route.channel;
    const start = rowTop[k - 1]! + rowHeight[k - 1]!;
    return start + (channelHeight(k) - (channelTracks[k]! - 1) * G.channelPitch) / 2 + route.track * G.channelPitch;
  };
  const boxTop = (at: { row: number }): number => rowTop[at.row]!;
  for (const route of routes) {
    const outs = outgoing.get(route.edge.from)!.length;
    const ins = incoming.get(route.edge.to)!.length;
    const sourceHeight = rowHeight[route.source.row]!;
    const targetHeight = rowHeight[route.target.row]!;
    route.y1 = boxTop(route.source) + (sourceHeight * (route.outSlot + 1)) / (outs + 1);
    // The slots' block (first label's top to last line) centred on the box's side.
    const block = G.labelPitch * (ins - 1) + 15;
    route.y2 = boxTop(route.target) + (targetHeight - block) / 2 + 14 + route.inSlot * G.labelPitch;
    if (!route.curve) route.yChannel = channelY(route);
  }

  // Gaps: the tracks of arrows leaving the column before (the longest rightmost), of arrows entering
  // the column after (the longest leftmost), then the label zone. Longer tracks outside shorter ones
  // cross fewer lines.
  const outTracks: Route[][] = Array.from({ length: columnCount + 1 }, () => []);
  const inTracks: Route[][] = Array.from({ length: columnCount + 1 }, () => []);
  const labelWidth = new Array<number>(columnCount + 1).fill(0);
  const curves = new Array<boolean>(columnCount + 1).fill(false);
  for (const route of routes) {
    labelWidth[route.target.column] = Math.max(labelWidth[route.target.column]!, route.text.width);
    if (route.curve) curves[route.target.column] = true;
    else {
      outTracks[route.source.column + 1]!.push(route);
      inTracks[route.target.column]!.push(route);
    }
  }
  const entering = new Set(routes.map((route) => route.target.column));
  const gapWidth: number[] = [];
  const labelZone: number[] = [];
  for (let g = 0; g <= columnCount; g++) {
    const outs = Math.min(G.maxTracks, outTracks[g]!.length);
    const ins = Math.min(G.maxTracks, inTracks[g]!.length);
    outTracks[g]!.sort((a, b) => Math.abs(a.yChannel - a.y1) - Math.abs(b.yChannel - b.y1)).forEach(
      (route, i) => (route.outTrack = i % G.maxTracks),
    );
    inTracks[g]!.sort((a, b) => Math.abs(b.yChannel - b.y2) - Math.abs(a.yChannel - a.y2)).forEach(
      (route, i) => (route.inTrack = i % G.maxTracks),
    );
    const used = outs + ins > 0 || curves[g]! || entering.has(g);
    const route = used ? Math.max(G.minRoute, 10 + (outs + ins) * G.trackPitch + 8) : 0;
    labelZone[g] = entering.has(g) ? labelWidth[g]! + 4 + 12 : 0;
    const between = g > 0 && g < columnCount;
    gapWidth[g] = between ? Math.max(G.columnGap, route + labelZone[g]!) : route + labelZone[g]!;
  }
  const columnLeft = new Array<number>(columnCount + 1);
  for (let c = 0, x = G.padding; c <= columnCount; c++) {
    x += gapWidth[c]!;
    columnLeft[c] = x;
    x += G.boxWidth;
  }
  const columnX = (c: number): number => columnLeft[c]!;
  const gapStart = (g: number): number => (g === 0 ? G.padding : columnX(g - 1) + G.boxWidth);
  const labelStart = (g: number): number => columnX(g) - labelZone[g]!;
  const width = columnCount === 0 ? 240 + 2 * G.padding : columnX(columnCount) + G.padding;
  const height = columnCount === 0 ? top + G.boxHeight + G.padding : rowTop[rows]! + G.padding;

  const columns: LayoutColumn[] = gridColumns.map((column, c) => {
    const title = column.part === 0 ? column.group.title : `${column.group.title} (${column.part + 1})`;
    return {
      kind: column.group.kind,
      x: columnX(c),
      title: place(
        title,
        G.boxWidth,
        G.titleFont,
        columnX(c) + G.boxWidth / 2,
        G.padding + (noteText === undefined ? 0 : 18) + 12,
        "middle",
      ),
    };
  });

  const boxes: LayoutBox[] = [];
  const boxAt = new Map<number, LayoutBox>();
  for (const [key, { column, row }] of cell) {
    const step = stepOf.get(key)!;
    const x = columnX(column);
    const y = rowTop[row]!;
    const inner = G.boxWidth - 2 * G.inset;
    const output = step.kind === "output";
    const toolText = step.kind === "missing" ? "no such step" : output ? "when every step has run" : step.tool;
    // One tooltip line per fact, each made printable on its own (a newline inside a tool name stays escaped).
    const lines = [
      step.kind === "missing"
        ? `Step ${step.id} is referenced but is not in the plan`
        : output
          ? "The plan's output, resolved when every step has run"
          : step.kind === "earlier"
            ? `Step ${step.id}: ${step.tool}, of an earlier plan of the session (its result is an input of this plan)`
            : `Step ${step.id}: ${step.tool}`,
    ];
    if (step.kind === "stuck") lines.push("Never runs: it is in a cycle or depends on a step that is");
    lines.push(...step.errors.slice(0, 8));
    if (step.errors.length > 8) lines.push(`… and ${step.errors.length - 8} more errors`);
    const box: LayoutBox = {
      id: step.id,
      kind: step.kind,
      x,
      y,
      width: G.boxWidth,
      height: rowHeight[row]!,
      column,
      row,
      idLabel: place(output ? "output" : `$${step.id}`, inner, G.idFont, x + G.inset, y + 21, "start"),
      toolLabel: place(toolText, inner, G.toolFont, x + G.inset, y + 39, "start"),
      tooltip: lines.map((line) => tooltip(line)).join("\n"),
      bad: step.kind === "stuck" || step.kind === "missing" || step.errors.length > 0,
    };
    boxes.push(box);
    boxAt.set(key, box);
  }

  const edges: LayoutEdge[] = routes.map((route) => {
    const { edge, y1, y2 } = route;
    const source = boxAt.get(edge.from)!;
    const target = boxAt.get(edge.to)!;
    const x1 = source.x + source.width;
    // The line ends where the arrow head's tip touches the box.
    const x2 = target.x - 2;
    const entry = labelStart(route.target.column);
    let path: string;
    let points: { x: number; y: number }[];
    if (route.curve) {
      const bend = (entry - x1) / 2;
      path = `M ${r(x1)} ${r(y1)} C ${r(x1 + bend)} ${r(y1)}, ${r(entry - bend)} ${r(y2)}, ${r(entry)} ${r(y2)} H ${r(x2)}`;
      points = [
        { x: x1, y: y1 },
        { x: entry, y: y2 },
        { x: x2, y: y2 },
      ];
    } else {
      const outGap = route.source.column + 1;
      const xOut = gapStart(outGap) + 10 + route.outTrack * G.trackPitch;
      const ins = Math.min(G.maxTracks, inTracks[route.target.column]!.length);
      const xIn = entry - 8 - (ins - 1 - route.inTrack) * G.trackPitch;
      const yChannel = route.yChannel;
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
    // Just above the arrow's last straight line, clear of the arrow head.
    const label = placeFitted(route.text, G.edgeFont, x2 - G.arrowHead - 2, y2 - 4, "end");
    let first = `${edge.to === OUTPUT_NODE ? "The output" : `$${edge.to}`} reads ${keys} of $${edge.from}`;
    if (edge.state === "missing") first += `; step ${edge.from} is not in the plan`;
    if (edge.state === "cycle")
      first += edge.from === edge.to ? "; a step cannot use its own result" : `; $${edge.from} and $${edge.to} are in a cycle`;
    const lines = [first, ...edge.errors.slice(0, 8)];
    return {
      from: edge.from,
      to: edge.to,
      state: edge.state,
      keys: edge.keys,
      path,
      points,
      curve: route.curve,
      label,
      tooltip: lines.map((line) => tooltip(line)).join("\n"),
    };
  });

  const stepCount = picture.steps.length - picture.missing.length - picture.earlier.length - (picture.output ? 1 : 0);
  let summary = `Dependency graph: ${plural(stepCount, "step")} in ${plural(picture.levels.length, "level")}`;
  if (picture.stuck.length > 0) summary += `, ${plural(picture.stuck.length, "step")} that never run`;
  if (picture.missing.length > 0) summary += `, ${plural(picture.missing.length, "missing step")}`;
  if (picture.earlier.length > 0) summary += `, ${plural(picture.earlier.length, "step")} of earlier plans as inputs`;
  if (picture.output) summary += ", and the plan's output";
  if (picture.errorCount > 0) summary += `, ${plural(picture.errorCount, "lint error")}`;
  const note =
    noteText === undefined
      ? undefined
      : place(noteText, Math.max(G.boxWidth, width - 2 * G.padding), G.titleFont + 1, G.padding, G.padding + 12, "start");
  const noteTooltip = [...picture.planErrors.slice(0, 8)].map((line) => tooltip(line)).join("\n");
  return { width: r(width), height: r(height), picture, columns, boxes, edges, note, noteTooltip, summary };
}

function r(value: number): number {
  return Math.round(value * 100) / 100;
}
