/**
 * `reportToJSON(report)` is exactly the JSON `plan-refs run` prints (timings aside, which differ from
 * one run to the next), and it never throws and never loses a step, whatever the tools returned.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { reportToJSON, runPlan, StepError, type RunReport, type ToolFunctions } from "../../src/index.js";
import { runCliInProcess } from "../helpers/cli.js";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tmp = tempFolder("report-json");

function file(name: string, content: string): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
}

/** The same report with every timing set to 0: the rest must match exactly. */
/** The times and the run's random id vary from run to run. */
function withoutTimes(json: { runId?: string; timings: { totalMs: number; steps: Record<string, number> } }): unknown {
  return {
    ...json,
    runId: typeof json.runId,
    timings: { totalMs: 0, steps: Object.fromEntries(Object.keys(json.timings.steps).map((id) => [id, 0])) },
  };
}

describe("reportToJSON", () => {
  test("equals what plan-refs run prints: results, errors with their codes, skipped steps, timings per step", async () => {
    const toolsPath = file(
      "tools.mjs",
      `export const echo = (args) => args;\nexport const boom = () => { throw new Error("service down"); };\nexport const undef = () => undefined;\nexport const big = () => 10n;\n`,
    );
    const plan = {
      steps: [
        { id: 1, tool: "echo", args: { x: 1 } },
        { id: 2, tool: "boom", args: {} },
        { id: 3, tool: "echo", args: { a: "$2" } },
        { id: 4, tool: "undef", args: {} },
        { id: 5, tool: "big", args: {} },
        { id: 6, tool: "echo", args: { y: "$1.x" } },
        { id: 7, tool: "echo", args: { z: "$1.nope" } },
      ],
    };
    const planPath = file("plan.json", JSON.stringify(plan));
    const cli = await runCliInProcess(["run", planPath, "--tools", toolsPath, "--concurrency", "1"], { cwd: root });
    const printed = JSON.parse(cli.stdout) as Parameters<typeof withoutTimes>[0];

    const tools = (await import(pathToFileURL(toolsPath).href)) as ToolFunctions;
    const report = await runPlan(plan, { ...tools }, { concurrency: 1 });
    const json = reportToJSON(report);
    expect(withoutTimes(json)).toEqual(withoutTimes(printed));
    expect(Object.keys(json.timings.steps)).toEqual(Object.keys(printed.timings.steps));
    // And it is what JSON.stringify(report) cannot be: the results are there.
    expect(JSON.parse(JSON.stringify(report)).results).toEqual({});
    expect(json.results).toMatchObject({ 1: { x: 1 }, 4: null, 6: { y: 1 } });
    expect(json.errors["2"]).toEqual({ code: "tool-error", message: "step 2 (boom): the tool threw: service down" });
    expect(json.errors["5"]?.code).toBe("unserializable");
    expect(json.errors["7"]?.code).toBe("unresolved-args");
    expect(json.skipped).toEqual([3]);
  });

  test("a StepError's ref, arg and pointer are kept when present", () => {
    const error = new StepError("unresolved-args", 2, "echo", "its arguments could not be resolved");
    Object.defineProperty(error, "ref", { value: "$1.nope", enumerable: true });
    Object.defineProperty(error, "arg", { value: "/z", enumerable: true });
    Object.defineProperty(error, "pointer", { value: "/steps/1/args/z", enumerable: true });
    const report: RunReport = {
      runId: "r",
      status: "failed",
      results: new Map(),
      errors: new Map([[2, error]]),
      skipped: [],
      diagnostics: [],
      timings: { totalMs: 1.4, steps: new Map() },
    };
    expect(reportToJSON(report).errors).toEqual({
      2: {
        code: "unresolved-args",
        message: "step 2 (echo): its arguments could not be resolved",
        ref: "$1.nope",
        arg: "/z",
        pointer: "/steps/1/args/z",
      },
    });
  });

  test("property: never throws, JSON.stringify of it never throws, and every step with a result is in results or errors", () => {
    const cyclic = (): unknown => {
      const a: Record<string, unknown> = {};
      a["self"] = a;
      return a;
    };
    const value = fc.oneof(
      fc.jsonValue(),
      fc.bigInt().map((n) => ({ n })),
      fc.constant(undefined),
      fc.constant(() => 1),
      fc.constant(Symbol("s")),
      fc.constant(null).map(cyclic),
      fc.constant({
        toJSON: () => {
          throw new Error("toJSON");
        },
      }),
    );
    fc.assert(
      fc.property(fc.array(value, { maxLength: 12 }), (values) => {
        const results = new Map(values.map((v, i) => [i + 1, v] as const));
        const report: RunReport = {
          runId: "r",
          status: "ok",
          results,
          errors: new Map(),
          skipped: [],
          diagnostics: [],
          timings: { totalMs: 3, steps: new Map() },
        };
        const json = reportToJSON(report);
        const again = JSON.parse(JSON.stringify(json)) as typeof json;
        expect(again).toEqual(json);
        for (const id of results.keys()) expect(String(id) in json.results !== String(id) in json.errors).toBe(true);
        expect(json.status).toBe(Object.keys(json.errors).length > 0 ? "failed" : "ok");
      }),
    );
  });
});
