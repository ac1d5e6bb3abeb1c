/**
 * Workload 12: starting a plan's steps while the model is still writing it. The AI SDK's test model
 * (MockLanguageModelV3) streams, through streamText, one plan-tool call whose input is a 12-step plan
 * in 4 dependency levels (3 steps a level, each reading one step of the level before), one step's text
 * every 40 ms; each tool call takes 100 ms. The same stream is answered by planTool without and with
 * `startEarly`: time to the first tool start after its step's closing `}` arrived, time to the plan
 * tool's result (the model's next turn excluded) and model round trips, side by side; and the physical
 * bound, the latest over all steps of (when its `}` arrived + the longest chain of tool times from it).
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { stepCountIs, streamText, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { planTool, type PlanCallResult } from "../../src/ai-sdk/index.js";
import { median, type Row, type Workload } from "../harness.js";

const STEP_TEXT_MS = 40;
const TOOL_MS = 100;
const LEVELS = 4;
const WIDTH = 3;
const ROUNDS = 5;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** Step ids 1–12: level L has steps 3L−2 … 3L; step k of a level reads step k of the level before. */
const steps = Array.from({ length: LEVELS * WIDTH }, (_, i) => {
  const id = i + 1;
  const level = Math.floor(i / WIDTH) + 1;
  return { id, tool: "add", args: level === 1 ? { a: id, b: 1 } : { a: `$${id - WIDTH}.value`, b: 1 } };
});
const levelOf = (id: number): number => Math.floor((id - 1) / WIDTH) + 1;
const planText = JSON.stringify({ steps });

/** One run: when each step's `}` arrived, when each tool started, when the plan tool answered (ms from the start). */
interface Timeline {
  readonly braceAt: Map<number, number>;
  readonly startedAt: Map<number, number>;
  /** How long each tool call took (its timer, as this loaded machine kept it). */
  readonly took: Map<number, number>;
  resultAt: number;
  trips: number;
}

async function once(startEarly: boolean): Promise<Timeline> {
  const t0 = performance.now();
  const now = (): number => performance.now() - t0;
  const timeline: Timeline = { braceAt: new Map(), startedAt: new Map(), took: new Map(), resultAt: 0, trips: 0 };
  const tools = {
    add: tool({
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ value: z.number() }),
      execute: async ({ a, b }, { toolCallId }) => {
        const id = Number(toolCallId.split(":").at(-1));
        const started = now();
        timeline.startedAt.set(id, started);
        await sleep(TOOL_MS);
        timeline.took.set(id, now() - started);
        return { value: a + b };
      },
    }),
  };
  const model = new MockLanguageModelV3({
    doStream: async () => {
      timeline.trips++;
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          async start(controller) {
            controller.enqueue({ type: "stream-start", warnings: [] });
            controller.enqueue({ type: "tool-input-start", id: "plan", toolName: "run_plan" });
            controller.enqueue({ type: "tool-input-delta", id: "plan", delta: '{"steps":[' });
            for (const [i, step] of steps.entries()) {
              await sleep(STEP_TEXT_MS);
              timeline.braceAt.set(step.id, now());
              controller.enqueue({ type: "tool-input-delta", id: "plan", delta: `${i === 0 ? "" : ","}${JSON.stringify(step)}` });
            }
            controller.enqueue({ type: "tool-input-delta", id: "plan", delta: "]}" });
            controller.enqueue({ type: "tool-input-end", id: "plan" });
            controller.enqueue({ type: "tool-call", toolCallId: "plan", toolName: "run_plan", input: planText });
            controller.enqueue({ type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage });
            controller.close();
          },
        }),
      };
    },
  });
  const run_plan = planTool(tools, startEarly ? { startEarly: ["add"] } : {});
  const result = streamText({ model, tools: { run_plan }, stopWhen: stepCountIs(1), prompt: "add" });
  for await (const part of result.fullStream) {
    if (part.type === "tool-result") {
      timeline.resultAt = now();
      const answer = part.output as PlanCallResult;
      if (answer.status !== "ok") throw new Error(`workload 12: the plan ${answer.status}: ${JSON.stringify(answer)}`);
    }
  }
  return timeline;
}

/**
 * The physical bound of a run: the latest over all steps of its `}` + the chain of tool times from it
 * (its own included), with the tool times measured in that run (a timer of 100 ms takes longer on a
 * loaded machine, for the bound as for the run).
 */
function boundOf(timeline: Timeline): number {
  const chain = (id: number): number => timeline.took.get(id)! + (levelOf(id) < LEVELS ? chain(id + WIDTH) : 0);
  return Math.max(...steps.map((step) => timeline.braceAt.get(step.id)! + chain(step.id)));
}

const names = {
  whole: "whole plan (planTool, the input waited for)",
  streamed: "streamed (planTool with startEarly)",
  bound: "the physical bound (a } + the chain after it)",
} as const;

const workload: Workload = {
  id: "12",
  title: `Steps started while the model writes the plan: 12 steps in ${LEVELS} levels, ${STEP_TEXT_MS} ms a step's text, ${TOOL_MS} ms a tool`,
  async run() {
    await once(false); // warm-up
    await once(true);
    const result = {
      whole: [] as number[],
      streamed: [] as number[],
      bound: [] as number[],
      firstLag: [] as number[],
      wholeFirst: [] as number[],
    };
    const trips = { whole: 0, streamed: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      for (const streamed of round % 2 === 0 ? [false, true] : [true, false]) {
        const timeline = await once(streamed);
        if (streamed) {
          result.streamed.push(timeline.resultAt);
          result.bound.push(boundOf(timeline));
          result.firstLag.push(timeline.startedAt.get(1)! - timeline.braceAt.get(1)!);
          trips.streamed = timeline.trips;
        } else {
          result.whole.push(timeline.resultAt);
          result.wholeFirst.push(timeline.startedAt.get(1)! - timeline.braceAt.get(1)!);
          trips.whole = timeline.trips;
        }
      }
    }
    const ns = (ms: readonly number[]): number[] => ms.map((value) => value * 1e6);
    const rows: Row[] = [
      {
        name: names.whole,
        medianNs: median(ns(result.whole)),
        roundsNs: ns(result.whole),
        note: `${trips.whole} model round trip; first tool ${median(result.wholeFirst).toFixed(1)} ms after its }`,
      },
      {
        name: names.streamed,
        medianNs: median(ns(result.streamed)),
        roundsNs: ns(result.streamed),
        note: `${trips.streamed} model round trip; first tool ${median(result.firstLag).toFixed(2)} ms after its }`,
      },
      { name: names.bound, medianNs: median(ns(result.bound)), roundsNs: ns(result.bound) },
    ];
    const ratio = median(result.streamed) / median(result.bound);
    const lag = median(result.firstLag);
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows,
      baselines: [names.bound],
      targets: [
        {
          description: "first tool start after its step's closing } arrived (streamed)",
          measured: lag,
          limit: 10,
          kind: "max",
          unit: "ms",
          met: lag <= 10,
        },
        {
          description: "streamed time to the plan tool's result ÷ the physical bound",
          measured: ratio,
          limit: 1.15,
          kind: "max",
          unit: "×",
          met: ratio <= 1.15,
        },
      ],
      notes: [
        `Time from the start of streamText to the plan tool's result (the model's next turn excluded), median of ${ROUNDS} rounds, the order alternating. Whole plan ≈ the time to write it (${steps.length} × ${STEP_TEXT_MS} ms) + the critical path (${LEVELS} × ${TOOL_MS} ms) = ${steps.length * STEP_TEXT_MS + LEVELS * TOOL_MS} ms.`,
        "The bound's tool times are those measured in the same run. The AI SDK calls a tool's execute only after the model's step has finished; the early steps started from onInputDelta, and execute joins their run.",
      ],
    };
  },
};

export default workload;
