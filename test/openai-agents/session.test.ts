/**
 * Results by reference across a conversation under the Agents SDK's own runner: two turns, each a
 * `run(agent)` with a model of this test's own; turn 1's plan fetches a large result and the model
 * reads only its description, turn 2's plan refers to turn 1's step and the tool gets the whole value.
 */
import { Agent, run, setTracingDisabled, tool, Usage, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { beforeAll, expect, test } from "vitest";
import { z } from "zod";
import { planTool, type PlanCallResult } from "../../src/openai-agents/index.js";
import { createPlanSession } from "../../src/run/index.js";

beforeAll(() => setTracingDisabled(true));

const usage = new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 });
const ROWS = Array.from({ length: 400 }, (_, i) => ({ id: i, name: `pump model ${i} with a long description`, price: 100 + i }));

/** Calls run_plan with its plan, then answers the plan's status; keeps what it was sent. */
class PlanningModel implements Model {
  readonly seen: (PlanCallResult | undefined)[] = [];
  readonly sent: string[] = [];
  constructor(readonly plan: unknown) {}
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.sent.push(JSON.stringify(request.input), JSON.stringify(request.tools));
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
        output: [{ type: "function_call", callId: "c1", name: "run_plan", arguments: JSON.stringify(this.plan), status: "completed" }],
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

test("run(agent) twice: turn 2's plan uses turn 1's step by reference, the tool gets the rows whole, the model never sees them", async () => {
  const received: unknown[] = [];
  const tools = [
    tool({
      name: "search",
      description: "Searches the catalogue",
      parameters: z.object({ q: z.string() }),
      outputSchema: z.object({ rows: z.array(z.object({ id: z.number(), name: z.string(), price: z.number() })) }),
      execute: () => ({ rows: ROWS }),
    }),
    tool({
      name: "cheapest",
      description: "The lowest price",
      parameters: z.object({ rows: z.array(z.object({ id: z.number(), name: z.string(), price: z.number() })) }),
      execute: ({ rows }) => (received.push(rows), Math.min(...rows.map((row) => row.price))),
    }),
  ];
  // One session for the conversation, the plan tool made per turn as a server makes it per request.
  const session = createPlanSession();
  const turn = async (plan: unknown, input: string): Promise<PlanningModel> => {
    const model = new PlanningModel(plan);
    const result = await run(new Agent({ name: "shopper", instructions: "Shop.", model, tools: [planTool(tools, { session })] }), input);
    expect(result.finalOutput).toBe("ok");
    return model;
  };
  const first = await turn({ steps: [{ id: 1, tool: "search", args: { q: "pumps" } }] }, "Find pumps");
  expect(first.seen[1]).toEqual({
    status: "ok",
    nextStepId: 2,
    described: { "1": { tool: "search", type: "object", keys: { rows: "array of 400" } } },
  });
  const second = await turn({ steps: [{ id: 2, tool: "cheapest", args: { rows: "$1.rows" } }] }, "Which is cheapest?");
  expect(second.seen[1]).toEqual({ status: "ok", nextStepId: 3, described: { "2": { value: 100 } } });
  expect(received).toEqual([ROWS]);
  expect([...first.sent, ...second.sent].join("\n")).not.toContain("pump model 7 with");
  // The description the model read in turn 2 taught it to number from 2.
  expect(second.sent[1]).toContain("number this plan's steps from 2");
});
