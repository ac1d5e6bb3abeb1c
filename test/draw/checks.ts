/**
 * Checks shared by the draw tests: the geometry of a plan's picture is readable (boxes apart, labels
 * inside their boxes, arrows clear of every box, no arrow label on another label, a box or an arrow it
 * does not belong to), Mermaid and DOT texts are well-formed, and an SVG is inert (known elements only,
 * no handler, no reference outside the document).
 */
import { expect } from "vitest";
import { PLAN_GEOMETRY, type layoutPlan } from "../../src/draw/index.js";
import { allElements, deepText, parseXml, type XmlElement } from "./xml.js";

/** A rectangle in the picture's coordinates. */
export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/**
 * What a label may collide with, from the layout or as a browser measured it: labels (each owned by an
 * arrow, or by nothing), boxes, and the pieces of ink of every arrow (its line's segments or samples,
 * widened by half the stroke, and its head), each piece owned by its arrow.
 */
export interface PictureShapes {
  readonly labels: readonly { readonly name: string; readonly owner: string | undefined; readonly rect: Rect }[];
  readonly boxes: readonly { readonly name: string; readonly rect: Rect }[];
  readonly ink: readonly { readonly owner: string; readonly rect: Rect }[];
}

const overlap = (a: Rect, b: Rect, tolerance: number): boolean =>
  a.x + a.width > b.x + tolerance &&
  b.x + b.width > a.x + tolerance &&
  a.y + a.height > b.y + tolerance &&
  b.y + b.height > a.y + tolerance;

/**
 * Every collision of a label with another label, a box, or the ink of an arrow it does not belong to,
 * as "label / what" lines (overlaps of at most `tolerance` pixels do not count). Shapes are bucketed
 * on a grid, so a picture of thousands of arrows is checked in one pass.
 */
export function labelCollisions(shapes: PictureShapes, tolerance = 0.5): string[] {
  const size = 64;
  const grid = new Map<string, number[]>();
  const all: { name: string; owner: string | undefined; rect: Rect; kind: "label" | "box" | "ink" }[] = [
    ...shapes.labels.map((label) => ({ ...label, kind: "label" as const })),
    ...shapes.boxes.map((box) => ({ ...box, owner: undefined, kind: "box" as const })),
    ...shapes.ink.map((ink) => ({ name: `arrow ${ink.owner}`, owner: ink.owner, rect: ink.rect, kind: "ink" as const })),
  ];
  const cells = (rect: Rect, visit: (key: string) => void): void => {
    for (let cx = Math.floor(rect.x / size); cx <= Math.floor((rect.x + rect.width) / size); cx++)
      for (let cy = Math.floor(rect.y / size); cy <= Math.floor((rect.y + rect.height) / size); cy++) visit(`${cx},${cy}`);
  };
  all.forEach((shape, i) =>
    cells(shape.rect, (key) => {
      const list = grid.get(key);
      if (list === undefined) grid.set(key, [i]);
      else list.push(i);
    }),
  );
  const found = new Set<string>();
  all.forEach((label, i) => {
    if (label.kind !== "label") return;
    cells(label.rect, (key) => {
      for (const j of grid.get(key) ?? []) {
        const other = all[j]!;
        if (j === i || (other.kind === "label" && j < i)) continue;
        if (other.kind === "ink" && other.owner === label.owner) continue;
        if (overlap(label.rect, other.rect, tolerance)) found.add(`${label.name} / ${other.name}`);
      }
    });
  });
  return [...found].sort();
}

/** The arrow head at the end of a line that arrives going right at (x, y): `PLAN_GEOMETRY.arrowHead` pixels, its tip 0.1 head beyond the end. */
export function arrowHeadRect(x: number, y: number): Rect {
  const size = PLAN_GEOMETRY.arrowHead;
  return { x: x - 0.9 * size, y: y - size / 2, width: size, height: size };
}

/** The shapes of a layout, from its geometry alone: arrow segments widened by a stroke's half width (1), a curve as its bounding box. */
export function layoutShapes(layout: ReturnType<typeof layoutPlan>): PictureShapes {
  const ink: { owner: string; rect: Rect }[] = [];
  const labels: { name: string; owner: string | undefined; rect: Rect }[] = [];
  const widen = (a: { x: number; y: number }, b: { x: number; y: number }): Rect => ({
    x: Math.min(a.x, b.x) - 1,
    y: Math.min(a.y, b.y) - 1,
    width: Math.abs(a.x - b.x) + 2,
    height: Math.abs(a.y - b.y) + 2,
  });
  for (const edge of layout.edges) {
    const owner = `${edge.from}>${edge.to}`;
    // A cubic whose control points lie inside its ends' box stays inside that box.
    for (let k = 0; k + 1 < edge.points.length; k++) ink.push({ owner, rect: widen(edge.points[k]!, edge.points[k + 1]!) });
    const end = edge.points[edge.points.length - 1]!;
    ink.push({ owner, rect: arrowHeadRect(end.x, end.y) });
    if (edge.label !== undefined) labels.push({ name: `label ${owner} "${edge.label.text}"`, owner, rect: edge.label.box });
  }
  for (const column of layout.columns) labels.push({ name: `title "${column.title.text}"`, owner: undefined, rect: column.title.box });
  if (layout.note !== undefined) labels.push({ name: `note "${layout.note.text}"`, owner: undefined, rect: layout.note.box });
  return { labels, boxes: layout.boxes.map((box) => ({ name: `box ${box.id}`, rect: box })), ink };
}

/** The geometry is readable: boxes apart, labels inside their boxes, arrows clear of every box, no label on another label, a box or a foreign arrow. */
export function expectReadable(layout: ReturnType<typeof layoutPlan>): void {
  const boxes = layout.boxes;
  // Boxes sit on a grid: sorting by position finds any overlap between neighbours in one pass per column.
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!;
      const b = boxes[j]!;
      const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
      if (!apart) throw new Error(`boxes ${a.id} and ${b.id} overlap`);
    }
  }
  for (const box of boxes) {
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(layout.height);
    expect(box.x + box.width).toBeLessThanOrEqual(layout.width);
    for (const label of [box.idLabel, box.toolLabel]) {
      expect(label.box.x).toBeGreaterThanOrEqual(box.x);
      expect(label.box.x + label.box.width).toBeLessThanOrEqual(box.x + box.width);
      expect(label.box.y).toBeGreaterThanOrEqual(box.y);
      expect(label.box.y + label.box.height).toBeLessThanOrEqual(box.y + box.height);
    }
  }
  // Arrows: an orthogonal route's segments and a curve's extent stay out of every box's interior.
  const columnsX = [...new Set(boxes.map((box) => box.x))];
  for (const edge of layout.edges) {
    const segments: [number, number, number, number][] = [];
    if (edge.curve) {
      const [start, end] = [edge.points[0]!, edge.points[edge.points.length - 1]!];
      // A cubic with control points inside [x1, x2] stays inside it: no column of boxes may start there.
      for (const x of columnsX) if (x > start.x && x < end.x) throw new Error(`curve ${edge.from}>${edge.to} crosses the column at ${x}`);
      expect(start.x).toBeLessThan(end.x);
      // Its straight end, into the target.
      segments.push([edge.points[1]!.x, edge.points[1]!.y, end.x, end.y]);
    } else {
      for (let k = 0; k + 1 < edge.points.length; k++)
        segments.push([edge.points[k]!.x, edge.points[k]!.y, edge.points[k + 1]!.x, edge.points[k + 1]!.y]);
    }
    for (const [x1, y1, x2, y2] of segments) {
      for (const box of boxes) {
        const inside =
          Math.max(x1, x2) > box.x + 0.01 &&
          Math.min(x1, x2) < box.x + box.width - 0.01 &&
          Math.max(y1, y2) > box.y + 0.01 &&
          Math.min(y1, y2) < box.y + box.height - 0.01;
        if (inside) throw new Error(`arrow ${edge.from}>${edge.to} crosses box ${box.id}`);
      }
    }
  }
  expect(labelCollisions(layoutShapes(layout))).toEqual([]);
}

/** A Mermaid flowchart's structure: header, subgraph/end balanced, quoted strings closed and free of raw quotes. */
export function checkMermaidFlowchart(text: string): void {
  const lines = text.trimEnd().split("\n");
  expect(lines[0]).toBe("flowchart LR");
  let depth = 0;
  for (const line of lines.slice(1)) {
    const trimmed = line.trim();
    if (trimmed.startsWith("subgraph ")) depth++;
    if (trimmed === "end") depth--;
    expect(depth).toBeGreaterThanOrEqual(0);
    // Quotes pair up on every line, and nothing between them could end the string or start markup.
    const quotes = [...line.matchAll(/"/g)].length;
    expect(quotes % 2, line).toBe(0);
    for (const [, inside] of line.matchAll(/"([^"]*)"/g)) expect(inside!.replace(/<br\/>/g, "")).toMatch(/^[A-Za-z0-9 _.,$()[\]/#;-]*$/);
  }
  expect(depth).toBe(0);
}

/** A DOT graph's structure: strings closed (with escapes), braces and brackets balanced outside strings. */
export function checkDot(text: string): void {
  expect(text.startsWith("digraph plan {")).toBe(true);
  const stack: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === "\\") i++;
        if (text[i] === "\n") throw new Error("a raw newline inside a DOT string");
        i++;
      }
      if (i >= text.length) throw new Error("an unclosed DOT string");
      continue;
    }
    if (c === "{" || c === "[") stack.push(c);
    if (c === "}" && stack.pop() !== "{") throw new Error(`unbalanced } at ${i}`);
    if (c === "]" && stack.pop() !== "[") throw new Error(`unbalanced ] at ${i}`);
  }
  expect(stack).toEqual([]);
}

/** Every element the SVG may hold: anything else (a script, a foreignObject, an image) fails. */
export const SVG_ELEMENTS = new Set(["svg", "title", "defs", "marker", "path", "rect", "g", "text", "line"]);

/** The SVG is inert: known elements only, no event handler, no reference outside the document. */
export function expectInert(svg: string): XmlElement {
  const root = parseXml(svg);
  for (const element of allElements(root)) {
    expect(SVG_ELEMENTS.has(element.name), element.name).toBe(true);
    for (const [name, value] of Object.entries(element.attributes)) {
      expect(name.toLowerCase().startsWith("on"), name).toBe(false);
      expect(name).not.toMatch(/href$/i);
      if (/url\(/.test(value)) expect(value).toMatch(/^url\(#[A-Za-z0-9-]+\)$/);
    }
  }
  expect(deepText(root)).not.toContain("\u0000");
  return root;
}
