/**
 * The AI SDK's call-level approval rules (ai 7's `toolApproval` of generateText / streamText, given to
 * `toolsFromAiSdk` and `planTool` as well) gate the steps of a plan as the SDK gates a direct call:
 * one function for every call or a status / function per tool, before the tool's own
 * `needsApproval`, asked with the step's resolved arguments. Also: each step's call gets the plan
 * call's messages and context. ai 7's own loop is driven in test/runtimes/ai-sdk-approval.matrix.ts.
 */
import type { LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { planTool, toolsFromAiSdk, type AiSdkToolApproval, type AiSdkToolsOptions, type PlanCallResult } from "../../src/ai-sdk/index.js";
import { runPlan } from "../../src/run/index.js";
import { lastToolResult, usage } from "./story.js";

/** An invoice lookup and a payment (`needsApproval` as given); every call recorded with the options it got. */
function makeTools(calls: unknown[], needsApproval?: boolean) {
  return {
    invoice: tool({
      inputSchema: z.object({ id: z.string() }),
      execute: ({ id }) => (calls.push(`invoice ${id}`), { amount: id === "big" ? 500 : 42, to: "acme" }),
    }),
    pay: tool({
      inputSchema: z.object({ amount: z.number(), to: z.string() }),
      ...(needsApproval === undefined ? {} : { needsApproval }),
      execute: ({ amount, to }, options) => (calls.push(`pay ${amount} ${to}`, options), { paid: true }),
    }),
  };
}

const payPlan = (invoice = "small") => ({
  steps: [
    { id: 1, tool: "invoice", args: { id: invoice } },
    { id: 2, tool: "pay", args: { amount: "$1.amount", to: "$1.to" } },
  ],
});

async function run(options: AiSdkToolsOptions, invoice = "small", needsApproval?: boolean) {
  const calls: unknown[] = [];
  const report = await runPlan(payPlan(invoice), toolsFromAiSdk(makeTools(calls, needsApproval), { runId: "r1", ...options }));
  return { report, paid: calls.filter((call) => typeof call === "string" && call.startsWith("pay")) };
}

describe("toolApproval inside a plan", () => {
  test.each<[string, AiSdkToolApproval, boolean | undefined, string]>([
    ["user-approval: the step waits", { pay: "user-approval" }, undefined, "waits"],
    ["its object form", { pay: { type: "user-approval", reason: "a person decides" } }, undefined, "waits"],
    ["denied: the step fails, nobody is asked", { pay: "denied" }, undefined, "denied by toolApproval"],
    ["denied with a reason", { pay: { type: "denied", reason: "blocked by policy" } }, undefined, "blocked by policy"],
    ["approved: it runs", { pay: "approved" }, undefined, "ran"],
    ["not-applicable: it runs", { pay: "not-applicable" }, undefined, "ran"],
    ["toolApproval comes before needsApproval: approved runs a tool that needs approval", { pay: "approved" }, true, "ran"],
    ["no entry for the tool: its needsApproval holds it", { invoice: "approved" }, true, "waits"],
    ["no entry, no needsApproval: it runs", { invoice: "approved" }, undefined, "ran"],
    ["a null entry is no entry", { pay: null as unknown as "approved" }, true, "waits"],
    [
      "a function per tool, asked with the resolved arguments",
      { pay: (input) => (input.amount > 10 ? "user-approval" : undefined) },
      undefined,
      "waits",
    ],
    ["a function per tool that lets it run", { pay: (input) => (input.amount > 100 ? "user-approval" : undefined) }, undefined, "ran"],
    ["a function per tool, as a promise", { pay: async () => ({ type: "denied", reason: "later" }) }, undefined, "later"],
    ["one function for every call", ({ toolCall }) => (toolCall.toolName === "pay" ? "user-approval" : undefined), undefined, "waits"],
    ["one function that says nothing: needsApproval is not asked (the SDK's order)", () => undefined, true, "ran"],
    [
      "an answer that is no status fails the step",
      { pay: () => "sometimes" as "approved" },
      undefined,
      "toolApproval answered sometimes, which is not one of not-applicable, approved, denied, user-approval",
    ],
  ])("%s", async (_name, toolApproval, needsApproval, expected) => {
    const { report, paid } = await run({ toolApproval }, "small", needsApproval);
    if (expected === "ran") {
      expect(report.status).toBe("ok");
      expect(paid).toEqual(["pay 42 acme"]);
    } else if (expected === "waits") {
      expect(report.status).toBe("suspended");
      expect(report.pending?.get(2)).toEqual({ tool: "pay", args: { amount: 42, to: "acme" } });
      expect(paid).toEqual([]);
    } else {
      expect(report.status).toBe("failed");
      expect(report.errors.get(2)).toMatchObject({ code: "denied", message: expect.stringContaining(expected) });
      expect(report.pending?.size ?? 0).toBe(0);
      expect(paid).toEqual([]);
    }
  });

  test("the rules are asked as the SDK asks them: the step's toolCallId, the resolved input, the contexts", async () => {
    const asked: unknown[] = [];
    const toolsContext = { pay: { account: "ops" } };
    const runtimeContext = { user: "ada" };
    await run({
      toolApproval: {
        pay: (input, options) => {
          asked.push({ input, ...options });
          return undefined;
        },
      },
      toolsContext,
      runtimeContext,
    });
    expect(asked).toEqual([
      { input: { amount: 42, to: "acme" }, toolCallId: "r1:2", messages: [], toolContext: { account: "ops" }, runtimeContext },
    ]);

    const generic: unknown[] = [];
    await run({
      toolApproval: (options) => (generic.push({ ...options, tools: typeof options.tools }), undefined),
      toolsContext,
      runtimeContext,
    });
    expect(generic).toEqual([
      {
        toolCall: { type: "tool-call", toolCallId: "r1:1", toolName: "invoice", input: { id: "small" } },
        tools: "object",
        toolsContext,
        messages: [],
        runtimeContext,
      },
      {
        toolCall: { type: "tool-call", toolCallId: "r1:2", toolName: "pay", input: { amount: 42, to: "acme" } },
        tools: "object",
        toolsContext,
        messages: [],
        runtimeContext,
      },
    ]);
  });

  test("a tool's execute gets its context from toolsContext", async () => {
    const calls: unknown[] = [];
    await runPlan(payPlan(), toolsFromAiSdk(makeTools(calls), { runId: "r1", toolsContext: { pay: { account: "ops" } } }));
    expect(calls[2]).toMatchObject({ toolCallId: "r1:2", context: { account: "ops" } });
  });

  test.each([
    ["a number", 5],
    ["an array", ["pay"]],
    ["an entry that is no status", { pay: "sometimes" }],
    ["an object entry with an unknown type", { pay: { type: "maybe" } }],
  ])("toolApproval that is %s is refused (invalid-options) by both", (_name, toolApproval) => {
    const tools = makeTools([]);
    expect(() => toolsFromAiSdk(tools, { toolApproval } as unknown as AiSdkToolsOptions)).toThrow(
      expect.objectContaining({ code: "invalid-options", message: expect.stringContaining("toolApproval") }),
    );
    expect(() => planTool(tools, { toolApproval } as unknown as AiSdkToolsOptions)).toThrow(
      expect.objectContaining({ code: "invalid-options" }),
    );
  });

  test("toolsContext that is no object is refused", () => {
    expect(() => toolsFromAiSdk(makeTools([]), { toolsContext: "ops" as unknown as Record<string, unknown> })).toThrow(
      expect.objectContaining({ code: "invalid-options", message: expect.stringContaining("toolsContext") }),
    );
  });
});

describe("planTool under generateText (ai 6's test model)", () => {
  /** A model that calls run_plan with `plan` once, then answers with text; the plan tool's answers kept. */
  function modelFor(plan: unknown, answers: unknown[]) {
    return new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        const result = lastToolResult(prompt);
        if (result !== undefined) answers.push(result);
        const content: LanguageModelV3GenerateResult["content"] =
          result === undefined
            ? [{ type: "tool-call", toolCallId: "call-1", toolName: "run_plan", input: JSON.stringify(plan) }]
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

  test("toolApproval given to planTool: the plan's payment waits, the answer is suspended with the resolved arguments", async () => {
    const calls: unknown[] = [];
    const answers: unknown[] = [];
    await generateText({
      model: modelFor(payPlan(), answers),
      tools: { run_plan: planTool(makeTools(calls), { toolApproval: { pay: "user-approval" } }) },
      stopWhen: stepCountIs(3),
      prompt: "Pay the small invoice",
    });
    expect(calls).toEqual(["invoice small"]);
    expect(answers[0]).toMatchObject({
      status: "suspended",
      runId: "call-1",
      pending: { "2": { tool: "pay", args: { amount: 42, to: "acme" } } },
    });
  });

  test("each step's call gets the plan call's messages and its own toolCallId", async () => {
    const calls: unknown[] = [];
    const answers: unknown[] = [];
    await generateText({
      model: modelFor(payPlan(), answers),
      tools: { run_plan: planTool(makeTools(calls)) },
      stopWhen: stepCountIs(3),
      prompt: "Pay the small invoice",
    });
    expect((answers[0] as PlanCallResult).status).toBe("ok");
    const options = calls[2] as { toolCallId: string; messages: unknown[] };
    expect(options.toolCallId).toBe("call-1:2");
    expect(options.messages).toEqual([{ role: "user", content: "Pay the small invoice" }]);
  });

  test("ai 6's experimental_context of the plan call reaches each step's call (ai 7 gives each tool its toolsContext entry)", async () => {
    const calls: unknown[] = [];
    const execute = planTool(makeTools(calls)).execute!;
    const call = { toolCallId: "call-2", messages: [], experimental_context: { user: "ada" }, context: undefined };
    expect(await execute(payPlan(), call)).toMatchObject({ status: "ok" });
    expect(calls[2]).toMatchObject({ toolCallId: "call-2:2", experimental_context: { user: "ada" } });
  });
});
