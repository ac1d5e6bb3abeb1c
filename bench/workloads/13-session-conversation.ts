/**
 * Workload 13: results by reference across a conversation. Three turns (search → filter → summarise),
 * each a generateText call with the AI SDK's test model (MockLanguageModelV3) over the history so far,
 * each turn one plan-tool call and one answer. Turn 1's search result is about 50 KB of hits.
 * (a) By value, as without a session: each answer carries the results, `maxResultChars` raised above
 * the result so the whole value goes back, and the model retypes the hits into the next plan's
 * arguments. (b) By reference: one plan session for the conversation; answers describe large results,
 * the next plan says `$1.hits`. Measured: the characters sent to the model (prompt and tools, every
 * model call) and received from it (tool-call inputs and text), model round trips, and wall time.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Content } from "@ai-sdk/provider";
import { generateText, stepCountIs, tool, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { planTool, type PlanCallResult } from "../../src/ai-sdk/index.js";
import { createPlanSession } from "../../src/run/index.js";
import { median, type Row, type Workload } from "../harness.js";

const ROUNDS = 5;
const HITS = 400;
/** Above the ~50 KB result, so that by value the whole of it goes back to the model. */
const BY_VALUE_MAX_RESULT_CHARS = 200_000;
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

const hit = z.object({ id: z.number(), title: z.string(), price: z.number(), snippet: z.string() });
const HIT_LIST = Array.from({ length: HITS }, (_, i) => ({
  id: i,
  title: `Pump ${i}`,
  price: 50 + ((i * 37) % 500),
  snippet: `A quiet circulation pump, model ${i}, for heating systems of up to ${i % 9} floors.`,
}));

const tools = {
  search: tool({
    description: "Searches the catalogue",
    inputSchema: z.object({ q: z.string() }),
    outputSchema: z.object({ hits: z.array(hit) }),
    execute: () => ({ hits: HIT_LIST }),
  }),
  filter: tool({
    description: "Keeps the hits at most maxPrice",
    inputSchema: z.object({ hits: z.array(hit), maxPrice: z.number() }),
    outputSchema: z.object({ hits: z.array(hit) }),
    execute: ({ hits, maxPrice }) => ({ hits: hits.filter((h) => h.price <= maxPrice) }),
  }),
  summarise: tool({
    description: "Counts the hits and their mean price",
    inputSchema: z.object({ hits: z.array(hit) }),
    outputSchema: z.object({ count: z.number(), meanPrice: z.number() }),
    execute: ({ hits }) => ({ count: hits.length, meanPrice: Math.round(hits.reduce((sum, h) => sum + h.price, 0) / hits.length) }),
  }),
};

const QUESTIONS = ["Search the catalogue for pumps", "Keep those at most 300", "Summarise them"];

/** Each turn's plan, given the last plan answer the model read (by value it retypes the hits from it). */
type Planner = (turn: number, last: PlanCallResult | undefined) => unknown;

const byValue: Planner = (turn, last) => {
  const hits = (): unknown => (last!.results!["1"] as { hits: unknown }).hits;
  if (turn === 0) return { steps: [{ id: 1, tool: "search", args: { q: "pumps" } }] };
  if (turn === 1) return { steps: [{ id: 1, tool: "filter", args: { hits: hits(), maxPrice: 300 } }] };
  return { steps: [{ id: 1, tool: "summarise", args: { hits: hits() } }] };
};

const byReference: Planner = (turn) => {
  if (turn === 0) return { steps: [{ id: 1, tool: "search", args: { q: "pumps" } }] };
  if (turn === 1) return { steps: [{ id: 2, tool: "filter", args: { hits: "$1.hits", maxPrice: 300 } }] };
  return { steps: [{ id: 3, tool: "summarise", args: { hits: "$2.hits" } }] };
};

/** The summary the last answer holds, either way. */
function summary(result: PlanCallResult): unknown {
  return result.results !== undefined ? result.results["1"] : (result.described!["3"] as { value: unknown }).value;
}

function lastPlanAnswer(prompt: LanguageModelV3CallOptions["prompt"]): PlanCallResult | undefined {
  const part = prompt
    .filter((entry) => entry.role === "tool")
    .at(-1)
    ?.content.filter((entry) => entry.type === "tool-result")
    .at(-1);
  return part?.output.type === "json" ? (part.output.value as unknown as PlanCallResult) : undefined;
}

interface Conversation {
  readonly sent: number;
  readonly received: number;
  readonly trips: number;
  readonly text: string;
}

/** Three turns over one history; the plan tool made per turn (a server route makes it per request). */
async function converse(planner: Planner, makePlanTool: () => ReturnType<typeof planTool>): Promise<Conversation> {
  let sent = 0;
  let received = 0;
  let trips = 0;
  let text = "";
  const history: ModelMessage[] = [];
  for (let turn = 0; turn < QUESTIONS.length; turn++) {
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        trips++;
        sent += JSON.stringify(options.prompt).length + JSON.stringify(options.tools ?? []).length;
        const last = lastPlanAnswer(options.prompt);
        // A turn starts with the user's question last; after its plan's answer, the model answers in text.
        const planning = options.prompt.at(-1)?.role === "user";
        if (!planning && last?.status !== "ok")
          throw new Error(`workload 13: turn ${turn + 1}'s plan ${last?.status}: ${JSON.stringify(last).slice(0, 500)}`);
        const content: LanguageModelV3Content[] = planning
          ? [{ type: "tool-call", toolCallId: `turn-${turn}`, toolName: "run_plan", input: JSON.stringify(planner(turn, last)) }]
          : [{ type: "text", text: turn === QUESTIONS.length - 1 ? JSON.stringify(summary(last!)) : `step done (turn ${turn + 1})` }];
        for (const part of content) received += part.type === "tool-call" ? part.input.length : part.type === "text" ? part.text.length : 0;
        return { content, finishReason: { unified: planning ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
      },
    });
    history.push({ role: "user", content: QUESTIONS[turn]! });
    const result = await generateText({ model, tools: { run_plan: makePlanTool() }, stopWhen: stepCountIs(3), messages: history });
    history.push(...result.response.messages);
    text = result.text;
  }
  return { sent, received, trips, text };
}

const names = {
  value: "by value: results back to the model, retyped into the next plan",
  reference: "by reference: a plan session, $1.hits",
} as const;

const tasks: Record<string, () => Promise<Conversation>> = {
  [names.value]: () => converse(byValue, () => planTool(tools, { maxResultChars: BY_VALUE_MAX_RESULT_CHARS })),
  [names.reference]: () => {
    // One session per conversation, never shared between two.
    const session = createPlanSession();
    return converse(byReference, () => planTool(tools, { session }));
  },
};

const workload: Workload = {
  id: "13",
  title:
    "Results by reference across a conversation: 3 turns (search → filter → summarise), a 50 KB intermediate result, the AI SDK's test model",
  async run() {
    const times = new Map<string, number[]>(Object.keys(tasks).map((name) => [name, []]));
    const seen = new Map<string, Conversation>();
    for (const run of Object.values(tasks)) await run(); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? Object.keys(tasks) : Object.keys(tasks).reverse();
      for (const name of order) {
        const start = performance.now();
        const done = await tasks[name]!();
        times.get(name)!.push((performance.now() - start) * 1e6);
        seen.set(name, done);
      }
    }
    const value = seen.get(names.value)!;
    const reference = seen.get(names.reference)!;
    if (value.text !== reference.text) throw new Error(`workload 13: the two ways answered differently: ${value.text} | ${reference.text}`);
    if (value.trips !== reference.trips)
      throw new Error(`workload 13: ${value.trips} model round trips by value, ${reference.trips} by reference`);
    const resultChars = JSON.stringify({ hits: HIT_LIST }).length;
    const rows: Row[] = Object.keys(tasks).map((name) => {
      const c = seen.get(name)!;
      return {
        name,
        medianNs: median(times.get(name)!),
        roundsNs: times.get(name)!,
        note: `${c.sent.toLocaleString("en")} characters sent to the model, ${c.received.toLocaleString("en")} received, ${c.trips} model round trips`,
      };
    });
    const measured = (value.sent + value.received) / (reference.sent + reference.received);
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows,
      baselines: [names.value],
      targets: [
        {
          description: "characters to and from the model, by value ÷ by reference (3 turns, 50 KB result)",
          measured,
          limit: 10,
          kind: "min",
          unit: "×",
          met: measured >= 10,
        },
      ],
      notes: [
        `The search result is ${resultChars.toLocaleString("en")} characters of JSON (${HITS} hits); the filter keeps those at most 300. Each turn is one generateText over the whole history (as a chat sends it), 2 model round trips a turn; the answers of the two ways are checked equal (${value.text}) and so are the round trips (${value.trips}).`,
        `The characters counted are every model call's prompt and tool list as JSON (sent) and its tool-call inputs and text (received). Median wall time of ${ROUNDS} rounds, the order alternating; the test model answers at once, so the time is the SDK's, the linter's, the runner's and JSON's, no model time — a real model would also spend its output time retyping the hits by value (${value.received.toLocaleString("en")} characters out against ${reference.received.toLocaleString("en")}).`,
      ],
    };
  },
};

export default workload;
