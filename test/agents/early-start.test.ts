/**
 * The early start of a plan call, framework aside: which steps start before the plan is whole (the
 * safety rule), and how the whole plan's run reuses them. Tools are plain functions the test resolves.
 */
import { describe, expect, test } from "vitest";
import { EarlyPlanCall, earlyRule, readInputIdleMs } from "../../src/agents/early-start.js";
import { readPlanCallOptions, type PlanCallOptions } from "../../src/agents/plan-call.js";
import { readTools, type ToolCatalog } from "../../src/plan/plan.js";
import { requireApproval } from "../../src/step/gated.js";
import type { ToolFunction } from "../../src/run/run-plan.js";

/** Tools that record each call and answer `{ a: "<tool>:<q>" }` at once. */
function recordingTools(names: readonly string[]) {
  const calls: string[] = [];
  const tools: Record<string, ToolFunction> = {};
  for (const name of names) tools[name] = (args) => (calls.push(`${name} ${String(args.q)}`), { a: `${name}:${String(args.q)}` });
  return { tools, calls };
}

const step = (id: number, tool: string, q: unknown): string => JSON.stringify({ id, tool, args: { q } });
const catalog: ToolCatalog = {
  search: {
    readOnly: true,
    input: { type: "object", properties: { q: { type: "string" } } },
    output: { type: "object", properties: { a: { type: "string" } } },
  },
  book: { input: { type: "object", properties: { q: { type: "string" } } } },
};

/** Feed the text in one piece per step, let the early run start, and give the tools' calls so far. */
async function started(early: EarlyPlanCall, calls: string[], ...pieces: string[]): Promise<string[]> {
  for (const piece of pieces) early.feed(piece);
  // The early run starts a step in the microtasks after its piece; a macrotask later it has.
  await new Promise((resolve) => setImmediate(resolve));
  return [...calls];
}

function make(names: readonly string[], options: PlanCallOptions = {}, tools?: Record<string, ToolFunction>) {
  const recorded = recordingTools(names);
  const call = { tools: tools ?? recorded.tools, catalog, runId: "r" };
  const early = new EarlyPlanCall(call, readPlanCallOptions(options), earlyRule(catalog, undefined)!);
  return { early, calls: recorded.calls };
}

describe("which steps start early", () => {
  test("a readOnly tool's step starts; a step of another tool, and a step referencing one that waits, do not", async () => {
    const { early, calls } = make(["search", "book"]);
    const text = `{"steps":[${step(1, "search", "x")},${step(2, "book", "$1.a")},${step(3, "search", "$2.a")},${step(4, "search", "$1.a")}]}`;
    expect(await started(early, calls, text.slice(0, -2))).toEqual(["search x", "search search:x"]);
    expect(early.started).toEqual([1, 4]);
    const answer = await early.join(JSON.parse(text));
    expect(answer).toEqual({
      status: "ok",
      results: { "1": { a: "search:x" }, "2": { a: "book:search:x" }, "3": { a: "search:book:search:x" }, "4": { a: "search:search:x" } },
    });
    expect(calls).toEqual(["search x", "search search:x", "book search:x", "search book:search:x"]);
  });

  test("a chain of early steps starts link by link, however deep (each linted against what it references)", async () => {
    const { early, calls } = make(["search"]);
    const pieces = [
      `[${step(1, "search", "x")}`,
      `,${step(2, "search", "$1.a")}`,
      `,${step(3, "search", "$2.a")}`,
      `,${step(4, "search", "$3.a")}`,
    ];
    expect(await started(early, calls, ...pieces)).toEqual([
      "search x",
      "search search:x",
      "search search:search:x",
      "search search:search:search:x",
    ]);
    expect(early.started).toEqual([1, 2, 3, 4]);
  });

  test("a step that lints with errors against what it references does not start early", async () => {
    const { early, calls } = make(["search"]);
    expect(await started(early, calls, `[${step(1, "search", "x")},${step(2, "search", "$1.nope")}`)).toEqual(["search x"]);
  });

  test.each([
    ["the plan's options come first", `{"options":{"syntax":"path"},"steps":[${step(1, "search", "x")}`, {}],
    ["a needsApproval callback may hold any step", `[${step(1, "search", "x")}`, { needsApproval: () => false }],
    ["approvalTools names the tool", `[${step(1, "search", "x")}`, { approvalTools: ["search"] }],
  ] as const)("nothing starts early when %s", async (_, text, options) => {
    const { early, calls } = make(["search"], options);
    expect(await started(early, calls, text)).toEqual([]);
  });

  test("a tool marked requireApproval never starts early", async () => {
    const { tools, calls } = recordingTools(["search"]);
    const { early } = make(["search"], {}, { search: requireApproval(tools.search!) });
    expect(await started(early, calls, `[${step(1, "search", "x")}`)).toEqual([]);
  });

  test("a step the whole plan gives other arguments runs again with those (the early result is not reused)", async () => {
    const { early, calls } = make(["search"]);
    await started(early, calls, `[${step(1, "search", "x")}`);
    expect(await early.join([JSON.parse(step(1, "search", "y"))])).toEqual({ status: "ok", results: { "1": { a: "search:y" } } });
    expect(calls).toEqual(["search x", "search y"]);
  });

  test("text that cannot be a plan stops the early steps at once (no execute will come)", async () => {
    let signal: AbortSignal | undefined;
    const tools: Record<string, ToolFunction> = { search: (_args, context) => new Promise(() => void (signal = context.signal)) };
    const early = new EarlyPlanCall({ tools, catalog, runId: "r" }, readPlanCallOptions({}), () => true);
    early.feed(`[${step(1, "search", "x")}`);
    await new Promise((resolve) => setImmediate(resolve));
    early.feed(", oops]");
    expect(signal?.aborted).toBe(true);
  });

  test("an early step that failed keeps its failure in the whole run: its tool is not called again, its dependents are skipped", async () => {
    const calls: string[] = [];
    const tools: Record<string, ToolFunction> = {
      search: (args) => {
        calls.push(String(args.q));
        throw new Error("search is down");
      },
      book: () => "booked",
    };
    const early = new EarlyPlanCall({ tools, catalog, runId: "r" }, readPlanCallOptions({}), (tool) => tool === "search");
    const text = `[${step(1, "search", "x")},${step(2, "book", "$1.a")}]`;
    early.feed(text);
    await new Promise((resolve) => setImmediate(resolve));
    const answer = await early.join(JSON.parse(text));
    expect(answer).toEqual({
      status: "failed",
      results: {},
      errors: { "1": { code: "tool-error", message: "step 1 (search): the tool threw: search is down" } },
      skipped: [2],
    });
    expect(calls).toEqual(["x"]);
  });

  test("abort: a started tool's signal fires and nothing more starts", async () => {
    let signal: AbortSignal | undefined;
    const tools: Record<string, ToolFunction> = { search: (_args, context) => new Promise(() => void (signal = context.signal)) };
    const early = new EarlyPlanCall({ tools, catalog, runId: "r" }, readPlanCallOptions({}), () => true);
    early.feed(`[${step(1, "search", "x")}`);
    await new Promise((resolve) => setImmediate(resolve));
    early.abort("the request was aborted");
    expect(signal?.aborted).toBe(true);
    const outcome = await early.settled();
    expect(outcome !== undefined && "report" in outcome ? outcome.report.status : undefined).toBe("aborted");
    early.feed(`,${step(2, "search", "y")}]`);
    expect(early.started).toEqual([1]);
  });
});

describe("the settings of early starts", () => {
  test("readOnly in a catalog: a boolean, else a problem at its place", () => {
    const problems: string[] = [];
    readTools({ a: { readOnly: true }, b: { readOnly: "yes" } }, (pointer, message) => void problems.push(`${pointer} ${message}`));
    expect(problems).toEqual([`/tools/b/readOnly "readOnly" must be true or false`]);
  });

  test.each([[0], [1.5], ["5"], [2 ** 31]])("inputIdleMs %s is refused", (value) => {
    expect(() => readInputIdleMs(value)).toThrow(/inputIdleMs must be a whole number of milliseconds/);
  });
});
