/**
 * plan-refs/ai-sdk with the AI SDK's own generateText and streamText, driven by its test model
 * (MockLanguageModelV3 from ai/test, no network) through the story of ./story.ts: a typo'd plan, its
 * diagnostic, the corrected plan run with its independent steps at the same time, and the output
 * reaching the model's third step.
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { generateText, jsonSchema, stepCountIs, streamText, tool, type ToolSet } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { catalogFromAiSdk, planTool, toolsFromAiSdk, type PlanCallResult } from "../../src/ai-sdk/index.js";
import { cutResult } from "../../src/agents/plan-call.js";
import { lintPlan } from "../../src/lint/index.js";
import { runPlan } from "../../src/run/index.js";
import { expectTheStory, finishReason, makeTools, modelSteps, plan, streamParts, usage, type Calls } from "./story.js";

describe("planTool in the AI SDK's own loop", () => {
  test("generateText: typo → diagnostic → corrected plan → parallel run → the output reaches model step 3", async () => {
    const calls: Calls = { times: new Map(), ids: [] };
    const tools = makeTools(calls);
    const seen: unknown[] = [];
    const decide = modelSteps(seen);
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        const content = decide(options);
        return { content, finishReason: finishReason(content), usage, warnings: [] };
      },
    });
    const result = await generateText({
      model,
      tools: { run_plan: planTool(tools) },
      stopWhen: stepCountIs(4),
      prompt: "Weather and air in Lisbon?",
    });
    expect(result.text).toBe("Lisbon: 21 °C, air quality 17");
    expect(result.steps).toHaveLength(3);
    expectTheStory(seen, calls);
    // The model was shown the plan tool with the plan schema over the three tools.
    const offered = model.doGenerateCalls[0]!.tools!;
    expect(offered.map((entry) => entry.name)).toEqual(["run_plan"]);
    const schema = JSON.stringify((offered[0] as { inputSchema: unknown }).inputSchema);
    for (const name of ["geocode", "weather", "airQuality"]) expect(schema).toContain(`"enum":["${name}"]`);
  });

  test("streamText: the same story through the streaming loop", async () => {
    const calls: Calls = { times: new Map(), ids: [] };
    const tools = makeTools(calls);
    const seen: unknown[] = [];
    const decide = modelSteps(seen);
    const model = new MockLanguageModelV3({
      doStream: async (options) => ({ stream: convertArrayToReadableStream<LanguageModelV3StreamPart>(streamParts(decide(options))) }),
    });
    const result = streamText({
      model,
      tools: { run_plan: planTool(tools) },
      stopWhen: stepCountIs(4),
      prompt: "Weather and air in Lisbon?",
    });
    expect(await result.text).toBe("Lisbon: 21 °C, air quality 17");
    expect(await result.steps).toHaveLength(3);
    expectTheStory(seen, calls);
  });
});

/** ai 7 gives each execute the tool's own context (the plan tool has none); ai 6 has no such field, which a spread may add. */
const noContext = { context: undefined };

describe("planTool's execute", () => {
  const execute = (tools: ToolSet, input: unknown, options: Parameters<typeof planTool>[1] = {}, abortSignal?: AbortSignal) =>
    planTool(tools, options).execute!(input, {
      toolCallId: "call",
      messages: [],
      ...noContext,
      ...(abortSignal === undefined ? {} : { abortSignal }),
    }) as Promise<PlanCallResult>;

  test("a tool without execute is a no-execute problem of the plan, not a crash", async () => {
    const tools = {
      ask: tool({ inputSchema: z.object({ question: z.string() }) }),
      echo: tool({ inputSchema: z.object({ text: z.string() }), execute: ({ text }) => text }),
    };
    const answer = await execute(tools, {
      steps: [
        { id: 1, tool: "echo", args: { text: "hi" } },
        { id: 2, tool: "ask", args: { question: "$1" } },
      ],
    });
    expect(answer).toEqual({
      status: "invalid",
      diagnostics: [
        { code: "no-execute", message: `tool "ask" has no execute function: it cannot be a step of a plan`, pointer: "/steps/1/tool" },
      ],
    });
    expect(await execute(tools, { steps: [{ id: 1, tool: "echo", args: { text: "hi" } }] })).toMatchObject({
      status: "ok",
      results: { "1": "hi" },
    });
  });

  test("each result is cut at maxResultChars, with a marker", async () => {
    const tools = { big: tool({ inputSchema: z.object({ n: z.number() }), execute: ({ n }) => "x".repeat(n) }) };
    const answer = await execute(tools, {
      steps: [
        { id: 1, tool: "big", args: { n: 30_000 } },
        { id: 2, tool: "big", args: { n: 10 } },
      ],
    });
    expect(answer.status).toBe("ok");
    const results = (answer as { results: Record<string, string> }).results;
    expect(results["1"]).toBe(`"${"x".repeat(19_999)}… [cut: 20000 of 30002 characters]`);
    expect(results["2"]).toBe("xxxxxxxxxx");
    const small = await execute(tools, { steps: [{ id: 1, tool: "big", args: { n: 100 } }] }, { maxResultChars: 20 });
    expect((small as { results: Record<string, string> }).results["1"]).toBe(`"${"x".repeat(19)}… [cut: 20 of 102 characters]`);
    expect(cutResult("😀".repeat(10), 2)).toBe(`"… [cut: 2 of 22 characters]`);
  });

  test("an aborted request aborts the run: the running tool sees the abort, the rest never starts", async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const tools = {
      slow: tool({
        inputSchema: z.object({}),
        execute: (_, { abortSignal }) =>
          new Promise((resolve, reject) => {
            started.push("slow");
            controller.abort();
            if (abortSignal?.aborted) reject(abortSignal.reason);
            abortSignal?.addEventListener("abort", () => reject(abortSignal.reason));
            setTimeout(resolve, 5_000);
          }),
      }),
      after: tool({ inputSchema: z.object({ x: z.unknown() }), execute: () => void started.push("after") }),
    };
    const answer = await execute(
      tools,
      {
        steps: [
          { id: 1, tool: "slow", args: {} },
          { id: 2, tool: "after", args: { x: "$1" } },
        ],
      },
      {},
      controller.signal,
    );
    expect(answer.status).toBe("aborted");
    expect(started).toEqual(["slow"]);
  });

  test("a streamed result gives its last value", async () => {
    const tools = {
      count: tool({
        inputSchema: z.object({}),
        async *execute() {
          yield 1;
          yield 2;
          yield 3;
        },
      }),
    };
    expect(await execute(tools, { steps: [{ id: 1, tool: "count", args: {} }] })).toMatchObject({ status: "ok", results: { "1": 3 } });
  });

  test("runPlan options pass through, and bad options are refused when the tool is made", async () => {
    const tools = {
      fail: tool({ inputSchema: z.object({}), execute: async (): Promise<number> => Promise.reject(new Error("no such city")) }),
      ok: tool({ inputSchema: z.object({ a: z.number() }), execute: () => 1 }),
    };
    const answer = await execute(tools, {
      steps: [
        { id: 1, tool: "fail", args: {} },
        { id: 2, tool: "ok", args: { a: "$1" } },
      ],
    });
    expect(answer).toMatchObject({ status: "failed", errors: { "1": { code: "tool-error" } }, skipped: [2] });
    expect((answer as { errors: Record<string, { message: string }> }).errors["1"]!.message).toContain("no such city");
    expect(() => planTool(tools, { maxResultChars: 0 })).toThrow("option maxResultChars must be a positive integer");
    expect(() => planTool(tools, { dialect: "xml" as never })).toThrow(`option dialect must be "json-schema" or "openai-strict"`);
  });

  test("with dialect openai-strict the nulls of optional arguments are dropped before linting", async () => {
    const tools = { greet: tool({ inputSchema: z.object({ name: z.string(), title: z.string().optional() }), execute: (args) => args }) };
    const strict = planTool(tools, { dialect: "openai-strict" });
    expect(JSON.stringify(strict.inputSchema)).toContain(`"additionalProperties":false`);
    const answer = await execute(
      tools,
      { steps: [{ id: 1, tool: "greet", args: { name: "Ada", title: null } }] },
      { dialect: "openai-strict" },
    );
    expect(answer).toMatchObject({ status: "ok", results: { "1": { name: "Ada" } } });
  });

  test("the description teaches the language with an example plan over the tools that lints clean", () => {
    const calls: Calls = { times: new Map(), ids: [] };
    const tools = makeTools(calls);
    // ai 7 also allows a description made per call; the plan tool's is text.
    const description = planTool(tools).description as string;
    expect(description).toContain(`"$2.key" is one key of it`);
    expect(description).toContain("Tools: geocode, weather, airQuality.");
    const example = JSON.parse(description.split("Example: ")[1]!) as unknown;
    expect(example).toEqual({
      steps: [
        { id: 1, tool: "geocode", args: { city: "<city>" } },
        { id: 2, tool: "weather", args: { lat: "$1.lat", lon: "$1.lon" } },
      ],
    });
    expect(lintPlan(example, { tools: catalogFromAiSdk(tools) })).toEqual([]);
    expect(planTool(tools, { syntax: "path", templates: true }).description).toContain(`"$2.items[0]" indexes a list`);
  });
});

describe("catalogFromAiSdk and toolsFromAiSdk", () => {
  test("the catalog holds each tool's schemas as the SDK converts them, and runPlan lints with it", async () => {
    const calls: Calls = { times: new Map(), ids: [] };
    const tools = makeTools(calls);
    const catalog = catalogFromAiSdk({
      ...tools,
      raw: tool({
        description: "a JSON Schema tool",
        inputSchema: jsonSchema({ type: "object", properties: { q: { type: "string" } } }),
        execute: () => 1,
      }),
    });
    expect(catalog.geocode).toEqual({
      description: "A city's coordinates",
      input: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"],
        additionalProperties: false,
      },
      output: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { lat: { type: "number" }, lon: { type: "number" } },
        required: ["lat", "lon"],
        additionalProperties: false,
      },
    });
    expect(catalog.raw).toEqual({ description: "a JSON Schema tool", input: { type: "object", properties: { q: { type: "string" } } } });
    const report = await runPlan(plan("lon"), toolsFromAiSdk(tools, { runId: "run-7" }), { catalog });
    expect(report.status).toBe("ok");
    expect([...calls.ids].sort()).toEqual(["run-7:1", "run-7:2", "run-7:3"]);
    expect((await runPlan(plan("lonn"), toolsFromAiSdk(tools), { catalog })).status).toBe("invalid");
  });

  test("a schema the SDK cannot convert, and a tool set of the wrong shape, are invalid-options errors", () => {
    expect(() => catalogFromAiSdk({ when: tool({ inputSchema: z.object({ at: z.date() }), execute: () => 1 }) })).toThrow(
      /the inputSchema of tool "when" could not be converted to JSON Schema/,
    );
    expect(() => catalogFromAiSdk(null as never)).toThrow("the tools must be an AI SDK tool set");
    expect(() => toolsFromAiSdk({ x: 3 } as never)).toThrow(`tool "x" is not an AI SDK tool`);
  });
});
