/**
 * The three plan tools answer one type (`PlanCallResult`): each row runs one plan through the AI SDK's
 * `planTool`, the Agents SDK's `run_plan` and the MCP server's `run_plan` (the SDK's client and server
 * in memory) and expects the same answer from all three: `output` and never `results` when the plan
 * has one, empty fields left out, `suspended` with `pending` for a gated tool, `too-many-steps` over
 * `maxSteps`, the whole answer within `maxAnswerChars`.
 */
import { tool as agentTool } from "@openai/agents";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { tool as aiTool } from "ai";
import { afterAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { planTool as aiPlanTool } from "../../src/ai-sdk/index.js";
import type { PlanCallOptions, PlanCallResult } from "../../src/agents/plan-call.js";
import { createPlanServer } from "../../src/mcp/index.js";
import { planTool as agentsPlanTool } from "../../src/openai-agents/index.js";
import { requireApproval } from "../../src/run/index.js";

const closing: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

const fail = (_args: { n: number }): string => {
  throw new Error("out of order");
};
const count = ({ n }: { n: number }) => ({ n });
const big = ({ n }: { n: number }) => "x".repeat(n);
const pay = ({ amount }: { amount: number }) => `paid ${amount}`;

type Adapter = (plan: unknown, options: PlanCallOptions) => Promise<PlanCallResult>;

const aiSdk: Adapter = (plan, options) => {
  const tools = {
    count: aiTool({ inputSchema: z.object({ n: z.number() }), outputSchema: z.object({ n: z.number() }), execute: count }),
    big: aiTool({ inputSchema: z.object({ n: z.number() }), execute: big }),
    fail: aiTool({ inputSchema: z.object({ n: z.number() }), execute: fail }),
    pay: aiTool({ inputSchema: z.object({ amount: z.number() }), needsApproval: true, execute: pay }),
  };
  return aiPlanTool(tools, options).execute!(plan, { toolCallId: "run-1", messages: [] }) as Promise<PlanCallResult>;
};

const agents: Adapter = async (plan, options) => {
  const tools = [
    agentTool({
      name: "count",
      description: "n",
      parameters: z.object({ n: z.number() }),
      outputSchema: z.object({ n: z.number() }),
      execute: count,
    }),
    agentTool({ name: "big", description: "x", parameters: z.object({ n: z.number() }), execute: big }),
    // No error function: the error reaches the plan as a failed step (the SDK would otherwise answer its text).
    agentTool({ name: "fail", description: "fails", parameters: z.object({ n: z.number() }), execute: fail, errorFunction: null }),
    agentTool({ name: "pay", description: "pays", parameters: z.object({ amount: z.number() }), needsApproval: true, execute: pay }),
  ];
  return JSON.parse(await agentsPlanTool(tools, options).invoke(undefined, JSON.stringify(plan))) as PlanCallResult;
};

const object = (properties: Record<string, unknown>) => ({ type: "object", properties, required: Object.keys(properties) });
const mcp: Adapter = async (plan, options) => {
  const server = await createPlanServer({
    tools: {
      count: (args) => count(args as { n: number }),
      big: (args) => big(args as { n: number }),
      fail: (args) => fail(args as { n: number }),
      pay: requireApproval((args) => pay(args as { amount: number })),
    },
    catalog: {
      count: { input: object({ n: { type: "number" } }), output: object({ n: { type: "number" } }) },
      big: { input: object({ n: { type: "number" } }) },
      fail: { input: object({ n: { type: "number" } }) },
      pay: { input: object({ amount: { type: "number" } }) },
    },
    options,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  closing.push(
    () => client.close(),
    () => server.close(),
  );
  const answer = (await client.callTool({ name: "run_plan", arguments: plan as Record<string, unknown> })) as unknown as {
    structuredContent: PlanCallResult;
  };
  return answer.structuredContent;
};

const steps = (...list: [string, Record<string, unknown>][]) => list.map(([tool, args], i) => ({ id: i + 1, tool, args }));

/** One plan, its options, and the answer every adapter gives (`runId` is each adapter's own, so it is only checked to be there). */
const ROWS: readonly { name: string; plan: unknown; options?: PlanCallOptions; answer: (answer: PlanCallResult) => void }[] = [
  {
    name: "no output: results, and no empty errors, skipped or pending",
    plan: { steps: steps(["count", { n: 1 }], ["count", { n: "$1.n" }]) },
    answer: (answer) => expect(answer).toEqual({ status: "ok", results: { "1": { n: 1 }, "2": { n: 1 } } }),
  },
  {
    name: "with output: output and never results",
    plan: { steps: steps(["count", { n: 2 }], ["count", { n: "$1.n" }]), output: { total: "$2.n" } },
    answer: (answer) => expect(answer).toEqual({ status: "ok", output: { total: 2 } }),
  },
  {
    name: "a failed step: errors and skipped",
    plan: { steps: steps(["fail", { n: 1 }], ["count", { n: "$1" }], ["count", { n: 3 }]) },
    answer: (answer) => {
      expect(answer).toMatchObject({ status: "failed", results: { "3": { n: 3 } }, skipped: [2] });
      expect(Object.keys(answer.errors!)).toEqual(["1"]);
      expect(JSON.stringify(answer.errors)).toContain("out of order");
    },
  },
  {
    name: "a failed step with output: outputError, no results",
    plan: { steps: steps(["fail", { n: 1 }], ["count", { n: 3 }]), output: { one: "$1" } },
    answer: (answer) => {
      expect(answer).toMatchObject({ status: "failed", outputError: { code: "unresolved-output" } });
      expect(answer).not.toHaveProperty("results");
    },
  },
  {
    name: "a gated tool: suspended, with the resolved arguments it would run with",
    plan: { steps: steps(["count", { n: 7 }], ["pay", { amount: "$1.n" }]) },
    answer: (answer) => {
      expect(answer).toMatchObject({
        status: "suspended",
        results: { "1": { n: 7 } },
        pending: { "2": { tool: "pay", args: { amount: 7 } } },
      });
      expect(typeof answer.runId).toBe("string");
    },
  },
  {
    name: "more steps than maxSteps: too-many-steps, nothing runs",
    plan: { steps: steps(["count", { n: 1 }], ["count", { n: 2 }], ["count", { n: 3 }]) },
    options: { maxSteps: 2 },
    answer: (answer) =>
      expect(answer).toEqual({
        status: "invalid",
        diagnostics: [{ code: "too-many-steps", message: "the plan has 3 steps; a plan of at most 2 is run", pointer: "/steps" }],
      }),
  },
  {
    name: "the whole answer within maxAnswerChars, each cut value marked",
    plan: { steps: steps(["big", { n: 900 }], ["big", { n: 900 }], ["big", { n: 900 }], ["big", { n: 10 }]) },
    options: { maxAnswerChars: 1_000 },
    answer: (answer) => {
      expect(JSON.stringify(answer).length).toBeLessThanOrEqual(1_000);
      expect(answer.results!["4"]).toBe("x".repeat(10));
      for (const id of ["1", "2", "3"]) expect(answer.results![id]).toMatch(/… \[cut: \d+ of 902 characters\]$/);
    },
  },
];

describe.each([
  ["the AI SDK's planTool", aiSdk],
  ["the Agents SDK's run_plan", agents],
  ["the MCP server's run_plan", mcp],
] as const)("%s answers the shared plan-call type", (_name, adapter) => {
  test.each(ROWS)("$name", async ({ plan, options, answer }) => {
    answer(await adapter(plan, options ?? {}));
  });
});
