/**
 * `toolConcurrency` in runPlan: at most N calls of a tool at once within the run, on top of
 * `concurrency`; a step over its tool's limit waits in plan order and holds no slot, so steps of other
 * tools go on. The tools here settle only when the test lets them (no clock): what overlaps is what
 * the scheduler allowed.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { runPlan, type RunOptions, type RunReport, type ToolContext, type ToolFunction } from "../../src/index.js";
import { randomPlan, TOOL_NAMES } from "../helpers/random-plans.js";

/** Tools whose calls wait until `settleNext` (or `settleAll`) lets them end; each tool's calls at once are counted. */
function heldTools(names: readonly string[]) {
  const started: number[] = [];
  const active = new Map<string, number>();
  const most = new Map<string, number>();
  const held: (() => void)[] = [];
  const tools: Record<string, ToolFunction> = {};
  for (const name of names) {
    tools[name] = (args: Record<string, unknown>, context: ToolContext) => {
      started.push(context.stepId);
      active.set(name, (active.get(name) ?? 0) + 1);
      most.set(name, Math.max(most.get(name) ?? 0, active.get(name)!));
      return new Promise((resolve) => {
        held.push(() => {
          active.set(name, active.get(name)! - 1);
          resolve({ step: context.stepId, n: args.n });
        });
      });
    };
  }
  /** Let the run go on until it waits for a tool (a macrotask: every promise job before it ran). */
  const idle = () => new Promise<void>((resolve) => setImmediate(resolve));
  /** End held calls one at a time, oldest first (or `pick` one), until the run is over. */
  const drive = async (running: Promise<RunReport>, pick: (count: number) => number = () => 0): Promise<RunReport> => {
    let over = false;
    void running.finally(() => (over = true));
    for (;;) {
      await idle();
      if (over || held.length === 0) break;
      held.splice(pick(held.length), 1)[0]!();
    }
    return running;
  };
  return { tools, started, most, held, idle, drive };
}

const independent = (tool: string, ids: readonly number[]) => ids.map((id) => ({ id, tool, args: { n: id } }));

describe("toolConcurrency", () => {
  test("never more than N calls of a limited tool at once, within concurrency; every step still runs", async () => {
    const tools = heldTools(["geocode"]);
    const report = await tools.drive(
      runPlan({ steps: independent("geocode", [1, 2, 3, 4, 5, 6]) }, tools.tools, { toolConcurrency: { geocode: 2 } }),
    );
    expect(report.status).toBe("ok");
    expect(tools.most.get("geocode")).toBe(2);
    expect(tools.started).toEqual([1, 2, 3, 4, 5, 6]);
    expect([...report.timings.steps.keys()].sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  test("a step waiting for its tool holds no slot: a ready step of another tool runs meanwhile", async () => {
    const tools = heldTools(["geocode", "weather"]);
    const steps = [...independent("geocode", [1, 2, 3]), ...independent("weather", [4, 5])];
    const running = runPlan({ steps }, tools.tools, { toolConcurrency: { geocode: 1 }, concurrency: 3 });
    await tools.idle();
    // geocode 1 runs, 2 and 3 wait for it without a slot, so both weather steps fill the other two.
    expect(tools.started).toEqual([1, 4, 5]);
    const report = await tools.drive(running);
    expect(report.status).toBe("ok");
    expect(tools.most).toEqual(
      new Map([
        ["geocode", 1],
        ["weather", 2],
      ]),
    );
  });

  test("steps waiting for a tool go in plan order, not in the order they became ready", async () => {
    const tools = heldTools(["geocode", "prepare"]);
    const steps = [
      { id: 1, tool: "geocode", args: { n: 1 } },
      { id: 2, tool: "prepare", args: { n: 2 } },
      { id: 3, tool: "geocode", args: { after: "$2" } }, // ready only once step 2 is done
      { id: 4, tool: "geocode", args: { n: 4 } }, // waits from the start
    ];
    const running = runPlan({ steps }, tools.tools, { toolConcurrency: { geocode: 1 } });
    await tools.idle();
    expect(tools.started).toEqual([1, 2]);
    tools.held.splice(1, 1)[0]!(); // step 2 ends: step 3 is ready, and waits for geocode after step 4 did
    await tools.idle();
    const report = await tools.drive(running);
    expect(report.status).toBe("ok");
    expect(tools.started).toEqual([1, 2, 3, 4]);
  });

  test("an abort while steps wait for their tool: they are skipped, never called, and the report comes at once", async () => {
    const tools = heldTools(["geocode"]);
    const controller = new AbortController();
    const running = runPlan({ steps: independent("geocode", [1, 2, 3]) }, tools.tools, {
      toolConcurrency: { geocode: 1 },
      signal: controller.signal,
    });
    await tools.idle();
    controller.abort();
    const report = await running;
    expect(report.status).toBe("aborted");
    expect(tools.started).toEqual([1]);
    expect(report.errors.get(1)?.code).toBe("aborted");
    expect(report.skipped.sort()).toEqual([2, 3]);
  });

  test("a tool's limit counts calls: a step waiting for approval, or to be tried again, holds none", async () => {
    const calls: number[] = [];
    let failed = false;
    const geocode = (args: Record<string, unknown>, context: ToolContext) => {
      calls.push(context.stepId);
      if (context.stepId === 1 && !failed) {
        failed = true;
        throw new Error("flaky");
      }
      return context.stepId;
    };
    const report = await runPlan(
      { steps: independent("geocode", [1, 2, 3]) },
      { geocode },
      {
        toolConcurrency: { geocode: 1 },
        retry: { attempts: 2, initialDelayMs: 0, jitter: "none" },
        needsApproval: (step) => step.id === 3,
      },
    );
    expect(report.status).toBe("suspended");
    expect(report.results).toEqual(
      new Map([
        [1, 1],
        [2, 2],
      ]),
    );
    expect(report.attempts).toEqual(
      new Map([
        [1, 2],
        [2, 1],
      ]),
    );
    expect(calls.sort()).toEqual([1, 1, 2]);
  });

  test("property: over random plans and limits, no tool has more calls at once than its limit, and the results are those of a run without limits", async () => {
    await fc.assert(
      fc.asyncProperty(
        randomPlan(10),
        fc.record({ fetch: fc.integer({ min: 1, max: 3 }), pay: fc.integer({ min: 1, max: 3 }) }, { requiredKeys: [] }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
        async (plan, toolConcurrency, concurrency, picks) => {
          const run = async (options: RunOptions) => {
            const tools = heldTools(TOOL_NAMES);
            let turn = 0;
            const report = await tools.drive(
              runPlan(plan, tools.tools, { concurrency, ...options }),
              (count) => picks[turn++ % picks.length]! % count,
            );
            return { report, most: tools.most };
          };
          const limited = await run({ toolConcurrency });
          const free = await run({});
          for (const [tool, limit] of Object.entries(toolConcurrency)) expect(limited.most.get(tool) ?? 0).toBeLessThanOrEqual(limit);
          for (const calls of limited.most.values()) expect(calls).toBeLessThanOrEqual(concurrency);
          expect(limited.report.status).toBe(free.report.status);
          expect(limited.report.results).toEqual(free.report.results);
          expect(limited.report.skipped).toEqual(free.report.skipped);
        },
      ),
      { numRuns: 60 },
    );
  });

  test("toolConcurrency is read with the other options: a bad limit is invalid-options before anything runs", async () => {
    const tools = heldTools(["geocode"]);
    await expect(runPlan({ steps: independent("geocode", [1]) }, tools.tools, { toolConcurrency: { geocode: 0 } })).rejects.toMatchObject({
      code: "invalid-options",
    });
    expect(tools.started).toEqual([]);
  });
});
