// `npm run pictures`: the README's pictures, from the built package (dist/): docs/images/trip-plan.svg
// (the trip example's dependency graph, linted against its catalog) and docs/images/trip-run.svg (the
// timeline of a run of it). The run is real (the example's tools, its results and status), but its
// timings are not the clock's: each step takes the time its tool pauses for in examples/trip/tools.mjs
// and starts when its last dependency ends, so the picture is the same byte for byte on every machine.
// `node scripts/pictures.mjs --check` writes nothing and exits 1 when a committed picture differs
// from what it would write (test/project/readme-pictures.test.ts runs it).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = new URL("../", import.meta.url);
const { planGraph } = await import(new URL("dist/plan/index.js", root).href);
const { planToSvg, runToSvg } = await import(new URL("dist/draw/index.js", root).href);
const { runPlan } = await import(new URL("dist/index.js", root).href);
const tools = await import(new URL("examples/trip/tools.mjs", root).href);

/** Milliseconds each trip tool takes: the pauses in examples/trip/tools.mjs. */
const DURATIONS = { geocode: 40, weather: 80, sights: 60, summarise: 20 };

const readJson = (path) => JSON.parse(readFileSync(new URL(path, root), "utf8"));

/**
 * The run's report with the timings a run on an idle machine would have: a step starts when its last
 * dependency ends (the roots at 0) and takes its tool's duration. Results, errors and status are the
 * real run's.
 */
function withDeterministicTimings(report, plan) {
  const graph = planGraph(plan);
  const toolOf = new Map(plan.steps.map((step) => [step.id, step.tool]));
  const steps = new Map();
  for (const level of graph.levels) {
    for (const id of level) {
      const startMs = Math.max(0, ...[...(graph.dependencies.get(id) ?? [])].map((from) => steps.get(from)?.endMs ?? 0));
      const duration = DURATIONS[toolOf.get(id)];
      if (duration === undefined) throw new Error(`scripts/pictures.mjs: no duration for the tool ${toolOf.get(id)}`);
      steps.set(id, { startMs, endMs: startMs + duration, durationMs: duration });
    }
  }
  const totalMs = Math.max(0, ...[...steps.values()].map((timing) => timing.endMs));
  return { ...report, timings: { totalMs, steps } };
}

/** The pictures, by path under the repository. */
export async function pictures() {
  const plan = readJson("examples/trip/plan.json");
  const catalog = readJson("examples/trip/tools.json");
  const report = await runPlan(plan, tools, { catalog, validateOutputs: true });
  if (report.status !== "ok") throw new Error(`scripts/pictures.mjs: the trip example's run ended ${report.status}`);
  return {
    "docs/images/trip-plan.svg": `${planToSvg(plan, { catalog })}\n`,
    "docs/images/trip-run.svg": `${runToSvg(withDeterministicTimings(report, plan), { plan })}\n`,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  const stale = [];
  for (const [path, text] of Object.entries(await pictures())) {
    const url = new URL(path, root);
    if (check) {
      let committed;
      try {
        committed = readFileSync(url, "utf8");
      } catch {
        committed = undefined;
      }
      if (committed !== text) stale.push(path);
    } else {
      mkdirSync(new URL(".", url), { recursive: true });
      writeFileSync(url, text);
      console.log(`wrote ${path}`);
    }
  }
  if (stale.length > 0) {
    console.error(
      `${stale.join(", ")} ${stale.length === 1 ? "differs" : "differ"} from what the code draws now: run npm run pictures and commit the result`,
    );
    process.exitCode = 1;
  }
}
