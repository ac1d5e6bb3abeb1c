/**
 * Results by reference across a conversation, through the AI SDK's own generateText and test model:
 * turn 1's plan fetches a large result, the model is told only what it is; turn 2's plan refers to
 * it by its step id, the tool gets the whole value, and nothing the model is sent ever holds it.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { expect, test } from "vitest";
import { z } from "zod";
import { planTool, type PlanCallResult } from "../../src/ai-sdk/index.js";
import { createPlanSession } from "../../src/run/index.js";

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const ROWS = Array.from({ length: 400 }, (_, i) => ({ id: i, name: `pump model ${i} with a long description`, price: 100 + i }));

function toolResult(prompt: LanguageModelV3CallOptions["prompt"]): PlanCallResult | undefined {
  const part = prompt
    .filter((entry) => entry.role === "tool")
    .at(-1)
    ?.content.filter((entry) => entry.type === "tool-result")
    .at(-1);
  return part?.output.type === "json" ? (part.output.value as unknown as PlanCallResult) : undefined;
}

test("turn 2's plan uses turn 1's 30 KB result by reference: the tool gets it whole, the model never sees it", async () => {
  const received: unknown[] = [];
  const tools = {
    search: tool({
      inputSchema: z.object({ q: z.string() }),
      outputSchema: z.object({ rows: z.array(z.object({ id: z.number(), name: z.string(), price: z.number() })) }),
      execute: () => ({ rows: ROWS }),
    }),
    cheapest: tool({
      inputSchema: z.object({ rows: z.array(z.object({ price: z.number() })) }),
      execute: ({ rows }) => (received.push(rows), Math.min(...rows.map((row) => row.price))),
    }),
  };
  // One session for the conversation; the plan tool is made per turn, as a server route makes it per request.
  const session = createPlanSession();
  const sent: string[] = [];
  const turn = async (plan: unknown, prompt: string): Promise<PlanCallResult | undefined> => {
    let answer: PlanCallResult | undefined;
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        sent.push(JSON.stringify(options.prompt), JSON.stringify(options.tools));
        answer = toolResult(options.prompt);
        const content: LanguageModelV3GenerateResult["content"] =
          answer === undefined
            ? [{ type: "tool-call", toolCallId: `call-${sent.length}`, toolName: "run_plan", input: JSON.stringify(plan) }]
            : [{ type: "text", text: "done" }];
        return {
          content,
          finishReason: { unified: content[0]!.type === "tool-call" ? "tool-calls" : "stop", raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    await generateText({ model, tools: { run_plan: planTool(tools, { session }) }, stopWhen: stepCountIs(3), prompt });
    return answer;
  };
  const first = await turn({ steps: [{ id: 1, tool: "search", args: { q: "pumps" } }] }, "Find pumps");
  expect(first).toEqual({
    status: "ok",
    nextStepId: 2,
    described: { "1": { tool: "search", type: "object", keys: { rows: "array of 400" } } },
  });
  const second = await turn({ steps: [{ id: 2, tool: "cheapest", args: { rows: "$1.rows" } }] }, "Which is cheapest?");
  expect(second).toEqual({ status: "ok", nextStepId: 3, described: { "2": { value: 100 } } });
  expect(received).toEqual([ROWS]);
  const everything = sent.join("\n");
  expect(everything).not.toContain("pump model 7 with");
  // The description the model read in turn 2 taught it to number from 2.
  expect(sent[sent.length - 1]).toContain("number this plan's steps from 2");
});
