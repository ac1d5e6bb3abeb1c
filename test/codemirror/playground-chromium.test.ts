/// <reference lib="dom" />
/**
 * End to end in real headless Chromium, driven by playwright-core: the system's Chromium when there is
 * one (Debian's /usr/bin/chromium first), else the one the dev dependency @sparticuz/chromium ships, so
 * `npm ci` is all the test needs (see test/helpers/browser.ts). The playground is built with Vite's JS
 * API, served from 127.0.0.1, and used through the keyboard like a person would.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, resolve, sep } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { EditorView } from "@codemirror/view";
import { lintPlanText } from "../../src/lint/index.js";
import { planGraph } from "../../src/plan/index.js";
import { browserRuns, chooseSystemChromium, chromiumLaunch, SYSTEM_CHROMIUM_PATHS } from "../helpers/browser.js";
import { tempFolder } from "../helpers/temp.js";
import { drawFixtures, generatedPlan } from "../draw/fixtures.js";

const ROOT = resolve(import.meta.dirname, "../..");
const ARTIFACTS = join(ROOT, "test-artifacts");
const PLAN_TEXT = readFileSync(join(ROOT, "examples/trip/plan.json"), "utf8");
const PLAN = JSON.parse(PLAN_TEXT) as { steps: { id: number; tool: string; args: Record<string, unknown> }[] };
const TOOLS = JSON.parse(readFileSync(join(ROOT, "examples/trip/tools.json"), "utf8")) as Record<string, { description?: string }>;
const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".svg": "image/svg+xml",
};

declare global {
  // The hook main.ts leaves on the page (read inside page.evaluate only).
  var playground: { plan: EditorView; tools: EditorView; results: EditorView } | undefined;
}

let outDir = "";
let server: Server | undefined;
let browser: Browser | undefined;
let page: Page;
let origin = "";
let picturePage: Page | undefined;
let drawn: Promise<{ trip: string; large: string; run: string }> | undefined;
/** The three pictures of test/draw/fixtures.ts, drawn once. */
const fixtures = (): Promise<{ trip: string; large: string; run: string }> => (drawn ??= drawFixtures());
const consoleErrors: string[] = [];
const foreignRequests: string[] = [];

/** Serve the built files, and nothing outside them. */
function serve(dir: string): Promise<Server> {
  const httpServer = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://localhost").pathname);
    const file = resolve(dir, `.${path.endsWith("/") ? `${path}index.html` : path}`);
    if (!file.startsWith(dir + sep) || !existsSync(file)) {
      response.writeHead(404).end("not found");
      return;
    }
    response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  });
  return new Promise((done) => httpServer.listen(0, "127.0.0.1", () => done(httpServer)));
}

/** Select the inside of the first JSON string in the plan editor whose text is `content`, and focus the editor. */
async function selectStringContent(content: string): Promise<void> {
  const found = await page.evaluate((quoted) => {
    const view = globalThis.playground!.plan;
    const at = view.state.doc.toString().indexOf(quoted);
    if (at < 0) return false;
    view.dispatch({ selection: { anchor: at + 1, head: at + quoted.length - 1 } });
    view.focus();
    return true;
  }, JSON.stringify(content));
  expect(found, `the plan editor holds the string ${JSON.stringify(content)}`).toBe(true);
}

const planText = (): Promise<string> => page.evaluate(() => globalThis.playground!.plan.state.doc.toString());
const toolsText = (): Promise<string> => page.evaluate(() => globalThis.playground!.tools.state.doc.toString());

describe("which Chromium runs the test", () => {
  const among = (present: readonly string[]) => (path: string) => present.includes(path);

  test("the system's /usr/bin/chromium when it exists, before any other", () => {
    expect(SYSTEM_CHROMIUM_PATHS[0]).toBe("/usr/bin/chromium");
    expect(chooseSystemChromium(SYSTEM_CHROMIUM_PATHS, among(["/usr/bin/chromium-browser", "/usr/bin/chromium"]))).toBe(
      "/usr/bin/chromium",
    );
    expect(chooseSystemChromium(["/fake/a", "/fake/b", "/fake/c"], among(["/fake/c", "/fake/b"]))).toBe("/fake/b");
  });

  test("another system path when only that one exists, none when nothing does (then @sparticuz/chromium's)", () => {
    expect(chooseSystemChromium(SYSTEM_CHROMIUM_PATHS, among(["/usr/bin/chromium-browser"]))).toBe("/usr/bin/chromium-browser");
    expect(chooseSystemChromium(SYSTEM_CHROMIUM_PATHS, among(["/opt/elsewhere/chromium"]))).toBeUndefined();
    expect(chooseSystemChromium([], () => true)).toBeUndefined();
  });

  test("there is always a browser: the system's or the npm package's, whose binary exists", async () => {
    const launch = await chromiumLaunch();
    expect(launch.source).toBe(chooseSystemChromium(SYSTEM_CHROMIUM_PATHS, browserRuns) === undefined ? "@sparticuz/chromium" : "system");
    expect(existsSync(launch.executablePath), launch.executablePath).toBe(true);
    expect(launch.args).toContain("--disable-background-networking");
  }, 120_000);

  describe("a system browser that cannot run counts as none", () => {
    const folder = tempFolder("system-browser");
    /** A file in the system browser's place: its content and mode. */
    const place = (name: string, content: string, mode: number): string => {
      const path = join(folder, name, "chromium");
      mkdirSync(join(folder, name));
      writeFileSync(path, content);
      chmodSync(path, mode);
      return path;
    };
    const notExecutable = place("not-executable", "", 0o644);
    const failsToStart = place("fails-to-start", "#!/bin/sh\nexit 1\n", 0o755);
    const answers = place("answers", "#!/bin/sh\necho Chromium 1.0\n", 0o755);

    test.each([
      ["an empty file that is not executable (a half-removed package)", notExecutable, false],
      ["an executable that exits non-zero", failsToStart, false],
      ["a folder", folder, false],
      ["a path where nothing is", join(folder, "nothing-here"), false],
      ["an executable that answers --version", answers, true],
    ])("%s", (_name, path, runs) => {
      expect(browserRuns(path)).toBe(runs);
    });

    test("the next path in the list is taken, and with none left the packaged one", () => {
      expect(chooseSystemChromium([notExecutable, failsToStart, answers], browserRuns)).toBe(answers);
      expect(chooseSystemChromium([notExecutable, failsToStart], browserRuns)).toBeUndefined();
    });

    test("a non-executable file in the system browser's place: @sparticuz/chromium's browser is launched", async () => {
      const launch = await chromiumLaunch([notExecutable]);
      expect(launch.source).toBe("@sparticuz/chromium");
      expect(launch.executablePath).not.toBe(notExecutable);
      const launched = await chromium.launch({ executablePath: launch.executablePath, args: launch.args, timeout: 120_000 });
      try {
        expect(launched.version()).toMatch(/^\d+\./);
      } finally {
        await launched.close();
      }
    }, 240_000);

    test("a half-written browser where @sparticuz/chromium unpacks (another suite still unpacking) is not the one launched", async () => {
      const shared = join(folder, "shared-temp");
      mkdirSync(shared);
      writeFileSync(join(shared, "chromium"), "\x7fELF half of a browser");
      chmodSync(join(shared, "chromium"), 0o700);
      const before = process.env["TMPDIR"];
      process.env["TMPDIR"] = shared;
      try {
        const launch = await chromiumLaunch([]);
        expect(launch.executablePath).not.toBe(join(shared, "chromium"));
        const launched = await chromium.launch({ executablePath: launch.executablePath, args: launch.args, timeout: 120_000 });
        await launched.close();
      } finally {
        if (before === undefined) delete process.env["TMPDIR"];
        else process.env["TMPDIR"] = before;
      }
    }, 600_000);
  });
});

describe("playground in Chromium", { timeout: 120_000 }, () => {
  beforeAll(async () => {
    outDir = mkdtempSync(join(tmpdir(), "plan-refs-playground-"));
    await build({ configFile: join(ROOT, "examples/playground/vite.config.ts"), logLevel: "error", build: { outDir, emptyOutDir: true } });
    server = await serve(outDir);
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { executablePath, args } = await chromiumLaunch();
    browser = await chromium.launch({ executablePath, args, timeout: 120_000 });
    page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    // Generous waits for a loaded machine; nothing asserts how long anything took.
    page.setDefaultTimeout(45_000);
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => consoleErrors.push(String(error)));
    page.on("request", (request) => {
      const url = request.url();
      if (!url.startsWith(`${origin}/`) && !url.startsWith("data:")) foreignRequests.push(url);
    });
    await page.goto(`${origin}/index.html`, { waitUntil: "load" });
    await page.locator(".plan-view .cm-content").waitFor();
    await page.locator("#graph .plan-refs-step").first().waitFor();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => (server ? server.close(done) : done(undefined)));
    if (outDir !== "") rmSync(outDir, { recursive: true, force: true });
  });

  test("the page loads with no console errors and nothing from the network", async () => {
    expect(await planText()).toBe(PLAN_TEXT);
    expect(consoleErrors).toEqual([]);
    expect(foreignRequests).toEqual([]);
  });

  test("the graph shows one box per step", async () => {
    const ids = await page
      .locator("#graph .plan-refs-step")
      .evaluateAll((boxes) => boxes.map((box) => Number(box.getAttribute("data-step"))));
    expect(ids.sort((a, b) => a - b)).toEqual(PLAN.steps.map((step) => step.id).sort((a, b) => a - b));
    // One arrow per reference between two steps, from the referenced step to the step that uses it.
    const arrows = await page
      .locator("#graph .plan-refs-edge")
      .evaluateAll((paths) => paths.map((path) => `${path.getAttribute("data-from")}>${path.getAttribute("data-to")}`));
    const expected = [...planGraph(PLAN).dependencies].flatMap(([to, froms]) => [...froms].map((from) => `${from}>${to}`));
    expect(expected.length).toBeGreaterThan(0);
    expect(arrows.sort()).toEqual(expected.sort());
    expect(await page.locator("#graph .plan-refs-edge-missing, #graph .plan-refs-edge-error").count()).toBe(0);
  });

  // Every step's box (the group's client rect) inside the part of the graph panel that shows: the
  // panel's client area (no scrollbar) cut to the window. Fitted by default, at the page widths of a
  // laptop, a narrow window and the one-column layout; the toggle gives 1:1, which scrolls.
  const GRAPH_WIDTHS = [1400, 1000, 760] as const;
  /** The steps of the graph panel and which of them lie wholly inside its visible area, after scrolling it into view. */
  const graphVisibility = (): Promise<{
    steps: { id: number; tool: string; inside: boolean }[];
    scrollWidth: number;
    clientWidth: number;
    shown: number;
    natural: number;
  }> =>
    page.locator("#graph").evaluate((box) => {
      // The panel, heading and toggle included, at the top of the window.
      box.closest("section")!.scrollIntoView({ block: "start" });
      const outer = box.getBoundingClientRect();
      const left = Math.max(outer.left + box.clientLeft, 0);
      const top = Math.max(outer.top + box.clientTop, 0);
      const right = Math.min(outer.left + box.clientLeft + box.clientWidth, window.innerWidth);
      const bottom = Math.min(outer.top + box.clientTop + box.clientHeight, window.innerHeight);
      const svg = box.querySelector("svg")!;
      const steps = Array.from(box.querySelectorAll<SVGGElement>(".plan-refs-step")).map((group) => {
        const rect = group.getBoundingClientRect();
        // Half a pixel for subpixel rounding of the scaled picture.
        const inside =
          rect.width > 0 && rect.left >= left - 0.5 && rect.right <= right + 0.5 && rect.top >= top - 0.5 && rect.bottom <= bottom + 0.5;
        return { id: Number(group.dataset["step"]), tool: group.textContent ?? "", inside };
      });
      return {
        steps,
        scrollWidth: box.scrollWidth,
        clientWidth: box.clientWidth,
        shown: svg.getBoundingClientRect().width,
        natural: Number(svg.getAttribute("width")),
      };
    });

  test.each(GRAPH_WIDTHS)("at %i px the fitted graph shows every step of the plan at once, with no horizontal scroll", async (width) => {
    await page.setViewportSize({ width, height: 900 });
    try {
      expect(await page.locator("#graph-scale").getAttribute("aria-pressed")).toBe("false");
      const seen = await graphVisibility();
      expect(seen.steps.map((step) => step.id).sort((a, b) => a - b)).toEqual(PLAN.steps.map((step) => step.id).sort((a, b) => a - b));
      expect(seen.steps.filter((step) => !step.inside).map((step) => step.id)).toEqual([]);
      // The step the plan is for: the last one.
      const last = PLAN.steps[PLAN.steps.length - 1]!;
      expect(seen.steps.find((step) => step.id === last.id)?.tool).toContain(last.tool);
      expect(seen.scrollWidth).toBeLessThanOrEqual(seen.clientWidth);
      expect(seen.shown).toBeLessThanOrEqual(Math.min(seen.natural, seen.clientWidth) + 0.5);
      if (width === 1000) {
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: join(ARTIFACTS, "playground-graph-1000.png") });
        await page.locator("section.graph").screenshot({ path: join(ARTIFACTS, "playground-graph-panel-1000.png") });
      }
    } finally {
      await page.setViewportSize({ width: 1440, height: 1000 });
    }
  });

  test("the 1:1 toggle shows the graph at its natural size, scrolling, and toggles back to fitted", async () => {
    await page.setViewportSize({ width: 1000, height: 900 });
    const toggle = page.locator("#graph-scale");
    try {
      await toggle.click();
      expect(await toggle.getAttribute("aria-pressed")).toBe("true");
      const natural = await graphVisibility();
      expect(natural.shown).toBeCloseTo(natural.natural, 0);
      // At 1,000 px the trip plan is wider than its panel: 1:1 scrolls, and some step is off to the side.
      expect(natural.scrollWidth).toBeGreaterThan(natural.clientWidth);
      expect(natural.steps.some((step) => !step.inside)).toBe(true);
      await toggle.click();
      expect(await toggle.getAttribute("aria-pressed")).toBe("false");
      const fitted = await graphVisibility();
      expect(fitted.steps.filter((step) => !step.inside).map((step) => step.id)).toEqual([]);
      expect(fitted.scrollWidth).toBeLessThanOrEqual(fitted.clientWidth);
    } finally {
      if ((await toggle.getAttribute("aria-pressed")) === "true") await toggle.click();
      await page.setViewportSize({ width: 1440, height: 1000 });
    }
  });

  test("typing $ inside a string opens completion with the step ids, and choosing one inserts it", async () => {
    const last = PLAN.steps[PLAN.steps.length - 1]!;
    const earlier = PLAN.steps.filter((step) => step.id !== last.id).map((step) => String(step.id));
    const [argName, argValue] = Object.entries(last.args).find(([, value]) => typeof value === "string" && value.startsWith("$"))!;
    await selectStringContent(argValue as string);
    await page.keyboard.type("$");
    const list = page.locator(".cm-tooltip-autocomplete");
    await list.waitFor();
    const labels = await list.locator(".cm-completionLabel").allTextContents();
    // Whatever the labels look like ("2" or "$2"), every earlier step is offered.
    const offered = labels.map((label) => label.replace(/^\$/, ""));
    for (const id of earlier) expect(offered).toContain(id);

    const choice = earlier[1] ?? earlier[0]!;
    await list.locator("li", { has: page.locator(".cm-completionLabel", { hasText: new RegExp(`^\\$?${choice}$`) }) }).click();
    await list.waitFor({ state: "detached" });
    const edited = JSON.parse(await planText()) as typeof PLAN;
    expect(edited.steps[edited.steps.length - 1]!.args[argName]).toBe(`$${choice}`);
  });

  test("a reference to a missing step shows a lint marker on exactly its characters", async () => {
    const missing = Math.max(...PLAN.steps.map((step) => step.id)) + 5;
    const current = JSON.parse(await planText()) as typeof PLAN;
    const last = current.steps[current.steps.length - 1]!;
    const [, argValue] = Object.entries(last.args).find(([, value]) => typeof value === "string" && /^\$\d+\.\w/.test(value))!;
    await selectStringContent(argValue as string);
    await page.keyboard.type(`$${missing}.name`);
    await page.keyboard.press("Escape");

    const text = await planText();
    const expected = lintPlanText(text).find((diagnostic) => diagnostic.code === "unknown-step");
    expect(expected?.offset).toBeDefined();
    const expectedText = text.slice(expected!.offset!.start, expected!.offset!.end);
    expect(expectedText).toBe(`$${missing}`);

    const marks = page.locator(".plan-view .cm-lintRange-error.cm-planref-lint-unknown-step");
    await marks.first().waitFor();
    // A mark can be split into several elements by the token highlighting inside it.
    const marked = (await marks.allTextContents()).join("");
    expect(marked).toBe(expectedText);

    await page.locator(`#graph .plan-refs-missing[data-step="${missing}"]`).waitFor();
    expect(await page.locator("#graph .plan-refs-edge-missing").count()).toBe(1);
    expect(await page.locator("#graph .plan-refs-step").count()).toBe(PLAN.steps.length);
    const problems = await page.locator("#problems .problem.error").allTextContents();
    expect(problems.some((problem) => problem.includes(String(missing)))).toBe(true);
  });

  test("hovering a reference shows its step's tool and description", async () => {
    const text = await planText();
    const match = /"\$(\d+)\.(\w+)"/.exec(text);
    expect(match, 'the plan has a string like "$1.key"').not.toBeNull();
    const step = PLAN.steps.find((item) => item.id === Number(match![1]))!;
    // The middle of the key, in page coordinates.
    const at = match!.index + 1 + 1 + match![1]!.length + 1 + 1;
    const point = await page.evaluate((pos) => globalThis.playground!.plan.coordsAtPos(pos), at);
    expect(point).not.toBeNull();
    await page.mouse.move(point!.left + 2, (point!.top + point!.bottom) / 2);
    const hover = page.locator(".cm-tooltip .cm-planref-hover");
    await hover.waitFor();
    const shown = await hover.innerText();
    expect(shown).toContain(step.tool);
    expect(shown).toContain(TOOLS[step.tool]!.description!);
    expect(shown).toContain(`$${match![1]}.${match![2]}`);
    // Markdown is rendered as elements, not shown as markup.
    expect(shown).not.toContain("**");
    await page.mouse.move(1, 1);
    await hover.waitFor({ state: "detached" });
  });

  test("editing the tool catalog re-lints the plan against it", async () => {
    const before = await toolsText();
    // The plan reads `$1.lat`, and step 1 runs geocode, the first tool of the catalog.
    expect(PLAN_TEXT).toContain('"$1.lat"');
    expect(PLAN.steps.find((step) => step.id === 1)?.tool).toBe("geocode");
    expect(await page.locator(".plan-view .cm-planref-lint-unknown-key").count()).toBe(0);

    // Rename geocode's output property `lat` by typing in the catalog editor.
    const found = await page.evaluate(() => {
      const view = globalThis.playground!.tools;
      const doc = view.state.doc.toString();
      const at = doc.indexOf('"lat"', doc.indexOf('"output"'));
      if (at < 0) return false;
      view.dispatch({ selection: { anchor: at + 1, head: at + 4 } });
      view.focus();
      return true;
    });
    expect(found).toBe(true);
    await page.keyboard.type("latitude");
    expect(await toolsText()).not.toBe(before);
    const tools = JSON.parse(await toolsText()) as { geocode: { output: { properties: Record<string, unknown> } } };
    expect(Object.keys(tools.geocode.output.properties)).toContain("latitude");
    expect(Object.keys(tools.geocode.output.properties)).not.toContain("lat");

    const text = await planText();
    const expected = lintPlanText(text, { tools }).filter((diagnostic) => diagnostic.code === "unknown-key");
    expect(expected.length).toBeGreaterThan(0);
    const marks = page.locator(".plan-view .cm-lintRange.cm-planref-lint-unknown-key");
    await marks.first().waitFor();
    expect((await marks.allTextContents()).join("|")).toBe(expected.map((d) => text.slice(d.offset!.start, d.offset!.end)).join("|"));
  });

  test("a reference that fails against the sample results is drawn red in the graph", async () => {
    // Rename the sample result's key that step 2 reads ($1.lat): the arrow 1 → 2 turns red.
    const changed = await page.evaluate(() => {
      const view = globalThis.playground!.results;
      const doc = view.state.doc.toString();
      const at = doc.indexOf('"lat"');
      if (at < 0) return false;
      view.dispatch({ changes: { from: at + 1, to: at + 4, insert: "latitude" } });
      return true;
    });
    expect(changed).toBe(true);
    await page.locator('#graph .plan-refs-edge-error[data-from="1"][data-to="2"]').waitFor();
    await page.locator("#reset").click();
    await page.locator('#graph .plan-refs-edge-error[data-from="1"][data-to="2"]').waitFor({ state: "detached" });
  });

  test("a 200-step plan at 1:1 scrolls in the graph panel at its natural size rather than shrinking; fitted, it takes the panel's width", async () => {
    const text = JSON.stringify(generatedPlan(200, 1), null, 2);
    await page.evaluate((doc) => {
      const view = globalThis.playground!.plan;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: doc } });
    }, text);
    await page.locator('#graph .plan-refs-step[data-step="200"]').waitFor();
    const fitted = await page.locator("#graph").evaluate((box) => ({
      shown: box.querySelector("svg")!.getBoundingClientRect().width,
      scrollWidth: box.scrollWidth,
      clientWidth: box.clientWidth,
    }));
    expect(fitted.shown).toBeCloseTo(fitted.clientWidth, 0);
    expect(fitted.scrollWidth).toBeLessThanOrEqual(fitted.clientWidth);
    await page.locator("#graph-scale").click();
    expect(await page.locator("#graph-scale").getAttribute("aria-pressed")).toBe("true");
    const sizes = await page.locator("#graph").evaluate((box) => {
      const svg = box.querySelector("svg")!;
      return {
        natural: Number(svg.getAttribute("width")),
        shown: svg.getBoundingClientRect().width,
        scrollWidth: box.scrollWidth,
        clientWidth: box.clientWidth,
      };
    });
    expect(sizes.shown).toBeCloseTo(sizes.natural, 0);
    expect(sizes.scrollWidth).toBeGreaterThan(sizes.clientWidth);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "playground-200-steps.png"), fullPage: true });
    await page.locator("#graph-scale").click();
    expect(await page.locator("#graph-scale").getAttribute("aria-pressed")).toBe("false");
    await page.locator("#reset").click();
    await page.locator('#graph .plan-refs-step[data-step="200"]').waitFor({ state: "detached" });
  });

  test.each(["trip", "large", "run"] as const)(
    "drawn %s picture in Chromium: no two boxes overlap, every label inside its box; screenshot",
    async (name) => {
      const svg = (await fixtures())[name];
      // One page for the pictures, kept open (closing a page can end a single-process Chromium).
      const view = (picturePage ??= await browser!.newPage({ viewport: { width: 1280, height: 900 } }));
      {
        await view.setContent(`<!doctype html><html><body style="margin:0">${svg}</body></html>`);
        const found = await view.evaluate(() => {
          type Box = { id: string; x: number; y: number; width: number; height: number };
          const bbox = (element: SVGGraphicsElement, id: string): Box => {
            const b = element.getBBox();
            return { id, x: b.x, y: b.y, width: b.width, height: b.height };
          };
          const root = document.querySelector("svg")!;
          const boxes: Box[] = [];
          const labels: { box: Box; inside: Box }[] = [];
          const rowLabels: Box[] = [];
          for (const group of Array.from(document.querySelectorAll<SVGGElement>(".plan-refs-step, .plan-refs-missing"))) {
            const rect = group.querySelector("rect")!;
            const box = bbox(rect, `step ${group.dataset["step"]}`);
            boxes.push(box);
            for (const text of Array.from(group.querySelectorAll("text")))
              labels.push({ box: bbox(text, `${box.id}: ${text.textContent}`), inside: box });
          }
          for (const group of Array.from(document.querySelectorAll<SVGGElement>(".plan-refs-bar")))
            boxes.push(bbox(group.querySelector("rect")!, `bar ${group.dataset["step"]}`));
          for (const text of Array.from(document.querySelectorAll<SVGTextElement>(".plan-refs-row-label")))
            rowLabels.push(bbox(text, `row label ${text.dataset["step"]}: ${text.textContent}`));
          return {
            kind: root.getAttribute("class"),
            width: Number(root.getAttribute("width")),
            height: Number(root.getAttribute("height")),
            shown: root.getBoundingClientRect().width,
            boxes,
            labels,
            rowLabels,
          };
        });
        // Rendered at its natural size, never scaled down.
        expect(found.shown).toBeCloseTo(found.width, 0);
        expect(found.boxes.length).toBeGreaterThan(name === "trip" ? 3 : 50);
        const apart = (a: { x: number; y: number; width: number; height: number }, b: typeof a): boolean =>
          a.x + a.width <= b.x + 0.5 || b.x + b.width <= a.x + 0.5 || a.y + a.height <= b.y + 0.5 || b.y + b.height <= a.y + 0.5;
        const overlaps = (list: typeof found.boxes): string[] => {
          const out: string[] = [];
          for (let i = 0; i < list.length; i++)
            for (let j = i + 1; j < list.length; j++) if (!apart(list[i]!, list[j]!)) out.push(`${list[i]!.id} / ${list[j]!.id}`);
          return out;
        };
        expect(overlaps(found.boxes)).toEqual([]);
        expect(overlaps(found.rowLabels)).toEqual([]);
        // Every label inside its box, as Chromium measures the text with the fonts it has.
        const outside = found.labels
          .filter(
            ({ box, inside }) =>
              box.x < inside.x ||
              box.x + box.width > inside.x + inside.width ||
              box.y < inside.y ||
              box.y + box.height > inside.y + inside.height,
          )
          .map(({ box }) => box.id);
        expect(outside).toEqual([]);
        if (name === "run") {
          expect(found.kind).toBe("plan-refs-timeline");
          expect(found.rowLabels.length).toBe(60);
          // Row labels stay left of the bars.
          const firstBar = Math.min(...found.boxes.map((box) => box.x));
          expect(found.rowLabels.filter((label) => label.x + label.width > firstBar).map((label) => label.id)).toEqual([]);
        } else expect(found.labels.length).toBe(found.boxes.length * 2);
        mkdirSync(ARTIFACTS, { recursive: true });
        const path = join(ARTIFACTS, `draw-${name}.png`);
        await view.screenshot({ path, fullPage: true });
        expect(readFileSync(path).subarray(1, 4).toString()).toBe("PNG");
      }
    },
  );

  test("a lint marker with a quick fix offers it as an action, and clicking it applies the fix", async () => {
    const before = await planText();
    const at = before.indexOf('"$1.');
    expect(at, "the plan has a string starting with $1.").toBeGreaterThan(0);
    // Write the step number with a leading zero: a non-canonical-step warning, whose fix writes 1.
    await page.evaluate((pos) => globalThis.playground!.plan.dispatch({ changes: { from: pos + 2, to: pos + 3, insert: "01" } }), at);
    const mark = page.locator(".plan-view .cm-lintRange.cm-planref-lint-non-canonical-step");
    await mark.first().waitFor();
    const box = (await mark.first().boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const action = page.locator(".cm-tooltip-lint .cm-diagnosticAction", { hasText: "Change to 1" });
    await action.waitFor();
    await action.click();
    expect(await planText()).toBe(before);
    await page.mouse.move(1, 1);
    await mark.first().waitFor({ state: "detached" });
  });

  test("a screenshot is saved, and no console error happened on the way", async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const path = join(ARTIFACTS, "playground.png");
    await page.screenshot({ path, fullPage: true });
    expect(readFileSync(path).subarray(1, 4).toString()).toBe("PNG");
    expect(consoleErrors).toEqual([]);
    expect(foreignRequests).toEqual([]);
  });
});
