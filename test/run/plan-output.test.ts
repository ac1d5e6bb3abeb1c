/**
 * A plan's output through runPlan: the rows of test/cases/output.json (shared with the PostgreSQL
 * workers' test), then what a JSON row cannot say (the run's own copy, getters, JSON writing).
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { reportToJSON } from "../../src/run/report-json.js";
import { runPlan } from "../../src/run/run-plan.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import type { RefError } from "../../src/shared/errors.js";
import { outputCatalog, outputRows, outputTools } from "../helpers/output-rows.js";

const rows = outputRows;
const tools = outputTools;
const catalog = outputCatalog;

describe("output.json", () => {
  test.each(rows)("$name", async (row) => {
    const report = await runPlan(row.plan, tools, { catalog, ...row.options });
    expect(report.status).toBe(row.status);
    if (row.outputError !== undefined) {
      expect(Object.hasOwn(report, "output")).toBe(false);
      expect(report.outputError?.code).toBe(row.outputError.code);
      expect(report.outputError?.message).toContain(row.outputError.messageIncludes);
    } else if (row.none === true) {
      expect(Object.hasOwn(report, "output") || Object.hasOwn(report, "outputError")).toBe(false);
    } else {
      expect(report.outputError).toBeUndefined();
      expect(report.output).toEqual(row.output);
    }
  });
});

describe("the output, beyond the rows", () => {
  test("is the run's own copy: changing the caller's plan while it runs changes nothing", async () => {
    const output: Record<string, unknown> = { a: "$1" };
    const plan = { steps: [{ id: 1, tool: "later", args: {} }], output };
    const report = await runPlan(plan, {
      later: async () => {
        output["a"] = "changed";
        output["b"] = "$1";
        return 5;
      },
    });
    expect(report.output).toEqual({ a: 5 });
  });

  test("a getter in the output is copied, never run, and refused by the resolver as in args", async () => {
    let calls = 0;
    const output = Object.defineProperty({}, "a", {
      enumerable: true,
      get() {
        calls++;
        return "$1";
      },
    });
    const report = await runPlan({ steps: [{ id: 1, tool: "echo", args: { value: 1 } }], output }, tools);
    expect(calls).toBe(0);
    expect(report.status).toBe("ok");
    expect(report.outputError?.code).toBe("unresolved-output");
    expect((report.outputError?.cause as RefError).code).toBe("access");
  });

  test("reportToJSON writes the output, and an output JSON cannot hold as an unserializable outputError", async () => {
    const ok = await runPlan({ steps: [{ id: 1, tool: "echo", args: { value: { x: 1 } } }], output: { all: "$1" } }, tools);
    expect(reportToJSON(ok).output).toEqual({ all: { x: 1 } });
    const big = await runPlan({ steps: [{ id: 1, tool: "big", args: {} }], output: { n: "$1" } }, { big: () => 1n });
    const json = reportToJSON(big);
    expect(json.output).toBeUndefined();
    expect(json.outputError?.code).toBe("unserializable");
    expect(() => JSON.stringify(json)).not.toThrow();
    const failed = await runPlan({ steps: [{ id: 1, tool: "fail", args: {} }], output: { n: "$1" } }, tools);
    expect(reportToJSON(failed).outputError).toMatchObject({ code: "unresolved-output", ref: "$1", arg: "/n" });
  });

  test("a plan without output has neither field", async () => {
    const report = await runPlan({ steps: [{ id: 1, tool: "echo", args: { value: 1 } }] }, tools);
    expect(Object.hasOwn(report, "output") || Object.hasOwn(report, "outputError")).toBe(false);
    expect(Object.hasOwn(reportToJSON(report), "output")).toBe(false);
  });

  test("property: when every step succeeds, the output is resolveRefs of it over the results", async () => {
    // Plain strings: a generated "$0" would be a placeholder of a missing step, and the plan invalid.
    const value = fc.oneof(
      fc.integer(),
      fc.string().filter((text) => !text.includes("$")),
      fc.constant(null),
      fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), fc.integer(), { maxKeys: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(value, { minLength: 1, maxLength: 6 }),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.nat(), { maxKeys: 5 }),
        async (values, picks) => {
          const steps = values.map((v, i) => ({ id: i + 1, tool: "echo", args: { value: v } }));
          const output = Object.fromEntries(Object.entries(picks).map(([key, pick]) => [key, `$${(pick % values.length) + 1}`]));
          const report = await runPlan({ steps, output }, tools);
          expect(report.status).toBe("ok");
          expect(report.output).toEqual(resolveRefs(output, new Map(values.map((v, i) => [i + 1, v]))));
        },
      ),
      { numRuns: 60 },
    );
  });
});
