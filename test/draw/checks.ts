/**
 * Checks shared by the draw tests: the geometry of a plan's picture is readable (boxes apart, labels
 * inside their boxes, arrows clear of every box), Mermaid and DOT texts are well-formed, and an SVG is
 * inert (known elements only, no handler, no reference outside the document).
 */
import { expect } from "vitest";
import type { layoutPlan } from "../../src/draw/index.js";
import { allElements, deepText, parseXml, type XmlElement } from "./xml.js";

/** The geometry is readable: boxes apart, labels inside their boxes, arrows clear of every box. */
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
      const [start, end] = [edge.points[0]!, edge.points[1]!];
      // A cubic with control points inside [x1, x2] stays inside it: no column of boxes may start there.
      for (const x of columnsX) if (x > start.x && x < end.x) throw new Error(`curve ${edge.from}>${edge.to} crosses the column at ${x}`);
      expect(start.x).toBeLessThan(end.x);
    } else {
      for (let k = 0; k + 1 < edge.points.length; k++) segments.push([edge.points[k]!.x, edge.points[k]!.y, edge.points[k + 1]!.x, edge.points[k + 1]!.y]);
    }
    for (const [x1, y1, x2, y2] of segments) {
      for (const box of boxes) {
        const inside = Math.max(x1, x2) > box.x + 0.01 && Math.min(x1, x2) < box.x + box.width - 0.01 && Math.max(y1, y2) > box.y + 0.01 && Math.min(y1, y2) < box.y + box.height - 0.01;
        if (inside) throw new Error(`arrow ${edge.from}>${edge.to} crosses box ${box.id}`);
      }
    }
    if (edge.label !== undefined) {
      for (const box of boxes) {
        const l = edge.label.box;
        const apart = l.x + l.width <= box.x || box.x + box.width <= l.x || l.y + l.height <= box.y || box.y + box.height <= l.y;
        if (!apart) throw new Error(`the label of ${edge.from}>${edge.to} covers box ${box.id}`);
      }
    }
  }
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
