/**
 * Plans and runs to draw, shared by the draw tests, the bench and the browser test: the trip example,
 * generated plans of any size (seeded, so every run draws the same picture), and a run with failures.
 * `drawFixtures()` builds the three pictures the browser test renders.
 */
import { readFileSync } from "node:fs";
import { planToSvg, runToSvg } from "../../src/draw/index.js";
import type { ToolCatalog } from "../../src/plan/plan.js";
import { runPlan, type RunReport, type ToolFunctions } from "../../src/run/index.js";

const root = new URL("../../", import.meta.url);

/** A plan or catalog file of the repository, as `JSON.parse` gives it. */
export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(new URL(path, root), "utf8")) as unknown;
}

/** The trip example and its catalog. */
export function tripPlan(): { plan: unknown; catalog: ToolCatalog } {
  return { plan: readJson("examples/trip/plan.json"), catalog: readJson("examples/trip/tools.json") as ToolCatalog };
}

/** A small deterministic random generator (mulberry32). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TOOLS = ["geocode", "weather", "search_events", "summarise", "fetch_page", "translate", "send_email", "rank"];

/**
 * A plan of `size` steps (ids 1..size): each step reads one to three keys of up to three earlier
 * steps, mostly recent ones, so the plan has many levels and some wide ones. Deterministic for a seed.
 *
 * @example
 * generatedPlan(200).steps.length // 200
 */
export function generatedPlan(size: number, seed = 1): { steps: { id: number; tool: string; args: Record<string, unknown> }[] } {
  const next = random(seed);
  const steps: { id: number; tool: string; args: Record<string, unknown> }[] = [];
  for (let id = 1; id <= size; id++) {
    const args: Record<string, unknown> = { limit: 3 };
    const refs = id === 1 ? 0 : 1 + Math.floor(next() * 3);
    for (let k = 0; k < refs; k++) {
      const back = next() < 0.9 ? 1 + Math.floor(next() * 4) : 1 + Math.floor(next() * (id - 1));
      const from = Math.max(1, id - back);
      args[`in${k}`] = `$${from}.${["city", "items", "summary", "score"][Math.floor(next() * 4)]}`;
    }
    steps.push({ id, tool: TOOLS[Math.floor(next() * TOOLS.length)]!, args });
  }
  return { steps };
}

/**
 * Run `plan` with tools that take up to a few milliseconds (given by the seed) and fail for the steps
 * whose ids are in `failing`; resolves to the report.
 */
export async function runWithFailures(plan: unknown, failing: ReadonlySet<number>, seed = 1): Promise<RunReport> {
  const next = random(seed);
  const delays = new Map<number, number>();
  const tool = (name: string) => async (_args: Record<string, unknown>, context: { stepId: number }) => {
    let delay = delays.get(context.stepId);
    if (delay === undefined) delays.set(context.stepId, (delay = Math.floor(next() * 4)));
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    if (failing.has(context.stepId)) throw new Error(`${name} failed <on purpose> & "quoted"`);
    return { city: "Lisbon", items: [1, 2], summary: "ok", score: 1 };
  };
  const tools: ToolFunctions = Object.fromEntries(TOOLS.map((name) => [name, tool(name)]));
  return runPlan(plan, tools, { concurrency: 8 });
}

/** The three pictures the browser test renders: the trip example, a 200-step plan, a run with failures. */
export async function drawFixtures(): Promise<{ trip: string; large: string; run: string }> {
  const { plan, catalog } = tripPlan();
  const runPlanValue = generatedPlan(60, 7);
  const report = await runWithFailures(runPlanValue, new Set([20, 45]), 7);
  return {
    trip: planToSvg(plan, { catalog }),
    large: planToSvg(generatedPlan(200, 1)),
    run: runToSvg(report, { plan: runPlanValue }),
  };
}
