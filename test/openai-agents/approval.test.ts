/**
 * A function tool gated with the Agents SDK's `needsApproval` stays gated inside `run_plan`: under the
 * SDK's own runner the plan's gated step does not run, the model reads `suspended` with the resolved
 * arguments, and the application's `resume` runs exactly those.
 */
import { Agent, run, setTracingDisabled, tool, Usage, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { planTool, type PlanCallResult } from "../../src/openai-agents/index.js";

beforeAll(() => setTracingDisabled(true));

const usage = new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 });

function makeTools(calls: string[], asked: unknown[]) {
  return [
    tool({
      name: "invoice",
      description: "An invoice",
      parameters: z.object({ id: z.string() }),
      outputSchema: z.object({ amount: z.number() }),
      execute: ({ id }) => (calls.push(`invoice ${id}`), { amount: id === "big" ? 500 : 42 }),
    }),
    tool({
      name: "pay",
      description: "Pays an amount",
      parameters: z.object({ amount: z.number() }),
      // Asked with the call's parsed arguments, as the SDK asks it for a direct call.
      needsApproval: async (_context, input) => (asked.push(input), input.amount > 100),
      execute: ({ amount }) => (calls.push(`pay ${amount}`), "paid"),
    }),
  ];
}

const plan = (invoice: string) => ({
  steps: [
    { id: 1, tool: "invoice", args: { id: invoice } },
    { id: 2, tool: "pay", args: { amount: "$1.amount" } },
  ],
});

class PayingModel implements Model {
  readonly seen: (PlanCallResult | undefined)[] = [];
  constructor(readonly invoice: string) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const item =
      typeof request.input === "string"
        ? undefined
        : (request.input.filter((entry) => entry.type === "function_call_result").at(-1) as
            { output: { text: string } | string } | undefined);
    const result =
      item === undefined ? undefined : (JSON.parse(typeof item.output === "string" ? item.output : item.output.text) as PlanCallResult);
    this.seen.push(result);
    if (result === undefined)
      return {
        usage,
        output: [
          { type: "function_call", callId: "c1", name: "run_plan", arguments: JSON.stringify(plan(this.invoice)), status: "completed" },
        ],
      };
    return {
      usage,
      output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: result.status }] }],
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not used");
  }
}

describe("a gated Agents SDK tool inside run_plan", () => {
  test("run(agent): a payment over the limit waits with its resolved arguments; resume pays exactly those", async () => {
    const calls: string[] = [];
    const asked: unknown[] = [];
    const planner = planTool(makeTools(calls, asked));
    const model = new PayingModel("big");
    const result = await run(new Agent({ name: "payer", instructions: "Pay.", model, tools: [planner] }), "Pay the big invoice");
    expect(result.finalOutput).toBe("suspended");
    const answer = model.seen[1]!;
    expect(answer).toMatchObject({
      status: "suspended",
      results: { "1": { amount: 500 } },
      pending: { "2": { tool: "pay", args: { amount: 500 } } },
    });
    expect(calls).toEqual(["invoice big"]);
    expect(asked).toEqual([{ amount: 500 }]);
    const resumed = await planner.resume(answer.runId!, { approve: [2] });
    expect(resumed).toEqual({ status: "ok", results: { "1": { amount: 500 }, "2": "paid" } });
    expect(calls).toEqual(["invoice big", "pay 500"]);
  });

  test("a payment the policy lets through runs inside the plan, as it would as a direct call", async () => {
    const calls: string[] = [];
    const model = new PayingModel("small");
    const result = await run(
      new Agent({ name: "payer", instructions: "Pay.", model, tools: [planTool(makeTools(calls, []))] }),
      "Pay the small invoice",
    );
    expect(result.finalOutput).toBe("ok");
    expect(calls).toEqual(["invoice small", "pay 42"]);
  });
});
