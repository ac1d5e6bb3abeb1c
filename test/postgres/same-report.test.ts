/**
 * The same plans give the same report through PostgreSQL (submitPlan, a worker, waitForRun) as
 * through runPlan: diamond, fan-out of 100, chain of 50, failure isolation, failFast, templates and
 * deep, strict and a limit; and a property over random plans with random failures.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { migrate, startWorker, submitPlan, waitForRun, type Worker } from "../../src/postgres/index.js";
import { runPlan, type RunOptions, type ToolFunctions } from "../../src/run/run-plan.js";
// @ts-expect-error: a plain ES module without types
import { tools as fixtureTools } from "../fixtures/pg-tools.mjs";
import { comparable } from "./compare.js";
import { startDatabase, type TestDatabase } from "./server.js";

const tools = fixtureTools as ToolFunctions;
let db: TestDatabase;
let worker: Worker;

beforeAll(async () => {
  db = await startDatabase();
  await migrate({ connectionString: db.url });
  worker = await startWorker({ connectionString: db.url, tools, concurrency: 8, recoveryMs: 3_000 });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await db?.remove();
}, 60_000);

async function both(plan: unknown, options: Omit<RunOptions, "signal" | "onEvent" | "concurrency"> = {}): Promise<{ local: unknown; remote: unknown }> {
  const local = comparable(await runPlan(plan, tools, { ...options, concurrency: 8 }));
  const runId = await submitPlan(plan, { connectionString: db.url, options });
  const remote = comparable(await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 }));
  return { local, remote };
}

const diamond = {
  steps: [
    { id: 1, tool: "echo", args: { city: "Lisbon" } },
    { id: 2, tool: "echo", args: { from: "$1.city" } },
    { id: 3, tool: "echo", args: { also: "$1" } },
    { id: 4, tool: "echo", args: { left: "$2.from", right: "$3.also.city" } },
  ],
};
const fanOut = { steps: [{ id: 0, tool: "echo", args: { n: 0 } }, ...Array.from({ length: 100 }, (_, i) => ({ id: i + 1, tool: "add", args: { a: "$0.n", b: i + 1 } }))] };
const chain = { steps: [{ id: 1, tool: "add", args: { a: 0, b: 1 } }, ...Array.from({ length: 49 }, (_, i) => ({ id: i + 2, tool: "add", args: { a: `$${i + 1}`, b: 1 } }))] };
const isolation = {
  steps: [
    { id: 1, tool: "fail", args: { message: "no geocoder" } },
    { id: 2, tool: "echo", args: { at: "$1" } },
    { id: 3, tool: "echo", args: { fine: true } },
    { id: 4, tool: "echo", args: { after: "$2", other: "$3" } },
    { id: 5, tool: "echo", args: { ok: "$3.fine" } },
    { id: 6, tool: "echo", args: { missing: "$3.nope" } },
  ],
};
const failFast = {
  steps: [
    { id: 1, tool: "failLater", args: { ms: 300 } },
    { id: 2, tool: "slow", args: { ms: 5_000 } },
    { id: 3, tool: "echo", args: { after: "$2" } },
  ],
};
const templates = {
  options: { templates: true },
  steps: [
    { id: 1, tool: "echo", args: { city: "Lisbon", days: 2 } },
    { id: 2, tool: "echo", args: { text: "${1.days} days in ${1.city}", whole: "${1}", escaped: "$${1} stays" } },
  ],
};
/** A template the resolver interpolates (its output is longer than 5 characters). */
const interpolated = {
  options: { templates: true },
  steps: [
    { id: 1, tool: "echo", args: { city: "Lisbon", days: 2 } },
    { id: 2, tool: "echo", args: { text: "${1.days} days in ${1.city}" } },
  ],
};
const deep = {
  options: { deep: true },
  steps: [
    { id: 1, tool: "echo", args: { city: "Porto" } },
    { id: 2, tool: "echo", args: { nested: { list: ["$1.city", { again: "$1" }] } } },
  ],
};

describe("the same report through PostgreSQL as through runPlan", { timeout: 90_000 }, () => {
  test.each([
    ["a diamond", diamond, {}],
    ["a fan-out of 100", fanOut, {}],
    ["a chain of 50", chain, {}],
    ["failure isolation", isolation, {}],
    ["failFast", failFast, { failFast: true }],
    ["templates", templates, {}],
    ["deep", deep, {}],
    ["an invalid plan", { steps: [{ id: 1, tool: "echo", args: { x: "$2.y" } }] }, {}],
    // strict and the limits reach the linter and the workers' resolver, as in runPlan.
    ["strict", { steps: [{ id: 1, tool: "echo", args: { price: "$1x" } }] }, { strict: true }],
    ["a limit the resolver applies (maxOutputLength)", interpolated, { maxOutputLength: 5 }],
    ["no steps", { steps: [] }, {}],
  ] as [string, unknown, RunOptions][])("%s", async (_name, plan, options) => {
    const { local, remote } = await both(plan, options);
    expect(remote).toEqual(local);
  });

  test("the figures: fan-out 101 results, chain ends at 50, isolation skips 2 and 4 and fails 1 and 6", async () => {
    const fan = (await both(fanOut)).remote as { results: [number, unknown][] };
    expect(fan.results.length).toBe(101);
    const long = (await both(chain)).remote as { results: [number, unknown][] };
    expect(long.results.at(-1)).toEqual([50, 50]);
    const isolated = (await both(isolation)).remote as { skipped: number[]; errors: [number, { code: string }][] };
    expect(isolated.skipped).toEqual([2, 4]);
    expect(isolated.errors.map(([id, error]) => [id, error.code])).toEqual([
      [1, "tool-error"],
      [6, "unresolved-args"],
    ]);
  });

  test("the figures: templates interpolate through PostgreSQL (text, a lone ${1} keeps the value, $${ stays literal)", async () => {
    const templated = (await both(templates)).remote as { results: [number, unknown][] };
    expect(templated.results.at(-1)).toEqual([2, { text: "2 days in Lisbon", whole: { city: "Lisbon", days: 2 }, escaped: "${1} stays" }]);
  });

  test("validateInputs: resolved arguments that break the tool's input schema fail the step (invalid-input) on a worker as in runPlan", async () => {
    const plan = { steps: [{ id: 1, tool: "echo", args: { n: "three" } }, { id: 2, tool: "add", args: { a: "$1.n", b: 2 } }, { id: 3, tool: "add", args: { a: 1, b: 2 } }] };
    const catalog = { echo: {}, add: { input: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } } };
    const { local, remote } = await both(plan, { catalog, validateInputs: true });
    expect(remote).toEqual(local);
    const errors = (remote as { errors: [number, { code: string; message: string }][] }).errors;
    expect(errors.map(([id, error]) => [id, error.code])).toEqual([[2, "invalid-input"]]);
    expect(errors[0]![1].message).toContain('/a must be a number (got "three")');
  });

  test("property: random plans with random failures give the same report", async () => {
    const planArb = fc.integer({ min: 1, max: 12 }).chain((n) =>
      fc.tuple(
        ...Array.from({ length: n }, (_, i) =>
          fc.record({
            deps: fc.subarray(Array.from({ length: i }, (_, j) => j + 1), { maxLength: Math.min(3, i) }),
            fails: fc.boolean(),
            badRef: fc.boolean(),
          }),
        ),
      ),
    );
    await fc.assert(
      fc.asyncProperty(planArb, async (specs) => {
        const plan = {
          steps: specs.map((spec, i) => ({
            id: i + 1,
            tool: spec.fails && !spec.badRef ? "fail" : "echo",
            args: Object.fromEntries([["me", i + 1], ...spec.deps.map((dep) => [`d${dep}`, spec.badRef && spec.fails ? `$${dep}.nope` : `$${dep}.me`])]),
          })),
        };
        const { local, remote } = await both(plan);
        expect(remote).toEqual(local);
      }),
      { numRuns: 20 },
    );
  });
});
