/**
 * A project without `@opentelemetry/api` (a core user installs none of it): the built package, copied
 * into a temporary folder whose node_modules has plan-refs' dependencies but not the API, runs plans
 * (also with `recordContent` and a `tracer` given) without a throw, and gives the same results as in
 * this checkout, where the API is installed and no SDK is registered. Needs `npm run build` first.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { beforeAll, expect, test } from "vitest";
import { distProblem, root } from "../helpers/doc-code.js";
import { tempFolder } from "../helpers/temp.js";

const run = promisify(execFile);
const project = join(tempFolder("no-otel"), "app");

/** Runs plans through the built package at `dist` and prints what they gave (no run ids, no times). */
const script = (dist: string): string => `
import { createRequire } from "node:module";
import { reportToJSON, runPlan } from ${JSON.stringify(`${dist}/run/index.js`)};
let api = "present";
try { createRequire(${JSON.stringify(`${dist}/run/index.js`)}).resolve("@opentelemetry/api"); } catch { api = "absent"; }
const plan = { steps: [
  { id: 1, tool: "geocode", args: { city: "Paris" } },
  { id: 2, tool: "weather", args: { at: "$1" } },
  { id: 3, tool: "fails", args: { at: "$2" } },
  { id: 4, tool: "weather", args: { at: "$3" } },
] };
const tools = {
  geocode: async ({ city }) => ({ city, lat: 48.85 }),
  weather: ({ at }) => ({ sky: "sunny", at }),
  fails: () => { throw new Error("down"); },
};
const fakeTracer = { startSpan: () => { throw new Error("never called without the API"); } };
const reports = [];
for (const options of [{}, { recordContent: true }, { tracer: false }, { tracer: fakeTracer, recordContent: true }]) {
  const { runId, timings, ...rest } = reportToJSON(await runPlan(plan, tools, options));
  reports.push(rest);
}
console.log(JSON.stringify({ api, reports }));
`;

beforeAll(() => {
  const problem = distProblem();
  if (problem !== undefined) throw new Error(problem);
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  cpSync(join(root, "dist"), join(project, "node_modules/plan-refs/dist"), { recursive: true });
  cpSync(join(root, "package.json"), join(project, "node_modules/plan-refs/package.json"));
  // The package's own dependencies only (linked: each finds its own dependencies in the checkout);
  // @opentelemetry/api is not one of them, and nothing above the temp folder has it.
  for (const name of Object.keys(manifest.dependencies)) {
    const link = join(project, "node_modules", name);
    mkdirSync(join(link, ".."), { recursive: true });
    symlinkSync(join(root, "node_modules", name), link, "dir");
  }
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "app", type: "module", private: true }));
  writeFileSync(join(project, "check.mjs"), script(pathToFileURL(join(project, "node_modules/plan-refs/dist")).href));
  writeFileSync(join(project, "with-api.mjs"), script(pathToFileURL(join(root, "dist")).href));
  writeFileSync(join(project, "plan.json"), JSON.stringify({ steps: [{ id: 1, tool: "geocode", args: { city: "Paris" } }] }));
  writeFileSync(join(project, "tools.mjs"), "export const geocode = ({ city }) => ({ city, lat: 48.85 });\n");
});

test("without @opentelemetry/api nothing throws, and the results are those of a checkout with the API", async () => {
  const without = JSON.parse((await run(process.execPath, ["check.mjs"], { cwd: project })).stdout) as { api: string; reports: unknown[] };
  const withApi = JSON.parse((await run(process.execPath, ["with-api.mjs"], { cwd: project })).stdout) as {
    api: string;
    reports: unknown[];
  };
  expect(without.api).toBe("absent");
  expect(withApi.api).toBe("present");
  expect(without.reports).toHaveLength(4);
  for (const report of without.reports) expect(report).toEqual(without.reports[0]);
  expect(without.reports[0]).toMatchObject({
    status: "failed",
    results: { 1: { city: "Paris", lat: 48.85 } },
    errors: { 3: { code: "tool-error" } },
    skipped: [4],
  });
  expect(withApi.reports).toEqual(without.reports);
}, 60_000);

/** `plan-refs run` from the copied package, with `env` added to the environment (the OTEL_* variables removed first). */
async function cli(env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")));
  return run(process.execPath, ["node_modules/plan-refs/dist/cli/main.js", "run", "plan.json", "--tools", "tools.mjs"], {
    cwd: project,
    env: { ...clean, ...env },
  });
}

test("plan-refs run with OTEL_EXPORTER_OTLP_ENDPOINT set and no SDK: one line naming what to install, and the run as without it", async () => {
  const quiet = await cli({});
  expect(quiet.stderr).not.toMatch(/OpenTelemetry|OTEL_/);
  const told = await cli({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
  const lines = told.stderr.split("\n").filter((line) => /OpenTelemetry|OTEL_/.test(line));
  expect(lines).toEqual([
    "plan-refs: OTEL_EXPORTER_OTLP_ENDPOINT is set, but the OpenTelemetry SDK is not installed; to export spans: npm install @opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/context-async-hooks @opentelemetry/exporter-trace-otlp-http",
  ]);
  expect(JSON.parse(told.stdout).results).toEqual(JSON.parse(quiet.stdout).results);
  const none = await cli({ OTEL_TRACES_EXPORTER: "none" });
  expect(none.stderr).not.toMatch(/OpenTelemetry|OTEL_/);
}, 60_000);
