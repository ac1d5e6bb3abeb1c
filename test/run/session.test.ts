/**
 * Plan sessions: a later plan refers to an earlier plan's results by step id, linted as references to
 * its own steps; the session is bounded, saved and restored; and running plans one after another in a
 * session gives every step the arguments it would get in the one plan made of them all.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { lintPlan } from "../../src/lint/index.js";
import { createPlanSession, resumePlan, runPlan, type ToolFunctions } from "../../src/run/index.js";

const catalog = {
  search: {
    input: { type: "object", properties: { q: { type: "string" } } },
    output: { type: "object", properties: { hits: { type: "array" }, total: { type: "number" } }, additionalProperties: false },
  },
  count: { input: { type: "object", properties: { n: { type: "number" } } } },
  echo: { input: { type: "object" } },
};

function tools(seen: unknown[]): ToolFunctions {
  return {
    search: ({ q }) => ({ hits: [`${String(q)}-a`, `${String(q)}-b`], total: 2 }),
    count: (args) => (seen.push(args), (args as { n: unknown[] }).n),
    // What it was called with, as JSON: the same arguments whether a result came from this run or from the session's JSON.
    echo: (args, context) => (seen.push({ step: context.stepId, args: JSON.parse(JSON.stringify(args)) as unknown }), args),
  };
}

describe("a plan session", () => {
  test("a later plan uses an earlier plan's result by its id: the tool gets the whole value, the report only this plan's", async () => {
    const session = createPlanSession();
    const seen: unknown[] = [];
    const first = await runPlan({ steps: [{ id: 1, tool: "search", args: { q: "pumps" } }] }, tools(seen), { catalog, session });
    expect(first.status).toBe("ok");
    expect(session.nextStepId).toBe(2);
    const second = await runPlan({ steps: [{ id: 2, tool: "echo", args: { hits: "$1.hits" } }] }, tools(seen), { catalog, session });
    expect(second.status).toBe("ok");
    expect(seen).toEqual([{ step: 2, args: { hits: ["pumps-a", "pumps-b"] } }]);
    expect([...second.results.keys()]).toEqual([2]);
    expect(session.nextStepId).toBe(3);
  });

  test.each([
    ["found", { steps: [{ id: 5, tool: "echo", args: { h: "$1.hits" } }] }, []],
    [
      "a key typo: did-you-mean from the producing tool's output schema",
      { steps: [{ id: 5, tool: "echo", args: { h: "$1.hitz" } }] },
      [{ code: "unknown-key", message: expect.stringContaining(`did you mean "hits"?`) as string }],
    ],
    [
      "a type mismatch against the next tool's input",
      { steps: [{ id: 5, tool: "count", args: { n: "$1.hits" } }] },
      [{ code: "type-mismatch" }],
    ],
    [
      "an id an earlier plan used",
      { steps: [{ id: 1, tool: "echo", args: {} }] },
      [
        {
          code: "duplicate-step-id",
          message:
            "step id 1 is already step 1 (search) of plan 2 of this session: ids are never reused in a session; number this plan's steps from 3",
        },
      ],
    ],
    [
      "a dropped result",
      { steps: [{ id: 5, tool: "echo", args: { h: "$2.hits" } }] },
      [
        {
          code: "unknown-step",
          message: expect.stringContaining("it was dropped from the session: the session keeps at most 1 results (maxResults)") as string,
        },
      ],
    ],
    ["a step no plan had", { steps: [{ id: 5, tool: "echo", args: { h: "$9" } }] }, [{ code: "unknown-step" }]],
  ])("lint of a reference to an earlier step: %s", async (_name, plan, expected) => {
    const session = createPlanSession({ maxResults: 1 });
    await runPlan({ steps: [{ id: 2, tool: "search", args: { q: "old" } }] }, tools([]), { catalog, session });
    await runPlan({ steps: [{ id: 1, tool: "search", args: { q: "new" } }] }, tools([]), { catalog, session });
    const errors = lintPlan(plan, { tools: catalog, earlierSteps: session.earlier() }).filter(
      (diagnostic) => diagnostic.severity === "error",
    );
    expect(errors).toEqual(expected.map((row) => expect.objectContaining(row)));
    const report = await runPlan(plan, tools([]), { catalog, session });
    expect(report.status).toBe(expected.length === 0 ? "ok" : "invalid");
  });

  test("save and restore: a new request goes on with the results; the restored values are plain data", async () => {
    const session = createPlanSession();
    await runPlan({ steps: [{ id: 1, tool: "search", args: { q: "x" } }] }, tools([]), { catalog, session });
    const restored = createPlanSession({ restore: JSON.parse(JSON.stringify(session.save())) });
    expect(restored.nextStepId).toBe(2);
    const seen: unknown[] = [];
    await runPlan({ steps: [{ id: 2, tool: "echo", args: { t: "$1.total" } }] }, tools(seen), { catalog, session: restored });
    expect(seen).toEqual([{ step: 2, args: { t: 2 } }]);
    for (const bad of [
      null,
      { version: 2 },
      { version: 1, nextStepId: 0, plans: 0, results: [], forgotten: [] },
      { version: 1, nextStepId: 2, plans: 1, results: [{ id: 5, tool: "x", value: 1, at: 0, plan: 1 }], forgotten: [] },
    ]) {
      expect(() => createPlanSession({ restore: bad })).toThrow(expect.objectContaining({ code: "invalid-options" }));
    }
    const hostile = JSON.parse(
      '{"version":1,"nextStepId":2,"plans":1,"results":[{"id":1,"tool":"t","value":{"__proto__":{"polluted":true}},"at":0,"plan":1}],"forgotten":[]}',
    ) as unknown;
    const safe = createPlanSession({ restore: hostile });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.getPrototypeOf(safe.get(1)!.value)).toBe(Object.prototype);
  });

  test("bounded by bytes and by time: the oldest go first, and a reference says why", async () => {
    let now = 0;
    const session = createPlanSession({ maxBytes: 60, ttlMs: 1_000, now: () => now });
    await runPlan({ steps: [{ id: 1, tool: "search", args: { q: "aaaaaaaaaa" } }] }, tools([]), { catalog, session });
    await runPlan({ steps: [{ id: 2, tool: "search", args: { q: "bbbbbbbbbb" } }] }, tools([]), { catalog, session });
    expect(session.earlier().forgotten.get(1)).toContain("maxBytes");
    now = 5_000;
    expect(session.size).toBe(0);
    expect(session.earlier().forgotten.get(2)).toContain("ttlMs");
  });

  test("a resume in a session: the approved step's arguments came from the earlier plan's result", async () => {
    const session = createPlanSession();
    const seen: unknown[] = [];
    await runPlan({ steps: [{ id: 1, tool: "search", args: { q: "x" } }] }, tools(seen), { catalog, session });
    const plan = { steps: [{ id: 2, tool: "echo", args: { total: "$1.total" } }] };
    const first = await runPlan(plan, tools(seen), { catalog, session, approvalTools: ["echo"] });
    expect(first.status).toBe("suspended");
    expect(first.pending?.get(2)?.args).toEqual({ total: 2 });
    const second = await resumePlan(plan, first, tools(seen), { catalog, session, approve: [2] });
    expect(second.status).toBe("ok");
    expect(seen).toEqual([{ step: 2, args: { total: 2 } }]);
  });

  test("a resume in a session whose earlier result changed since the approval: plan-mismatch, nothing run", async () => {
    const session = createPlanSession();
    const seen: unknown[] = [];
    await runPlan({ steps: [{ id: 1, tool: "search", args: { q: "x" } }] }, tools(seen), { catalog, session });
    const plan = { steps: [{ id: 2, tool: "echo", args: { total: "$1.total" } }] };
    const first = await runPlan(plan, tools(seen), { catalog, session, approvalTools: ["echo"] });
    expect(first.pending?.get(2)?.args).toEqual({ total: 2 });
    // The next request restores a session in which step 1's result is another: what was approved is no longer what would run.
    const saved = session.save();
    const changed = createPlanSession({
      restore: {
        ...saved,
        results: saved.results.map((result) => (result.id === 1 ? { ...result, value: { hits: [], total: 7 } } : result)),
      },
    });
    await expect(resumePlan(plan, first, tools(seen), { catalog, session: changed, approve: [2] })).rejects.toMatchObject({
      code: "plan-mismatch",
      message: expect.stringContaining("step 2 was approved with the arguments") as string,
    });
    expect(seen).toEqual([]);
  });

  test.each([
    ["dropped from the session", { maxResults: 1 }, "it was dropped from the session"],
    ["a session without it (another conversation's)", undefined, "refers to step 1, which is not in the plan"],
  ])("a resume in a session that lacks the earlier result (%s): says which step it lacks, nothing run", async (_name, limits, says) => {
    const session = createPlanSession(limits ?? {});
    const seen: unknown[] = [];
    await runPlan({ steps: [{ id: 1, tool: "search", args: { q: "x" } }] }, tools(seen), { catalog, session });
    const plan = { steps: [{ id: 5, tool: "echo", args: { total: "$1.total" } }] };
    const first = await runPlan(plan, tools(seen), { catalog, session, approvalTools: ["echo"] });
    expect(first.status).toBe("suspended");
    // maxResults 1: a later plan's result pushes step 1 out; otherwise the resume comes with a fresh session.
    if (limits !== undefined) await runPlan({ steps: [{ id: 9, tool: "search", args: { q: "y" } }] }, tools(seen), { catalog, session });
    const resumedIn = limits === undefined ? createPlanSession() : session;
    const second = await resumePlan(plan, first, tools(seen), { catalog, session: resumedIn, approve: [5] });
    expect(second.status).toBe("invalid");
    expect(second.diagnostics).toEqual([
      expect.objectContaining({ code: "unknown-step", pointer: "/steps/0/args/total", message: expect.stringContaining(says) as string }),
    ]);
    expect(seen).toEqual([]);
  });

  test("property: plans run one after another in a session give each step the arguments of the one plan made of them all", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
        async (sizes, picks) => {
          // Step i echoes a reference to an earlier step (or a constant): any earlier step, of this plan or an earlier one.
          const steps = [];
          let id = 1;
          for (const size of sizes) {
            const plan = [];
            for (let i = 0; i < size; i++, id++)
              plan.push({ id, tool: "echo", args: id === 1 ? { v: "first" } : { v: `$${1 + (picks[id % picks.length]! % (id - 1))}` } });
            steps.push(plan);
          }
          const whole: unknown[] = [];
          await runPlan({ steps: steps.flat() }, tools(whole), { catalog });
          const inSession: unknown[] = [];
          const session = createPlanSession();
          for (const plan of steps) expect((await runPlan({ steps: plan }, tools(inSession), { catalog, session })).status).toBe("ok");
          const byStep = (seen: unknown[]) => [...(seen as { step: number }[])].sort((a, b) => a.step - b.step);
          expect(byStep(inSession)).toEqual(byStep(whole));
        },
      ),
      { numRuns: 40 },
    );
  });
});
