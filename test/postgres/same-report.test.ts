/**
 * The same plans give the same report through PostgreSQL (submitPlan, a worker, waitForRun) as
 * through runPlan: diamond, fan-out of 100, chain of 50, failure isolation, failFast, templates and
 * deep, strict and a limit; approval (suspended, then the same decisions); and properties over random
 * plans with random failures, with random retry policies (through worker processes, the calls and
 * attempts counted), and with random approval sets.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  approveStep,
  denyStep,
  PostgresError,
  startWorker,
  submitPlan,
  waitForRun,
  type Worker,
  type WorkerToolContext,
} from "../../src/postgres/index.js";
import type { RetryPolicy } from "../../src/step/retry.js";
import { resumePlan } from "../../src/run/resume.js";
import { runPlan, type RunOptions, type RunReport, type ToolContext, type ToolFunctions } from "../../src/run/run-plan.js";
// @ts-expect-error: a plain ES module without types
import { FAILS_THEN_ECHOES as failingNames, tools as fixtureTools } from "../fixtures/pg-tools.mjs";
import { randomPlan, TOOL_NAMES } from "../helpers/random-plans.js";
import { approvalPlan } from "./approval-plan.js";
import { spawnWorker } from "./children.js";
import { comparable } from "./compare.js";
import { fileDatabase, type FileDatabase } from "./server.js";

const tools = fixtureTools as ToolFunctions;
const FAILS_THEN_ECHOES = failingNames as string[];
let db: FileDatabase;
let worker: Worker;

beforeAll(async () => {
  db = await fileDatabase();
  // Without the tools the retry property runs on worker processes: their calls are counted from what those print.
  const inProcess = Object.fromEntries(Object.entries(tools).filter(([name]) => !FAILS_THEN_ECHOES.includes(name)));
  worker = await startWorker({ connectionString: db.url, tools: inProcess, concurrency: 8, recoveryMs: 3_000 });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await db?.remove();
}, 60_000);

async function both(
  plan: unknown,
  options: Omit<RunOptions, "signal" | "onEvent" | "concurrency"> = {},
): Promise<{ local: unknown; remote: unknown }> {
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
const fanOut = {
  steps: [
    { id: 0, tool: "echo", args: { n: 0 } },
    ...Array.from({ length: 100 }, (_, i) => ({ id: i + 1, tool: "add", args: { a: "$0.n", b: i + 1 } })),
  ],
};
const chain = {
  steps: [
    { id: 1, tool: "add", args: { a: 0, b: 1 } },
    ...Array.from({ length: 49 }, (_, i) => ({ id: i + 2, tool: "add", args: { a: `$${i + 1}`, b: 1 } })),
  ],
};
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
    const plan = {
      steps: [
        { id: 1, tool: "echo", args: { n: "three" } },
        { id: 2, tool: "add", args: { a: "$1.n", b: 2 } },
        { id: 3, tool: "add", args: { a: 1, b: 2 } },
      ],
    };
    const catalog = {
      echo: {},
      add: { input: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },
    };
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
            deps: fc.subarray(
              Array.from({ length: i }, (_, j) => j + 1),
              { maxLength: Math.min(3, i) },
            ),
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
            args: Object.fromEntries([
              ["me", i + 1],
              ...spec.deps.map((dep) => [`d${dep}`, spec.badRef && spec.fails ? `$${dep}.nope` : `$${dep}.me`]),
            ]),
          })),
        };
        const { local, remote } = await both(plan);
        expect(remote).toEqual(local);
      }),
      { numRuns: 20 },
    );
  });

  test("property: random plans, failures per try and retry policies give the same reports through worker processes (attempts included) and the calls of each tool a model says", async () => {
    // A step fails its first `fails` tries (half never fail, so runs reach their later steps), now and then
    // one of them saying retryable: false, or reads a field its dependency lacks.
    const failures = fc.record({
      fails: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 })),
      refuseAt: fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 3 }), weight: 1 }),
      badRef: fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, { arbitrary: fc.constant(true), weight: 1 }),
    });
    const policy: fc.Arbitrary<RetryPolicy> = fc.record(
      {
        attempts: fc.integer({ min: 1, max: 3 }),
        initialDelayMs: fc.constant(0),
        jitter: fc.constant("none" as const),
        retryOn: fc.constantFrom<RetryPolicy["retryOn"][]>(["timeout"], [], ["tool-error"], ["tool-error", "timeout"]),
      },
      { requiredKeys: ["attempts", "initialDelayMs", "jitter"] },
    );
    const toolName = (name: (typeof TOOL_NAMES)[number]): string => FAILS_THEN_ECHOES[TOOL_NAMES.indexOf(name)]!;
    const policies = fc.record(
      { retry: policy, retryByTool: fc.dictionary(fc.constantFrom(...TOOL_NAMES.map(toolName)), policy, { maxKeys: 3 }) },
      { requiredKeys: [] },
    );
    const cases = randomPlan(8).chain((plan) =>
      fc.tuple(fc.constant(plan), fc.array(failures, { minLength: plan.steps.length, maxLength: plan.steps.length }), policies),
    );
    const fleet = [spawnWorker(db.url, 30_000, 4), spawnWorker(db.url, 30_000, 4)];
    try {
      await Promise.all(fleet.map((child) => child.ready));
      await fc.assert(
        fc.asyncProperty(cases, async ([random, specs, options]) => {
          const plan = {
            steps: random.steps.map((step, i) => {
              const { badRef, fails, refuseAt } = specs[i]!;
              const args = Object.fromEntries(
                Object.entries(step.args).map(([key, value], k) => [key, badRef && k === 1 ? `${String(value)}.nope` : value]),
              );
              const wide: Record<string, unknown> = { ...args, fails, ...(refuseAt === undefined ? {} : { refuseAt }) };
              return { id: step.id, tool: toolName(step.tool), args: wide };
            }),
          };
          const localCalls: string[] = [];
          const counted = Object.fromEntries(
            FAILS_THEN_ECHOES.map((name) => [
              name,
              (args: Record<string, unknown>, context: ToolContext) => (
                localCalls.push(`${name}:${context.stepId}`),
                tools[name]!(args, context)
              ),
            ]),
          );
          const local = await runPlan(plan, counted, { ...options, concurrency: 8 });
          const runId = await submitPlan(plan, { connectionString: db.url, options });
          const remote = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
          const remoteCalls = fleet.flatMap((child) =>
            child.calls.filter((call) => call.runId === runId).map((call) => `${call.tool}:${call.stepId}`),
          );
          expect(withAttempts(remote)).toEqual(withAttempts(local));
          expect(tally(remoteCalls)).toEqual(tally(localCalls));

          // The model: a step whose dependencies all succeeded is called until it answers, says not to retry, or its policy ends it.
          const done = new Set<number>();
          const failed = new Set<number>();
          const modelCalls: string[] = [];
          for (const step of plan.steps) {
            const dependencies = Object.values(step.args).flatMap((value) =>
              typeof value === "string" ? [Number(value.slice(1).split(".")[0])] : [],
            );
            const { fails, refuseAt, badRef } = specs[step.id - 1]!;
            if (!dependencies.every((id) => done.has(id))) continue;
            if (badRef && dependencies.length > 0) {
              failed.add(step.id);
              continue;
            }
            const { attempts, retryOn = ["tool-error", "timeout"] } = options.retryByTool?.[step.tool] ?? options.retry ?? { attempts: 1 };
            for (let attempt = 1; ; attempt++) {
              modelCalls.push(`${step.tool}:${step.id}`);
              if (attempt > fails) {
                done.add(step.id);
                break;
              }
              if (attempt === refuseAt || attempt === attempts || !retryOn.includes("tool-error")) {
                failed.add(step.id);
                break;
              }
            }
          }
          expect(tally(localCalls)).toEqual(tally(modelCalls));
          const sorted = (ids: Iterable<number>): number[] => [...ids].sort((a, b) => a - b);
          expect([sorted(local.results.keys()), sorted(local.errors.keys()), sorted(local.skipped)]).toEqual([
            sorted(done),
            sorted(failed),
            plan.steps.map((step) => step.id).filter((id) => !done.has(id) && !failed.has(id)),
          ]);
          for (const [id, calls] of tally(modelCalls.map((call) => call.split(":")[1]!)))
            expect(local.attempts?.get(Number(id))).toBe(calls);
        }),
        { numRuns: 12 },
      );
    } finally {
      for (const child of fleet) child.child.kill("SIGTERM");
      await Promise.all(fleet.map((child) => child.exited));
    }
  });

  test("approval: the same suspended report (pending steps with their resolved arguments), and the same report after the same decisions", async () => {
    const plan = approvalPlan;
    const options = { approvalTools: ["add"] };
    const first = await runPlan(plan, tools, { ...options, concurrency: 8 });
    const runId = await submitPlan(plan, { connectionString: db.url, options });
    const remoteFirst = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
    expect(comparable(remoteFirst)).toEqual(comparable(first));
    expect(remoteFirst.status).toBe("suspended");
    const second = await resumePlan(plan, first, tools, { approve: [2], deny: { 5: "too expensive" } });
    // Denied first: approving first could let the run suspend again (on step 5) before the denial.
    await denyStep(runId, 5, "too expensive", { connectionString: db.url });
    await approveStep(runId, 2, { connectionString: db.url });
    const remoteSecond = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
    expect(decided(remoteSecond)).toEqual(decided(second));
    expect(remoteSecond.status).toBe("failed");
    expect(remoteSecond.errors.get(5)?.code).toBe("denied");
  });

  test("property: random plans and approval sets give the same reports round after round of approvals; no step that needs approval is called before it is approved, and none twice", async () => {
    const kinds = ["look", "pay", "mail"] as const;
    const calls: string[] = [];
    const counting = Object.fromEntries(
      kinds.map((kind) => [
        kind,
        (args: Record<string, unknown>, context: WorkerToolContext) => (calls.push(`${context.runId}:${context.stepId}`), args),
      ]),
    );
    const local = Object.fromEntries(kinds.map((kind) => [kind, (args: Record<string, unknown>) => args])) as ToolFunctions;
    const counter = await startWorker({ connectionString: db.url, tools: counting, concurrency: 4 });
    const planArb = fc.integer({ min: 1, max: 8 }).chain((n) =>
      fc.tuple(
        fc.subarray([...kinds], { minLength: 1 }),
        fc.tuple(
          ...Array.from({ length: n }, (_, i) =>
            fc.record({
              kind: fc.constantFrom(...kinds),
              deps: fc.subarray(
                Array.from({ length: i }, (_, j) => j + 1),
                { maxLength: Math.min(2, i) },
              ),
            }),
          ),
        ),
      ),
    );
    try {
      await fc.assert(
        fc.asyncProperty(planArb, async ([approvalTools, specs]) => {
          const plan = {
            steps: specs.map((spec, i) => ({
              id: i + 1,
              tool: spec.kind,
              args: Object.fromEntries([["me", i + 1], ...spec.deps.map((dep) => [`d${dep}`, `$${dep}.me`])]),
            })),
          };
          const runId = await submitPlan(plan, { connectionString: db.url, options: { approvalTools } });
          let report: RunReport = await runPlan(plan, local, { approvalTools, concurrency: 8 });
          const approved = new Set<number>();
          for (let round = 0; ; round++) {
            const remote = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
            expect(round === 0 ? comparable(remote) : decided(remote)).toEqual(round === 0 ? comparable(report) : decided(report));
            const called = calls.filter((call) => call.startsWith(`${runId}:`)).map((call) => Number(call.slice(runId.length + 1)));
            for (const [i, spec] of specs.entries()) {
              const count = called.filter((id) => id === i + 1).length;
              expect(count).toBeLessThanOrEqual(1);
              if (approvalTools.includes(spec.kind) && !approved.has(i + 1)) expect(count).toBe(0);
            }
            if (remote.status !== "suspended") break;
            const waiting = [...(remote.pending?.keys() ?? [])];
            for (const id of waiting) {
              await approveStep(runId, id, { connectionString: db.url });
              approved.add(id);
              await expect(approveStep(runId, id, { connectionString: db.url })).rejects.toBeInstanceOf(PostgresError);
            }
            report = await resumePlan(plan, report, local, { approvalTools, approve: waiting });
          }
        }),
        { numRuns: 12 },
      );
    } finally {
      await counter.stop();
    }
  });
});

/** A report after decisions: a resume times only what it ran, PostgreSQL every step of the run (so timings are left out). */
function decided(report: RunReport): unknown {
  const { timed: _timed, ...rest } = comparable(report) as { timed: unknown };
  return rest;
}

/** A report with the tries of each step (report.attempts, as sorted entries). */
function withAttempts(report: RunReport): unknown {
  return { ...(comparable(report) as object), attempts: [...(report.attempts ?? [])].sort((a, b) => a[0] - b[0]) };
}

/** How many times each entry occurs, as sorted entries. */
function tally(entries: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const entry of entries) counts.set(entry, (counts.get(entry) ?? 0) + 1);
  return [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1));
}
