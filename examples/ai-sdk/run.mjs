// `npm run example:ai-sdk`: an AI SDK agent with three Zod tools and the plan tool, offline. The model
// is the AI SDK's own test model, scripted like a planner: its first plan has a
// typo, it reads the linter's diagnostic in the tool result, sends the corrected plan (which runs with
// its two independent steps at the same time) and answers from the results in its third step.
// Run `npm run build` first (npm run example:ai-sdk does).
// It runs on ai 7 and on ai 6: ai 7's test model is MockLanguageModelV4 (of the V4 model specification
// that ai 7 speaks); ai 6 has only MockLanguageModelV3, whose results have the same shape here. ai 7
// still exports V3 too, but its own model is V4, so the example takes the newest one there is.
import { generateText, stepCountIs, tool } from "ai";
import * as aiTest from "ai/test";
import { z } from "zod";
import { planTool } from "../../dist/ai-sdk/index.js";

const tools = {
  geocode: tool({
    description: "A city's coordinates",
    inputSchema: z.object({ city: z.string() }),
    outputSchema: z.object({ lat: z.number(), lon: z.number() }),
    execute: async ({ city }) => ({ Lisbon: { lat: 38.72, lon: -9.14 }, Oslo: { lat: 59.91, lon: 10.75 } })[city] ?? { lat: 0, lon: 0 },
  }),
  weather: tool({
    description: "Today's forecast at a place",
    inputSchema: z.object({ lat: z.number(), lon: z.number() }),
    outputSchema: z.object({ tempC: z.number(), sky: z.string() }),
    execute: async ({ lat }) => (lat > 50 ? { tempC: 4, sky: "snow" } : { tempC: 21, sky: "sunny" }),
  }),
  airQuality: tool({
    description: "The air quality index at a place",
    inputSchema: z.object({ lat: z.number(), lon: z.number() }),
    outputSchema: z.object({ aqi: z.number() }),
    execute: async ({ lon }) => ({ aqi: lon < 0 ? 17 : 42 }),
  }),
};

const plan = (lonKey) => ({
  steps: [
    { id: 1, tool: "geocode", args: { city: "Lisbon" } },
    { id: 2, tool: "weather", args: { lat: "$1.lat", lon: `$1.${lonKey}` } },
    { id: 3, tool: "airQuality", args: { lat: "$1.lat", lon: "$1.lon" } },
  ],
});

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const call = (id, args) => ({
  content: [{ type: "tool-call", toolCallId: id, toolName: "run_plan", input: JSON.stringify(args) }],
  finishReason: { unified: "tool-calls", raw: undefined },
  usage,
  warnings: [],
});

const MockLanguageModel = aiTest.MockLanguageModelV4 ?? aiTest.MockLanguageModelV3;
const model = new MockLanguageModel({
  doGenerate: async ({ prompt }) => {
    const tool = prompt.filter((message) => message.role === "tool").at(-1);
    const answer = tool?.content.at(-1)?.output.value;
    if (answer === undefined) return call("call-1", plan("lonn"));
    if (answer.status === "invalid") return call("call-2", plan("lon"));
    const { 2: weather, 3: air } = answer.results;
    return {
      content: [{ type: "text", text: `Lisbon today: ${weather.tempC} °C and ${weather.sky}, air quality index ${air.aqi}.` }],
      finishReason: { unified: "stop", raw: undefined },
      usage,
      warnings: [],
    };
  },
});

const result = await generateText({
  model,
  tools: { run_plan: planTool(tools) },
  stopWhen: stepCountIs(4),
  prompt: "What is the weather and the air like in Lisbon today?",
});

for (const [index, step] of result.steps.entries()) {
  console.log(`model step ${index + 1}:`);
  for (const toolCall of step.toolCalls) console.log(`  calls ${toolCall.toolName} ${JSON.stringify(toolCall.input)}`);
  for (const toolResult of step.toolResults) console.log(`  gets ${JSON.stringify(toolResult.output)}`);
  if (step.text !== "") console.log(`  says ${JSON.stringify(step.text)}`);
}
