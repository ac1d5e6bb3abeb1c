/**
 * planTool's early start under the AI SDK's own streamText, driven by its test model (ai 6's
 * MockLanguageModelV3): the test writes the model's stream chunk by chunk and resolves the tools
 * itself, so every assertion is about the order of events (which chunk had arrived when a tool
 * started), never about the clock.
 */
import { generateText, stepCountIs, streamText, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { planTool, type PlanCallResult } from "../../src/ai-sdk/index.js";
import { earlyRule } from "../../src/agents/early-start.js";
import { createPlanSession } from "../../src/run/session.js";
import { controlledTools, ModelStream, step, usage } from "./model-stream.js";

describe("planTool({ startEarly }) under streamText", () => {
  test("a read-only step starts when its closing brace arrives, before the plan is whole; execute joins that run (each tool called once)", async () => {
    const stream = new ModelStream();
    const { tools, calls, started } = controlledTools(stream, ["search", "read", "book"]);
    const run_plan = planTool(tools, { startEarly: ["search", "read"] });
    const result = streamText({ model: stream.model, tools: { run_plan }, stopWhen: stepCountIs(1), prompt: "p" });
    const consumed = result.consumeStream();
    await stream.write({ type: "stream-start", warnings: [] }, { type: "tool-input-start", id: "c1", toolName: "run_plan" });
    await stream.input("c1", '{"steps":[', step(1, "search", "x").slice(0, 20), step(1, "search", "x").slice(20));
    const writtenAtBrace = stream.written;
    const search = await started("search");
    expect(search.chunk).toBe(writtenAtBrace); // started by the chunk that closed step 1, nothing after it
    await stream.input("c1", `,${step(2, "read", "$1.a")}`);
    search.finish({ a: "found" });
    const read = await started("read");
    expect(read.args).toEqual({ q: "found" });
    await stream.input("c1", `,${step(3, "book", "$2.a")}]}`);
    read.finish({ a: "page" });
    // book is not read-only: it waits for the whole plan.
    expect(calls.get("book")).toHaveLength(0);
    const text = `{"steps":[${step(1, "search", "x")},${step(2, "read", "$1.a")},${step(3, "book", "$2.a")}]}`;
    // The SDK calls execute once the model's step has finished.
    await stream.finishCall("c1", text);
    await stream.end();
    const book = await started("book");
    expect(book.args).toEqual({ q: "page" });
    book.finish({ a: "booked" });
    await consumed;
    const [toolResult] = await result.toolResults;
    expect(toolResult!.output).toEqual({ status: "ok", results: { "1": { a: "found" }, "2": { a: "page" }, "3": { a: "booked" } } });
    expect([...calls.values()].map((list) => list.length)).toEqual([1, 1, 1]);
  });

  test("a plan whose last step is invalid: the read-only steps ran, the side-effecting one did not; the answer is invalid with earlyResults", async () => {
    const stream = new ModelStream();
    const { tools, calls, started } = controlledTools(stream, ["search", "book"]);
    const run_plan = planTool(tools, { startEarly: (name) => name === "search" });
    const result = streamText({ model: stream.model, tools: { run_plan }, stopWhen: stepCountIs(1), prompt: "p" });
    const consumed = result.consumeStream();
    await stream.write({ type: "stream-start", warnings: [] }, { type: "tool-input-start", id: "c1", toolName: "run_plan" });
    await stream.input("c1", `{"steps":[${step(1, "search", "x")}`);
    (await started("search")).finish({ a: "found" });
    const bad = JSON.stringify({ id: 2, tool: "book", args: { q: "$9.a" } });
    const text = `{"steps":[${step(1, "search", "x")},${bad}]}`;
    await stream.input("c1", `,${bad}]}`);
    await stream.finishCall("c1", text);
    await stream.end();
    await consumed;
    const [toolResult] = await result.toolResults;
    const answer = toolResult!.output as PlanCallResult;
    expect(answer.status).toBe("invalid");
    expect(answer.diagnostics?.map((diagnostic) => diagnostic.pointer)).toEqual(["/steps/1/args/q"]);
    expect(answer.earlyResults).toEqual({ results: { "1": { a: "found" } } });
    expect(calls.get("book")).toHaveLength(0);
  });

  test("a stream aborted mid-plan: every started tool's signal fires, nothing more starts, no answer is made", async () => {
    const stream = new ModelStream();
    const { tools, calls, started } = controlledTools(stream, ["search"]);
    const run_plan = planTool(tools, { startEarly: ["search"] });
    const abort = new AbortController();
    const result = streamText({
      model: stream.model,
      tools: { run_plan },
      stopWhen: stepCountIs(1),
      prompt: "p",
      abortSignal: abort.signal,
    });
    const consumed = result.consumeStream({ onError: () => undefined });
    await stream.write({ type: "stream-start", warnings: [] }, { type: "tool-input-start", id: "c1", toolName: "run_plan" });
    await stream.input("c1", `{"steps":[${step(1, "search", "x")},${step(2, "search", "y")}`);
    const [one, two] = await Promise.all([started("search", 1), started("search", 2)]);
    const fired = Promise.all(
      [one, two].map((call) => new Promise<void>((resolve) => call.signal!.addEventListener("abort", () => resolve(), { once: true }))),
    );
    abort.abort();
    await fired;
    expect([one.signal!.aborted, two.signal!.aborted]).toEqual([true, true]);
    await stream.input("c1", `,${step(3, "search", "z")}]}`);
    await consumed;
    expect(calls.get("search")).toHaveLength(2);
  });

  test("a stream that fails mid-plan: after inputIdleMs without input, the early steps are aborted", async () => {
    const stream = new ModelStream();
    const { tools, started } = controlledTools(stream, ["search"]);
    const run_plan = planTool(tools, { startEarly: ["search"], inputIdleMs: 1 });
    const result = streamText({ model: stream.model, tools: { run_plan }, stopWhen: stepCountIs(1), prompt: "p" });
    const consumed = result.consumeStream({ onError: () => undefined });
    await stream.write({ type: "stream-start", warnings: [] }, { type: "tool-input-start", id: "c1", toolName: "run_plan" });
    await stream.input("c1", `{"steps":[${step(1, "search", "x")}`);
    const one = await started("search");
    stream.fail(new Error("connection reset"));
    await new Promise<void>((resolve) =>
      one.signal!.aborted ? resolve() : one.signal!.addEventListener("abort", () => resolve(), { once: true }),
    );
    await consumed;
  });

  test("two plan calls in one model step, interleaved: each call's steps start early in its own run, each answer is its own", async () => {
    const stream = new ModelStream();
    const { tools, calls, started } = controlledTools(stream, ["search"]);
    const run_plan = planTool(tools, { startEarly: ["search"] });
    const result = streamText({ model: stream.model, tools: { run_plan }, stopWhen: stepCountIs(1), prompt: "p" });
    const consumed = result.consumeStream();
    await stream.write(
      { type: "stream-start", warnings: [] },
      { type: "tool-input-start", id: "a", toolName: "run_plan" },
      { type: "tool-input-start", id: "b", toolName: "run_plan" },
    );
    await stream.input("a", `{"steps":[${step(1, "search", "a1")}`);
    await stream.input("b", `[${step(1, "search", "b1")}`);
    const [a1, b1] = await Promise.all([started("search", 1), started("search", 2)]);
    expect([a1.args.q, b1.args.q]).toEqual(["a1", "b1"]);
    await stream.input("b", `,${step(2, "search", "$1.a")}]`);
    await stream.input("a", `,${step(2, "search", "$1.a")}]}`);
    b1.finish({ a: "B" });
    a1.finish({ a: "A" });
    const [second, third] = await Promise.all([started("search", 3), started("search", 4)]);
    expect([second.args.q, third.args.q].sort()).toEqual(["A", "B"]);
    second.finish({ a: `${String(second.args.q)}2` });
    third.finish({ a: `${String(third.args.q)}2` });
    await stream.finishCall("a", `{"steps":[${step(1, "search", "a1")},${step(2, "search", "$1.a")}]}`);
    await stream.finishCall("b", `[${step(1, "search", "b1")},${step(2, "search", "$1.a")}]`);
    await stream.end();
    await consumed;
    const outputs = Object.fromEntries((await result.toolResults).map((one) => [one.toolCallId, one.output]));
    expect(outputs).toEqual({
      a: { status: "ok", results: { "1": { a: "A" }, "2": { a: "A2" } } },
      b: { status: "ok", results: { "1": { a: "B" }, "2": { a: "B2" } } },
    });
    expect(calls.get("search")).toHaveLength(4);
  });

  test("a step whose tool needs approval never starts early; the suspended answer keeps the early results and resume never runs them again", async () => {
    const stream = new ModelStream();
    const { tools: base, calls, started } = controlledTools(stream, ["search"]);
    const paid: unknown[] = [];
    const tools = {
      ...base,
      pay: tool({ inputSchema: z.object({ q: z.string() }), needsApproval: true, execute: ({ q }) => (paid.push(q), "paid") }),
    };
    const run_plan = planTool(tools, { startEarly: () => true });
    const result = streamText({ model: stream.model, tools: { run_plan }, stopWhen: stepCountIs(1), prompt: "p" });
    const consumed = result.consumeStream();
    await stream.write({ type: "stream-start", warnings: [] }, { type: "tool-input-start", id: "c1", toolName: "run_plan" });
    const text = `{"steps":[${step(1, "search", "x")},${JSON.stringify({ id: 2, tool: "pay", args: { q: "$1.a" } })}]}`;
    await stream.input("c1", text);
    (await started("search")).finish({ a: "found" });
    await stream.finishCall("c1", text);
    await stream.end();
    await consumed;
    const answer = (await result.toolResults)[0]!.output as PlanCallResult;
    expect(answer).toMatchObject({
      status: "suspended",
      runId: "c1",
      results: { "1": { a: "found" } },
      pending: { "2": { tool: "pay", args: { q: "found" } } },
    });
    expect(paid).toEqual([]);
    expect(await run_plan.resume("c1", { approve: [2] })).toEqual({ status: "ok", results: { "1": { a: "found" }, "2": "paid" } });
    expect(calls.get("search")).toHaveLength(1);
    expect(paid).toEqual(["found"]);
  });

  test("a plan whose options come after its first steps runs whole, as without streaming", async () => {
    const stream = new ModelStream();
    const { tools, calls, started } = controlledTools(stream, ["search"]);
    const run_plan = planTool(tools, { startEarly: ["search"] });
    const result = streamText({ model: stream.model, tools: { run_plan }, stopWhen: stepCountIs(1), prompt: "p" });
    const consumed = result.consumeStream();
    await stream.write({ type: "stream-start", warnings: [] }, { type: "tool-input-start", id: "c1", toolName: "run_plan" });
    await stream.input("c1", `{"steps":[${step(1, "search", "x")}`);
    const early = await started("search");
    const aborted = new Promise<void>((resolve) => early.signal!.addEventListener("abort", () => resolve(), { once: true }));
    const text = `{"steps":[${step(1, "search", "x")}],"options":{"syntax":"path"}}`;
    await stream.input("c1", `],"options":{"syntax":"path"}}`);
    await aborted; // read under other options: dropped
    await stream.finishCall("c1", text);
    await stream.end();
    (await started("search", 2)).finish({ a: "again" });
    await consumed;
    expect((await result.toolResults)[0]!.output).toEqual({ status: "ok", results: { "1": { a: "again" } } });
    expect(calls.get("search")).toHaveLength(2);
  });

  test("generateText (no input stream) is unchanged: the whole plan runs from execute", async () => {
    const calls: string[] = [];
    const tools = { search: tool({ inputSchema: z.object({ q: z.string() }), execute: ({ q }) => (calls.push(q), { a: q }) }) };
    let turn = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content:
          turn++ === 0
            ? [{ type: "tool-call", toolCallId: "c1", toolName: "run_plan", input: `{"steps":[${step(1, "search", "x")}]}` }]
            : [{ type: "text", text: "done" }],
        finishReason: { unified: turn === 1 ? "tool-calls" : "stop", raw: undefined },
        usage,
        warnings: [],
      }),
    });
    const result = await generateText({
      model,
      tools: { run_plan: planTool(tools, { startEarly: ["search"] }) },
      stopWhen: stepCountIs(2),
      prompt: "p",
    });
    expect(result.steps[0]!.toolResults[0]!.output).toEqual({ status: "ok", results: { "1": { a: "x" } } });
    expect(calls).toEqual(["x"]);
  });
});

describe("planTool({ startEarly, session }) under streamText", () => {
  /** One model turn whose single plan call's input arrives in `pieces`; `during` runs after each piece. */
  async function turn(
    run_plan: ReturnType<typeof planTool>,
    id: string,
    pieces: readonly string[],
    during: (index: number, stream: ModelStream) => Promise<void>,
  ) {
    const stream = new ModelStream();
    const result = streamText({ model: stream.model, tools: { run_plan }, stopWhen: stepCountIs(1), prompt: "p" });
    const consumed = result.consumeStream();
    await stream.write({ type: "stream-start", warnings: [] }, { type: "tool-input-start", id, toolName: "run_plan" });
    for (const [index, piece] of pieces.entries()) {
      await stream.input(id, piece);
      await during(index, stream);
    }
    await stream.finishCall(id, pieces.join(""));
    await stream.end();
    await consumed;
    return (await result.toolResults)[0]!.output as PlanCallResult;
  }

  test("in a session: the early steps run outside it, the whole plan's results are kept in it, and the next turn's plan refers to them", async () => {
    const holder = new ModelStream();
    const { tools, calls, started } = controlledTools(holder, ["search", "read"]);
    const session = createPlanSession();
    const run_plan = planTool(tools, { startEarly: ["search", "read"], session });
    const first = await turn(run_plan, "c1", [`{"steps":[${step(1, "search", "x")}`, "]}"], async (index) => {
      // search starts on the piece that closed step 1, before the input is whole.
      if (index === 0) (await started("search")).finish({ a: "found" });
    });
    expect(first).toEqual({ status: "ok", nextStepId: 2, described: { "1": { value: { a: "found" } } } });
    expect(session.get(1)?.value).toEqual({ a: "found" });
    // Turn 2 reads step 1 of turn 1: it waits for the whole plan (its input comes from the session), then runs.
    const second = await turn(run_plan, "c2", [`{"steps":[${step(2, "read", "$1.a")}`, "]}"], async (index) => {
      if (index === 0) expect(calls.get("read")).toHaveLength(0);
      if (index === 1) void started("read").then((call) => call.finish({ a: "page" }));
    });
    expect(second).toEqual({ status: "ok", nextStepId: 3, described: { "2": { value: { a: "page" } } } });
    expect(calls.get("read")!.map((call) => call.args)).toEqual([{ q: "found" }]);
    expect(calls.get("search")).toHaveLength(1);
  });
});

describe("earlyRule", () => {
  test.each([
    ["the catalog's readOnly, without startEarly", { a: { readOnly: true }, b: {} }, undefined, [true, false]],
    ["a list", { a: {}, b: {} }, ["b"], [false, true]],
    ["a predicate", { a: {}, b: {} }, (name: string) => name === "a", [true, false]],
    [
      "a predicate that throws allows nothing",
      { a: {}, b: {} },
      () => {
        throw new Error("no");
      },
      [false, false],
    ],
  ])("%s", (_, catalog, startEarly, expected) => {
    const rule = earlyRule(catalog, startEarly);
    expect(["a", "b"].map((name) => rule?.(name) ?? false)).toEqual(expected);
  });

  test("no tool may start early: no rule (the plan tool streams nothing); a startEarly of another kind is refused", () => {
    expect(earlyRule({ a: {} }, undefined)).toBeUndefined();
    expect(earlyRule({ a: {} }, [])).toBeUndefined();
    expect(() => earlyRule({ a: {} }, "a")).toThrow(/startEarly must be a list of tool names or a function/);
    expect(() => planTool({}, { startEarly: 3 as never })).toThrow();
  });
});
