/**
 * Workload 9: a whole plan as one tool call against the AI SDK's own multi-step loop. The same work,
 * a 10-step plan in 5 dependency levels (2 steps a level, each reading both results of the level
 * before), done (a) as one call of plan-refs/ai-sdk's planTool and (b) by generateText's own loop
 * making one model step per level (its 2 calls of a level in parallel, as a model does). The model is
 * the AI SDK's test model (MockLanguageModelV3) taking a fixed 100 ms per model step; each tool call
 * takes 20 ms. LLMCompiler's claim (up to 3.7× lower latency than ReAct) measured on this code: wall
 * time and model round trips side by side.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Content } from "@ai-sdk/provider";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { planTool, type PlanCallResult } from "../../src/ai-sdk/index.js";
import { median, type Row, type Workload } from "../harness.js";

const MODEL_MS = 100;
const TOOL_MS = 20;
const LEVELS = 5;
const ROUNDS = 5;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

const tools = {
  add: tool({
    description: "a + b, after 20 ms",
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    outputSchema: z.object({ value: z.number() }),
    execute: async ({ a, b }) => {
      await sleep(TOOL_MS);
      return { value: a + b };
    },
  }),
};

/** Step ids 1–10: level L has steps 2L−1 and 2L; each reads both steps of level L−1 (level 1: literals). */
const plan = {
  steps: Array.from({ length: 2 * LEVELS }, (_, i) => {
    const level = Math.floor(i / 2) + 1;
    const id = i + 1;
    return level === 1
      ? { id, tool: "add", args: { a: id, b: 1 } }
      : { id, tool: "add", args: { a: `$${2 * level - 3}.value`, b: `$${2 * level - 2}.value` } };
  }),
};

/** What the final answer says: the two values of the last level. */
const answer = (values: readonly number[]): string => `the last level gives ${values.join(" and ")}`;

function model(decide: (options: LanguageModelV3CallOptions) => LanguageModelV3Content[]): {
  model: MockLanguageModelV3;
  steps: () => number;
} {
  let steps = 0;
  const mock = new MockLanguageModelV3({
    doGenerate: async (options) => {
      steps++;
      await sleep(MODEL_MS);
      const content = decide(options);
      return {
        content,
        finishReason: { unified: content[0]!.type === "tool-call" ? "tool-calls" : "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  return { model: mock, steps: () => steps };
}

/** The tool results of the last model step, in the order they came. */
function lastResults(prompt: LanguageModelV3CallOptions["prompt"]): unknown[] {
  const message = prompt.filter((entry) => entry.role === "tool").at(-1);
  return (message?.content ?? []).flatMap((part) =>
    part.type === "tool-result" && part.output.type === "json" ? [part.output.value] : [],
  );
}

/** (a) One plan-tool call: step 1 sends the whole plan, step 2 answers from its results. */
async function withPlanTool(): Promise<{ text: string; steps: number }> {
  const { model: mock, steps } = model(({ prompt }) => {
    const [result] = lastResults(prompt) as PlanCallResult[];
    if (result === undefined) return [{ type: "tool-call", toolCallId: "plan", toolName: "run_plan", input: JSON.stringify(plan) }];
    if (result.status !== "ok") throw new Error(`workload 9: the plan ${result.status}: ${JSON.stringify(result)}`);
    return [
      { type: "text", text: answer([2 * LEVELS - 1, 2 * LEVELS].map((id) => (result.results![String(id)] as { value: number }).value)) },
    ];
  });
  const result = await generateText({
    model: mock,
    tools: { run_plan: planTool(tools) },
    stopWhen: stepCountIs(4),
    prompt: "run the levels",
  });
  return { text: result.text, steps: steps() };
}

/** (b) The SDK's loop: one model step per level (its two calls in parallel), then the answer. */
async function withModelLoop(): Promise<{ text: string; steps: number }> {
  let level = 0;
  const { model: mock, steps } = model(({ prompt }) => {
    const previous = (lastResults(prompt) as { value: number }[]).map((result) => result.value);
    level++;
    if (level > LEVELS) return [{ type: "text", text: answer(previous) }];
    return [0, 1].map((k) => {
      const id = 2 * level - 1 + k;
      const args = level === 1 ? { a: id, b: 1 } : { a: previous[0], b: previous[1] };
      return { type: "tool-call", toolCallId: `level-${level}-${k}`, toolName: "add", input: JSON.stringify(args) };
    });
  });
  const result = await generateText({ model: mock, tools, stopWhen: stepCountIs(LEVELS + 2), prompt: "run the levels" });
  return { text: result.text, steps: steps() };
}

const names = { plan: "one planTool call (10 steps, 5 levels)", loop: "the AI SDK's multi-step loop, one model step per level" } as const;

const workload: Workload = {
  id: "9",
  title: "A plan as one tool call against the AI SDK's own loop: 10 steps in 5 levels, 100 ms a model step, 20 ms a tool call",
  async run() {
    const tasks: Record<string, () => Promise<{ text: string; steps: number }>> = {
      [names.plan]: withPlanTool,
      [names.loop]: withModelLoop,
    };
    const times = new Map<string, number[]>(Object.keys(tasks).map((name) => [name, []]));
    const trips = new Map<string, number>();
    const texts = new Set<string>();
    for (const run of Object.values(tasks)) await run(); // warm-up: the SDK's and plan-refs' code compiled
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? Object.keys(tasks) : Object.keys(tasks).reverse();
      for (const name of order) {
        const start = performance.now();
        const done = await tasks[name]!();
        times.get(name)!.push((performance.now() - start) * 1e6);
        trips.set(name, done.steps);
        texts.add(done.text);
      }
    }
    if (texts.size !== 1) throw new Error(`workload 9: the two ways answered differently: ${[...texts].join(" | ")}`);
    const rows: Row[] = Object.keys(tasks).map((name) => ({
      name,
      medianNs: median(times.get(name)!),
      roundsNs: times.get(name)!,
      note: `${trips.get(name)} model round trips`,
    }));
    const measured = rows[0]!.medianNs / rows[1]!.medianNs;
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows,
      baselines: [names.loop],
      targets: [
        {
          description: "planTool wall time ÷ the SDK's loop wall time (10 steps, 5 levels)",
          measured,
          limit: 0.6,
          kind: "max",
          unit: "×",
          met: measured <= 0.6,
        },
      ],
      notes: [
        `Each operation is one generateText call over the same work; the answers of the two ways are checked equal (${[...texts][0]}). Median of ${ROUNDS} rounds, the order alternating.`,
        `The floor of each: the plan tool ${2 * MODEL_MS} ms of model time (the plan, then the answer) + ${LEVELS} × ${TOOL_MS} ms of tools, levels one after the other = ${2 * MODEL_MS + LEVELS * TOOL_MS} ms; the loop ${LEVELS + 1} model steps × ${MODEL_MS} ms + ${LEVELS} × ${TOOL_MS} ms = ${(LEVELS + 1) * MODEL_MS + LEVELS * TOOL_MS} ms. What is above the floor is the SDK's, the linter's and the runner's own time.`,
        "The plan's intermediate results never pass through the model's context: the model sees one tool result, the plan's answer. With a real model the gap grows with the model's latency and with the tokens each round trip re-reads.",
      ],
    };
  },
};

export default workload;
