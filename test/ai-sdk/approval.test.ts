/**
 * A tool the developer gated with the AI SDK's `needsApproval` stays gated inside a plan: driven by
 * the SDK's own generateText and test model, the plan's gated step does not run, the answer is
 * `suspended` with the resolved arguments, and the application's `resume` runs exactly those.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { planTool, toolsFromAiSdk, type PlanCallResult } from "../../src/ai-sdk/index.js";
import { catalogFromAiSdk } from "../../src/ai-sdk/index.js";
import { resumePlan, runPlan } from "../../src/run/index.js";

/** ai 7's execute options carry the tool's context (none here); ai 6's have no such field. */
const noContext = { context: undefined };

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** An invoice lookup, a payment gated as `gate` says, and an e-mail gated always; every call recorded. */
function makeTools(calls: string[], gate: boolean | ((input: { amount: number }) => boolean) = true) {
  return {
    invoice: tool({
      inputSchema: z.object({ id: z.string() }),
      outputSchema: z.object({ amount: z.number(), to: z.string() }),
      execute: ({ id }) => (calls.push(`invoice ${id}`), { amount: id === "big" ? 500 : 42, to: "acme" }),
    }),
    pay: tool({
      inputSchema: z.object({ amount: z.number(), to: z.string() }),
      needsApproval: gate,
      execute: ({ amount, to }) => (calls.push(`pay ${amount} ${to}`), { paid: true }),
    }),
    email: tool({
      inputSchema: z.object({ text: z.string() }),
      needsApproval: true,
      execute: ({ text }) => (calls.push(`email ${text}`), "sent"),
    }),
  };
}

const payPlan = (invoice = "small") => ({
  steps: [
    { id: 1, tool: "invoice", args: { id: invoice } },
    { id: 2, tool: "pay", args: { amount: "$1.amount", to: "$1.to" } },
  ],
});

function toolResult(prompt: LanguageModelV3CallOptions["prompt"]): unknown {
  const part = prompt
    .filter((entry) => entry.role === "tool")
    .at(-1)
    ?.content.filter((entry) => entry.type === "tool-result")
    .at(-1);
  return part?.output.type === "json" ? part.output.value : part?.output;
}

describe("a gated AI SDK tool inside a plan", () => {
  test("generateText: the model's plan pays nothing; the answer is suspended with the resolved arguments; resume pays exactly those, once", async () => {
    const calls: string[] = [];
    const tools = makeTools(calls);
    const runPlanTool = planTool(tools);
    const seen: unknown[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async ({ prompt }) => {
        const result = toolResult(prompt);
        seen.push(result);
        const content: LanguageModelV3GenerateResult["content"] =
          result === undefined
            ? [{ type: "tool-call", toolCallId: "call-1", toolName: "run_plan", input: JSON.stringify(payPlan()) }]
            : [{ type: "text", text: "waiting for your approval" }];
        return {
          content,
          finishReason: { unified: content[0]!.type === "tool-call" ? "tool-calls" : "stop", raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const result = await generateText({
      model,
      tools: { run_plan: runPlanTool },
      stopWhen: stepCountIs(3),
      prompt: "Pay the small invoice",
    });
    expect(result.text).toBe("waiting for your approval");
    expect(calls).toEqual(["invoice small"]);
    const answer = seen[1] as PlanCallResult;
    expect(answer).toEqual({
      status: "suspended",
      runId: "call-1",
      results: { "1": { amount: 42, to: "acme" } },
      pending: { "2": { tool: "pay", args: { amount: 42, to: "acme" } } },
    });

    // A step that never waited cannot be approved; the run is still there to resume.
    await expect(runPlanTool.resume("call-1", { approve: [1] })).rejects.toMatchObject({ code: "not-awaiting-approval" });
    const resumed = await runPlanTool.resume("call-1", { approve: [2] });
    expect(resumed).toEqual({ status: "ok", results: { "1": { amount: 42, to: "acme" }, "2": { paid: true } } });
    expect(calls).toEqual(["invoice small", "pay 42 acme"]);
    // Resumed once: a second resume finds nothing to run.
    await expect(runPlanTool.resume("call-1", { approve: [2] })).rejects.toMatchObject({ code: "unknown-run" });
    expect(calls).toEqual(["invoice small", "pay 42 acme"]);
  });

  test("needsApproval as a function is asked with the step's resolved arguments", async () => {
    const calls: string[] = [];
    const asked: unknown[] = [];
    const tools = makeTools(calls, (input) => (asked.push(input), input.amount > 100));
    const execute = (plan: unknown, toolCallId: string) =>
      planTool(tools).execute!(plan, { toolCallId, messages: [], ...noContext }) as Promise<PlanCallResult>;
    expect(await execute(payPlan("small"), "small")).toMatchObject({ status: "ok" });
    const big = await execute(payPlan("big"), "big");
    expect(big).toMatchObject({ status: "suspended", runId: "big", pending: { "2": { tool: "pay", args: { amount: 500, to: "acme" } } } });
    expect(asked).toEqual([
      { amount: 42, to: "acme" },
      { amount: 500, to: "acme" },
    ]);
    expect(calls).toEqual(["invoice small", "pay 42 acme", "invoice big"]);
  });

  test("deny: the step fails denied with the reason, what needs it is skipped, nothing gated runs", async () => {
    const calls: string[] = [];
    const gated = planTool(makeTools(calls));
    const plan = { steps: [...payPlan().steps, { id: 3, tool: "email", args: { text: "paid" } }] };
    const first = (await gated.execute!(plan, { toolCallId: "c", messages: [], ...noContext })) as PlanCallResult;
    expect(first).toMatchObject({ status: "suspended", pending: { "2": { tool: "pay" }, "3": { tool: "email", args: { text: "paid" } } } });
    const second = await gated.resume("c", { approve: [3], deny: { 2: "not this month" } });
    expect(second).toMatchObject({
      status: "failed",
      errors: { "2": { code: "denied", message: expect.stringContaining("not this month") as string } },
      results: { "3": "sent" },
    });
    expect(calls).toEqual(["invoice small", "email paid"]);
  });

  test("toolsFromAiSdk never hands back a gated tool as a plain function: runPlan holds it, resumePlan runs it", async () => {
    const calls: string[] = [];
    const tools = makeTools(calls);
    const functions = toolsFromAiSdk(tools, { runId: "r" });
    const first = await runPlan(payPlan(), functions, { catalog: catalogFromAiSdk(tools) });
    expect(first.status).toBe("suspended");
    expect([...first.pending!]).toEqual([[2, { tool: "pay", args: { amount: 42, to: "acme" } }]]);
    expect(calls).toEqual(["invoice small"]);
    const second = await resumePlan(payPlan(), first, functions, { approve: [2] });
    expect(second.status).toBe("ok");
    expect(calls).toEqual(["invoice small", "pay 42 acme"]);
  });

  test("a needsApproval that throws fails the step (denied): the tool is never called without an answer", async () => {
    const calls: string[] = [];
    const tools = makeTools(calls, () => {
      throw new Error("policy service down");
    });
    const answer = (await planTool(tools).execute!(payPlan(), { toolCallId: "t", messages: [], ...noContext })) as PlanCallResult;
    expect(answer).toMatchObject({ status: "failed", errors: { "2": { code: "denied" } } });
    expect(calls).toEqual(["invoice small"]);
  });
});
