/**
 * Approval: a step that needs approval is not called when its turn comes; it waits in
 * `report.pending` with its resolved arguments, what does not depend on it goes on, and the run ends
 * `suspended`. `resumePlan` with `approve` runs it once, with `deny` fails it (`denied`); a step
 * neither approved nor denied waits again.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  reportFromJSON,
  reportToJSON,
  resumePlan,
  runPlan,
  type ApprovalRequest,
  type RunEvent,
  type RunOptions,
  type RunReport,
  type ToolFunctions,
} from "../../src/index.js";
import { denyCall, requireApproval } from "../../src/run/index.js";
import { ancestors, countingTools, randomPlan, TOOL_NAMES } from "../helpers/random-plans.js";

const plan = {
  steps: [
    { id: 1, tool: "lookup", args: { who: "ada" } },
    { id: 2, tool: "pay", args: { to: "$1.account", amount: 30 } },
    { id: 3, tool: "mail", args: { receipt: "$2" } },
    { id: 4, tool: "lookup", args: { who: "bob" } },
  ],
};

function tools(calls: number[]): ToolFunctions {
  const tool = (args: Record<string, unknown>, context: { stepId: number }): unknown => {
    calls.push(context.stepId);
    return context.stepId === 1 ? { account: "ACC-1" } : { done: context.stepId, args };
  };
  return { lookup: tool, pay: tool, mail: tool };
}

describe("approval", () => {
  test("approvalTools: the step is not called, waits with its resolved arguments; the rest goes on; the run is suspended", async () => {
    const calls: number[] = [];
    const events: RunEvent[] = [];
    const report = await runPlan(plan, tools(calls), { approvalTools: ["pay"], onEvent: (event) => events.push(event) });
    expect(report.status).toBe("suspended");
    expect(calls.sort()).toEqual([1, 4]);
    expect(report.pending).toEqual(new Map([[2, { tool: "pay", args: { to: "ACC-1", amount: 30 } }]]));
    // Its dependent neither ran, failed nor was skipped: it waits with it.
    expect(report.errors.size).toBe(0);
    expect(report.skipped).toEqual([]);
    expect(report.results.has(3)).toBe(false);
    expect(report.attempts?.has(2)).toBe(false);
    expect(report.timings.steps.has(2)).toBe(true); // the time it waited
    expect(events.filter((event) => event.type === "step-awaiting-approval")).toEqual([
      { type: "step-awaiting-approval", stepId: 2, tool: "pay", args: { to: "ACC-1", amount: 30 }, atMs: expect.any(Number) },
    ]);
    expect(events.some((event) => event.type === "step-start" && event.stepId === 2)).toBe(false);
    const json = reportToJSON(report);
    expect(json.status).toBe("suspended");
    expect(json.pending).toEqual({ 2: { tool: "pay", args: { to: "ACC-1", amount: 30 } } });
  });

  test("needsApproval is asked with the resolved arguments, as a value or a promise; false lets the step run", async () => {
    for (const wrap of [(value: boolean) => value, (value: boolean) => Promise.resolve(value)]) {
      const asked: ApprovalRequest[] = [];
      const calls: number[] = [];
      const report = await runPlan(plan, tools(calls), {
        needsApproval: (step) => {
          asked.push(step);
          return wrap(step.tool === "pay" && (step.args.amount as number) > 10);
        },
      });
      expect(asked.map((step) => step.id).sort()).toEqual([1, 2, 4]);
      expect(asked.find((step) => step.id === 2)).toEqual({ id: 2, tool: "pay", args: { to: "ACC-1", amount: 30 } });
      expect(calls.sort()).toEqual([1, 4]);
      expect(report.status).toBe("suspended");
      expect([...report.pending!.keys()]).toEqual([2]);
    }
  });

  test("a step asked about is resolved once: the result it reads is read as often as without needsApproval, and a copy is asked about", async () => {
    // Step 1's result is a Proxy that counts every read of it: each resolution of "$1.city" reads it.
    const reads = async (options: RunOptions): Promise<{ count: number; args: unknown }> => {
      let count = 0;
      const counted = new Proxy(
        { city: "Paris" },
        {
          getOwnPropertyDescriptor: (target, key) => (count++, Reflect.getOwnPropertyDescriptor(target, key)),
          getPrototypeOf: (target) => (count++, Reflect.getPrototypeOf(target)),
        },
      );
      let args: unknown;
      const report = await runPlan(
        {
          steps: [
            { id: 1, tool: "geo", args: {} },
            { id: 2, tool: "say", args: { at: "$1.city", n: 1 } },
          ],
        },
        { geo: () => counted, say: (given) => (args = given) },
        options,
      );
      expect(report.status).toBe("ok");
      return { count, args };
    };
    const plain = await reads({});
    for (const needsApproval of [() => false, () => Promise.resolve(false)]) {
      const asked = await reads({
        needsApproval: (step) => {
          step.args.n = 2; // its own copy: the tool still gets what the plan gave
          return needsApproval();
        },
      });
      expect(asked).toEqual(plain);
    }
    expect(plain.args).toEqual({ at: "Paris", n: 1 });
  });

  test("arguments that cannot be resolved are not asked about: the step fails unresolved-args once, its tool not called, as without needsApproval", async () => {
    const twoPlaceholders = {
      steps: [
        { id: 1, tool: "lookup", args: { who: "ada" } },
        { id: 2, tool: "pay", args: { to: "$1.account", from: "$1.missing" } },
      ],
    };
    const asked: number[] = [];
    for (const options of [{}, { needsApproval: (step: ApprovalRequest) => (asked.push(step.id), false) }, { approvalTools: ["pay"] }]) {
      const calls: number[] = [];
      const report = await runPlan(twoPlaceholders, tools(calls), options);
      expect(calls).toEqual([1]);
      expect(report.status).toBe("failed");
      expect(report.errors.get(2)?.code).toBe("unresolved-args");
      expect(report.errors.get(2)?.message).toContain("missing");
      expect(report.attempts?.get(2)).toBe(1);
      expect(report.pending?.size).toBe(0);
    }
    expect(asked).toEqual([1]);
  });

  test("a needsApproval that throws or rejects fails the step (denied) without calling it; its dependents are skipped", async () => {
    for (const needsApproval of [
      () => {
        throw new Error("no policy");
      },
      () => Promise.reject(new Error("no policy")),
    ] as const) {
      const calls: number[] = [];
      const report = await runPlan(plan, tools(calls), { needsApproval: (step) => (step.id === 2 ? needsApproval() : false) });
      expect(calls.sort()).toEqual([1, 4]);
      expect(report.status).toBe("failed");
      expect(report.errors.get(2)).toMatchObject({ code: "denied", message: expect.stringContaining("no policy") });
      expect(report.skipped).toEqual([3]);
    }
  });

  describe("a tool's rule that denies the call (denyCall)", () => {
    const deny = (): unknown => denyCall("blocked by policy");
    const later = (value: unknown): Promise<unknown> => Promise.resolve(value);
    test.each<[string, () => unknown, (() => boolean | Promise<boolean>) | undefined]>([
      ["the rule denies", deny, undefined],
      ["the rule's promise denies", () => later(deny()), undefined],
      ["the rule denies while needsApproval holds it: nobody is asked", deny, () => true],
      ["the rule denies while needsApproval's promise holds it", deny, () => Promise.resolve(true)],
      ["the rule's promise denies while needsApproval holds it at once", () => later(deny()), () => true],
    ])(
      "%s: the step fails denied with the reason, uncalled; its dependents are skipped; nothing waits",
      async (_name, rule, needsApproval) => {
        const calls: number[] = [];
        const gated = { ...tools(calls), pay: requireApproval(tools(calls).pay!, (args) => (args.amount === 30 ? rule() : false)) };
        const report = await runPlan(
          plan,
          gated,
          needsApproval === undefined ? {} : { needsApproval: (step) => step.id === 2 && needsApproval() },
        );
        expect(calls.sort()).toEqual([1, 4]);
        expect(report.status).toBe("failed");
        expect(report.errors.get(2)).toMatchObject({
          code: "denied",
          message: expect.stringContaining("its approval was denied: blocked by policy"),
        });
        expect(report.pending?.size ?? 0).toBe(0);
        expect(report.skipped).toEqual([3]);
      },
    );

    test("an object that only looks like a denial is an ordinary truthy answer: the step waits", async () => {
      const calls: number[] = [];
      const gated = { ...tools(calls), pay: requireApproval(tools(calls).pay!, () => ({ reason: "blocked by policy" })) };
      const report = await runPlan(plan, gated);
      expect(report.status).toBe("suspended");
      expect([...(report.pending?.keys() ?? [])]).toEqual([2]);
      expect(report.errors.size).toBe(0);
    });
  });

  test("a waiting step holds no concurrency slot", async () => {
    const calls: number[] = [];
    const report = await runPlan(
      {
        steps: [
          { id: 1, tool: "pay", args: {} },
          { id: 2, tool: "lookup", args: {} },
          { id: 3, tool: "lookup", args: {} },
        ],
      },
      tools(calls),
      { concurrency: 1, approvalTools: ["pay"] },
    );
    expect(calls).toEqual([2, 3]);
    expect(report.status).toBe("suspended");
  });

  test("an abort keeps the waiting steps waiting (the report still says what to approve); failFast stops as before", async () => {
    const controller = new AbortController();
    // Step 4 aborts the run once the pump that made step 2 wait is over.
    const hanging: ToolFunctions = {
      ...tools([]),
      lookup: (_args, context) => (context.stepId === 4 ? new Promise(() => queueMicrotask(() => controller.abort())) : { account: "A" }),
    };
    const aborted = await runPlan(plan, hanging, { approvalTools: ["pay"], signal: controller.signal });
    expect(aborted.status).toBe("aborted");
    expect([...aborted.pending!.keys()]).toEqual([2]);
    const failing: ToolFunctions = {
      ...tools([]),
      lookup: (_args, context) => {
        if (context.stepId === 4) throw new Error("down");
        return { account: "A" };
      },
    };
    const stopped = await runPlan(plan, failing, { approvalTools: ["pay"], failFast: true, concurrency: 1 });
    expect(stopped.status).toBe("failed");
  });

  test("resumePlan approve runs the waiting step and what waited on it; approving twice runs it once", async () => {
    const first = await runPlan(plan, tools([]), { approvalTools: ["pay"] });
    const calls: number[] = [];
    const second = await resumePlan(plan, first, tools(calls), { approve: [2], approvalTools: ["pay"] });
    expect(calls.sort()).toEqual([2, 3]);
    expect(second.status).toBe("ok");
    expect(second.pending?.size).toBe(0);
    // Step 2 no longer waits: approving it again is refused, and nothing runs.
    const again: number[] = [];
    await expect(resumePlan(plan, second, tools(again), { approve: [2] })).rejects.toMatchObject({ code: "not-awaiting-approval" });
    expect(again).toEqual([]);
    const third = await resumePlan(plan, second, tools(again));
    expect(again).toEqual([]);
    expect(third.status).toBe("ok");
    expect(third.reused).toEqual([1, 2, 3, 4]);
  });

  test("resumePlan deny fails the step with denied and the reason; its dependents are skipped", async () => {
    const first = await runPlan(plan, tools([]), { approvalTools: ["pay"] });
    const calls: number[] = [];
    const report = await resumePlan(plan, reportToJSON(first), tools(calls), { deny: { 2: "too expensive\n\u001b[2J" } });
    expect(calls).toEqual([]);
    expect(report.status).toBe("failed");
    expect(report.errors.get(2)?.code).toBe("denied");
    expect(report.errors.get(2)?.message).toBe("step 2 (pay): its approval was denied: too expensive\\n\\u001b[2J");
    expect(report.skipped).toEqual([3]);
    expect(report.pending?.size).toBe(0);
  });

  test("a waiting step neither approved nor denied waits again, even without the approval options", async () => {
    const first = await runPlan(plan, tools([]), { needsApproval: (step) => step.tool === "pay" });
    const calls: number[] = [];
    const report = await resumePlan(plan, JSON.stringify(reportToJSON(first)), tools(calls));
    expect(calls).toEqual([]);
    expect(report.status).toBe("suspended");
    expect(report.pending).toEqual(first.pending);
  });

  test.each([
    ["deep", { to: { address: "$1.email" } }, { deep: true }],
    ["templates", { to: "mail ${1.email}" }, { templates: true }],
    ["syntax", { to: '$1.email ?? "x"' }, { syntax: "seed" }],
  ] as const)(
    "a resume whose %s option would change the approved arguments is plan-mismatch: nothing runs",
    async (_name, args, options) => {
      const changing = {
        steps: [
          { id: 1, tool: "lookup", args: {} },
          { id: 2, tool: "send", args },
        ],
      };
      const sent: unknown[] = [];
      const gated: ToolFunctions = { lookup: () => ({ email: "ops@example.com" }), send: (given) => void sent.push(given) };
      const start =
        options === undefined ? {} : Object.fromEntries(Object.keys(options).map((key) => [key, key === "syntax" ? "path" : false]));
      const first = await runPlan(changing, gated, { ...start, approvalTools: ["send"] });
      const shown = first.pending!.get(2)!.args;
      for (const previous of [first, reportToJSON(first)]) {
        await expect(resumePlan(changing, previous, gated, { approve: [2], ...options })).rejects.toMatchObject({ code: "plan-mismatch" });
      }
      expect(sent).toEqual([]);
      const approved = await resumePlan(changing, reportToJSON(first), gated, { ...start, approve: [2] });
      expect(approved.status).toBe("ok");
      expect(sent).toEqual([shown]);
    },
  );

  test("a resume whose reused result differs from the one the approved arguments came from is plan-mismatch", async () => {
    const sent: unknown[] = [];
    const plan2 = {
      steps: [
        { id: 1, tool: "lookup", args: {} },
        { id: 2, tool: "send", args: { to: "$1.email" } },
      ],
    };
    const gated: ToolFunctions = { lookup: () => ({ email: "ops@example.com" }), send: (given) => void sent.push(given) };
    const json = reportToJSON(await runPlan(plan2, gated, { approvalTools: ["send"] }));
    const tampered = { ...json, results: { "1": { email: "attacker@example.com" } } };
    await expect(resumePlan(plan2, tampered, gated, { approve: [2] })).rejects.toMatchObject({ code: "plan-mismatch" });
    expect(sent).toEqual([]);
  });

  test("approve and deny are checked before anything runs", async () => {
    const first = await runPlan(plan, tools([]), { approvalTools: ["pay"] });
    const calls: number[] = [];
    for (const options of [
      { approve: [9] },
      { deny: { 9: "no" } },
      { approve: [2], deny: { 2: "no" } },
      { deny: { 1: "no" } },
      { approve: ["2"] },
      { approve: 2 },
      { deny: { 2: 3 } },
      { deny: [] },
    ]) {
      await expect(resumePlan(plan, first, tools(calls), options as never)).rejects.toMatchObject({ code: "invalid-options" });
    }
    expect(calls).toEqual([]);
    for (const options of [{ approvalTools: "pay" }, { approvalTools: [1] }, { needsApproval: true }]) {
      await expect(runPlan(plan, tools(calls), options as never)).rejects.toMatchObject({ code: "invalid-options" });
    }
    expect(calls).toEqual([]);
  });

  test("property: over random plans and approval sets, no step that needs approval is ever called without one", async () => {
    await fc.assert(
      fc.asyncProperty(
        randomPlan(),
        fc.subarray([...TOOL_NAMES]),
        fc.array(fc.integer({ min: 1, max: 10 }), { maxLength: 5 }),
        fc.array(fc.array(fc.integer({ min: 1, max: 10 }), { maxLength: 4 }), { maxLength: 3 }),
        fc.boolean(),
        async (random, approvalTools, askFor, rounds, asJSON) => {
          const asked = new Set(askFor);
          const needs = (id: number): boolean => approvalTools.includes(random.steps[id - 1]!.tool) || asked.has(id);
          const options = { approvalTools, needsApproval: (step: ApprovalRequest) => Promise.resolve(asked.has(step.id)) };
          let approved = new Set<number>();
          const called = new Map<number, number>();
          const check = (calls: Map<number, number>): void => {
            for (const [id, count] of calls) {
              called.set(id, (called.get(id) ?? 0) + count);
              if (needs(id)) expect(approved.has(id)).toBe(true);
              expect(called.get(id)).toBe(1); // approving again never runs a step twice
            }
          };
          const first = countingTools();
          let report: RunReport = await runPlan(random, first.tools, options);
          check(first.calls);
          for (const step of random.steps) {
            const waits = [...ancestors(random, step.id), step.id].some(needs);
            expect(report.results.has(step.id)).toBe(!waits);
          }
          for (const round of rounds) {
            // An approval holds for the run it is given to.
            // Only a waiting step can be approved: any other id is refused before anything runs.
            const stray = round.find((id) => id <= random.steps.length && report.pending?.has(id) !== true);
            if (stray !== undefined) {
              const refused = countingTools();
              await expect(
                resumePlan(random, asJSON ? reportToJSON(report) : report, refused.tools, { ...options, approve: [stray] }),
              ).rejects.toMatchObject({ code: "not-awaiting-approval" });
              expect(refused.calls.size).toBe(0);
            }
            const approve = round.filter((id) => report.pending?.has(id) === true);
            approved = new Set(approve);
            const next = countingTools();
            report = await resumePlan(random, asJSON ? reportToJSON(report) : report, next.tools, { ...options, approve });
            check(next.calls);
            expect(report.status).toBe(report.pending!.size > 0 ? "suspended" : "ok");
            for (const id of report.pending!.keys()) expect(approved.has(id)).toBe(false);
          }
          expect(reportToJSON(reportFromJSON(reportToJSON(report)))).toEqual(reportToJSON(report));
        },
      ),
      { numRuns: 80 },
    );
  });
});
