/// <reference lib="dom" />
/**
 * Plan pictures as a browser draws them: each SVG is rendered in headless Chromium (the system's, else
 * @sparticuz/chromium's; test/helpers/browser.ts), and the page measures what is on screen — every
 * label's box (`getBBox`, with the fonts Chromium has), every step's rectangle, and the ink of every
 * arrow (its path sampled every 2 pixels with `getPointAtLength`, widened by half its stroke, and its head).
 * No label may cover another label, a box, or an arrow it does not belong to: on the example plans,
 * on a 200-step plan and on random plans of up to 50 steps. Screenshots go to test-artifacts/.
 */
import { mkdirSync } from "node:fs";
import fc from "fast-check";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { planToSvg, type DrawPlanOptions } from "../../src/draw/index.js";
import type { ToolCatalog } from "../../src/plan/plan.js";
import { chromiumLaunch } from "../helpers/browser.js";
import { arrowHeadRect, labelCollisions, type PictureShapes, type Rect } from "./checks.js";
import { generatedPlan, readJson } from "./fixtures.js";
import { planArbitrary } from "./plan-arbitrary.js";

const ARTIFACTS = new URL("../../test-artifacts/", import.meta.url);

let browser: Browser | undefined;
let page: Page;

/** What the page measured, as plain numbers (a label's box, a rectangle, an arrow's sampled points). */
interface Measured {
  readonly width: number;
  readonly shown: number;
  readonly labels: { name: string; owner: string | undefined; rect: Rect }[];
  readonly boxes: { name: string; rect: Rect }[];
  readonly arrows: { owner: string; half: number; points: number[]; head: [number, number] | undefined }[];
}

/** Render `svg` alone on the page and measure it there. */
async function measure(svg: string): Promise<Measured> {
  await page.setContent(`<!doctype html><html><body style="margin:0">${svg}</body></html>`);
  return page.evaluate(() => {
    const rect = (element: SVGGraphicsElement) => {
      const b = element.getBBox();
      return { x: b.x, y: b.y, width: b.width, height: b.height };
    };
    const root = document.querySelector("svg")!;
    const labels: { name: string; owner: string | undefined; rect: { x: number; y: number; width: number; height: number } }[] = [];
    const boxes: { name: string; rect: { x: number; y: number; width: number; height: number } }[] = [];
    const arrows: { owner: string; half: number; points: number[]; head: [number, number] | undefined }[] = [];
    for (const group of Array.from(document.querySelectorAll<SVGGElement>(".plan-refs-step, .plan-refs-missing")))
      boxes.push({ name: `box ${group.dataset["step"]}`, rect: rect(group.querySelector("rect")!) });
    for (const text of Array.from(document.querySelectorAll<SVGTextElement>(".plan-refs-level, .plan-refs-note text")))
      labels.push({ name: `title "${text.textContent}"`, owner: undefined, rect: rect(text) });
    for (const group of Array.from(document.querySelectorAll<SVGGElement>(".plan-refs-edge"))) {
      const owner = `${group.dataset["from"]}>${group.dataset["to"]}`;
      const path = group.querySelector("path")!;
      const length = path.getTotalLength();
      const points: number[] = [];
      for (let at = 0; at < length; at += 2) {
        const point = path.getPointAtLength(at);
        points.push(point.x, point.y);
      }
      const end = path.getPointAtLength(length);
      points.push(end.x, end.y);
      // The head points along the last pixel of the line; every line of a plan picture ends going right.
      const before = path.getPointAtLength(Math.max(0, length - 1));
      const head: [number, number] | undefined =
        path.getAttribute("marker-end") === null ? undefined : end.x > before.x ? [end.x, end.y] : undefined;
      arrows.push({ owner, half: Number(path.getAttribute("stroke-width")) / 2, points, head });
      const text = group.querySelector("text");
      if (text !== null) labels.push({ name: `label ${owner} "${text.textContent}"`, owner, rect: rect(text) });
    }
    return { width: Number(root.getAttribute("width")), shown: root.getBoundingClientRect().width, labels, boxes, arrows };
  });
}

/** The measured shapes as the collision check reads them: each sampled point a square of the stroke's width. */
function shapesOf(measured: Measured): PictureShapes {
  const ink: { owner: string; rect: Rect }[] = [];
  for (const arrow of measured.arrows) {
    for (let i = 0; i < arrow.points.length; i += 2)
      ink.push({
        owner: arrow.owner,
        rect: { x: arrow.points[i]! - arrow.half, y: arrow.points[i + 1]! - arrow.half, width: 2 * arrow.half, height: 2 * arrow.half },
      });
    if (arrow.head === undefined) throw new Error(`the arrow ${arrow.owner} does not end going right`);
    ink.push({ owner: arrow.owner, rect: arrowHeadRect(arrow.head[0], arrow.head[1]) });
  }
  return { labels: measured.labels, boxes: measured.boxes, ink };
}

/** Collisions of the labels of `svg` as Chromium draws it; the picture at its natural size. */
async function collisions(svg: string): Promise<string[]> {
  const measured = await measure(svg);
  expect(measured.shown).toBeCloseTo(measured.width, 0);
  return labelCollisions(shapesOf(measured));
}

const catalog = (path: string): DrawPlanOptions => ({ catalog: readJson(path) as ToolCatalog });

const EXAMPLES: [string, unknown, DrawPlanOptions][] = [
  ["trip", readJson("examples/trip/plan.json"), catalog("examples/trip/tools.json")],
  ["mistakes", readJson("examples/lint/mistakes.plan.json"), catalog("examples/lint/tools.json")],
  ["mistakes without a catalog", readJson("examples/lint/mistakes.plan.json"), {}],
  ["clean", readJson("examples/lint/clean.plan.json"), catalog("examples/lint/tools.json")],
  ["mcp", readJson("examples/mcp/plan.json"), {}],
  ["200 steps", generatedPlan(200, 1), {}],
  ["200 steps, 4 rows", generatedPlan(200, 2), { maxRows: 4 }],
];

describe("plan pictures in Chromium", { timeout: 180_000 }, () => {
  beforeAll(async () => {
    const { executablePath, args } = await chromiumLaunch();
    browser = await chromium.launch({ executablePath, args, timeout: 120_000 });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(60_000);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  test.each(EXAMPLES)("%s: no label on another label, a box or an arrow it does not belong to", async (name, plan, options) => {
    expect(await collisions(planToSvg(plan, options))).toEqual([]);
    if (name === "trip" || name === "mistakes") {
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: new URL(`plan-${name}.png`, ARTIFACTS).pathname, fullPage: true });
    }
  });

  test("the measurement finds a label moved onto a box, or onto another arrow and its label", async () => {
    const svg = planToSvg(readJson("examples/trip/plan.json"), catalog("examples/trip/tools.json"));
    const moveLabel = (from: number, to: number, dx: number, dy: number): string => {
      const pattern = new RegExp(
        `(<g class="plan-refs-edge[^"]*" data-from="${from}" data-to="${to}">(?:(?!</g>).)*<text x=")([\\d.]+)(" y=")([\\d.]+)`,
        "s",
      );
      const moved = svg.replace(
        pattern,
        (_all, head: string, x: string, middle: string, y: string) => `${head}${Number(x) + dx}${middle}${Number(y) + dy}`,
      );
      expect(moved).not.toBe(svg);
      return moved;
    };
    expect(await collisions(moveLabel(1, 2, 40, 0))).toContain('label 1>2 "lat, lon" / box 2');
    const down = await collisions(moveLabel(2, 4, 0, 20));
    expect(down).toContain('label 2>4 "days[0].summary, days[0].highC, days[1].summary" / arrow 1>4');
    expect(down).toContain('label 1>4 "name, country, timezone" / label 2>4 "days[0].summary, days[0].highC, days[1].summary"');
  });

  test("property: random plans of up to 50 steps, no label on another label, a box or a foreign arrow", async () => {
    await fc.assert(
      fc.asyncProperty(planArbitrary(50), fc.integer({ min: 1, max: 8 }), async (plan, maxRows) => {
        expect(await collisions(planToSvg(plan, { maxRows }))).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });
});
