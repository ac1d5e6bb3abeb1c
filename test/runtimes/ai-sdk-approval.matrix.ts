/**
 * ai 7's call-level approval (`toolApproval` of generateText) holds a tool inside a plan as it holds a
 * direct call, given to planTool too: driven by the current SDK's own generateText and its V4 test
 * model, the same rules make the SDK ask before a direct `pay` and make the plan's `pay` step wait
 * (or fail, where the rule denies it); the tool runs in neither. Runs only in the matrix (ai 6 has no
 * `toolApproval` and no V4 model).
 */
import type { LanguageModelV4GenerateResult } from "@ai-sdk/provider";
import { generateText, stepCountIs, tool, type ToolApprovalConfiguration } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { planTool, type PlanCallResult } from "../../src/ai-sdk/index.js";
import { lastToolResult, usage } from "../ai-sdk/story.js";

function makeTools(calls: string[]) {
  return {
    invoice: tool({
      inputSchema: z.object({ id: z.string() }),
      execute: ({ id }) => (calls.push(`invoice ${id}`), { amount: 500, to: "acme" }),
    }),
    pay: tool({
      inputSchema: z.object({ amount: z.number(), to: z.string() }),
      execute: ({ amount, to }) => (calls.push(`pay ${amount} ${to}`), { paid: true }),
    }),
  };
}

const payPlan = {
  steps: [
    { id: 1, tool: "invoice", args: { id: "big" } },
    { id: 2, tool: "pay", args: { amount: "$1.amount", to: "$1.to" } },
  ],
};

/** A model that makes one tool call (`toolName` with `input`), then answers with text; what it was shown, kept. */
function oneCall(toolName: string, input: unknown, seen: unknown[]) {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const result = lastToolResult(prompt);
      if (result !== undefined) seen.push(result);
      const content: LanguageModelV4GenerateResult["content"] =
        result === undefined && seen.length === 0
          ? [{ type: "tool-call", toolCallId: "call-1", toolName, input: JSON.stringify(input) }]
          : [{ type: "text", text: "done" }];
      return {
        content,
        finishReason: { unified: content[0]!.type === "tool-call" ? "tool-calls" : "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

describe("ai 7's toolApproval, inside a plan as outside it", () => {
  test.each<[string, ToolApprovalConfiguration<ReturnType<typeof makeTools>, unknown>]>([
    ["a status", { pay: "user-approval" }],
    ["a function of the input", { pay: (input) => (input.amount > 100 ? "user-approval" : "not-applicable") }],
    ["one function for every call", ({ toolCall }) => (toolCall.toolName === "pay" ? "user-approval" : undefined)],
  ])(
    "user-approval (%s): the SDK asks before a direct pay; the plan's pay waits with its resolved arguments",
    async (_name, toolApproval) => {
      const direct: string[] = [];
      const asked = await generateText({
        model: oneCall("pay", { amount: 500, to: "acme" }, []),
        tools: makeTools(direct),
        toolApproval,
        stopWhen: stepCountIs(3),
        prompt: "Pay acme",
      });
      expect(asked.content.some((part) => part.type === "tool-approval-request")).toBe(true);
      expect(direct).toEqual([]);

      const calls: string[] = [];
      const seen: unknown[] = [];
      const tools = makeTools(calls);
      await generateText({
        model: oneCall("run_plan", payPlan, seen),
        tools: { run_plan: planTool(tools, { toolApproval: toolApproval as never }) },
        toolApproval,
        stopWhen: stepCountIs(3),
        prompt: "Pay the big invoice",
      });
      expect(calls).toEqual(["invoice big"]);
      expect(seen[0] as PlanCallResult).toMatchObject({
        status: "suspended",
        runId: "call-1",
        pending: { "2": { tool: "pay", args: { amount: 500, to: "acme" } } },
      });
    },
  );

  test("denied: the SDK refuses a direct pay; the plan's pay fails denied with the reason, and nobody is asked", async () => {
    const toolApproval = { pay: { type: "denied", reason: "blocked by policy" } } as const;
    const direct: string[] = [];
    await generateText({
      model: oneCall("pay", { amount: 500, to: "acme" }, []),
      tools: makeTools(direct),
      toolApproval,
      stopWhen: stepCountIs(3),
      prompt: "Pay acme",
    });
    expect(direct).toEqual([]);

    const calls: string[] = [];
    const seen: unknown[] = [];
    await generateText({
      model: oneCall("run_plan", payPlan, seen),
      tools: { run_plan: planTool(makeTools(calls), { toolApproval }) },
      toolApproval,
      stopWhen: stepCountIs(3),
      prompt: "Pay the big invoice",
    });
    expect(calls).toEqual(["invoice big"]);
    const answer = seen[0] as PlanCallResult & { errors?: Record<string, { code: string; message: string }> };
    expect(answer.status).toBe("failed");
    expect(JSON.stringify(answer)).toContain("blocked by policy");
    expect(answer).not.toHaveProperty("pending");
  });
});
