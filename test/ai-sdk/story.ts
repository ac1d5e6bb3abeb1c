/**
 * The story the AI SDK tests tell with the SDK's own loop, shared by the test of the pinned major
 * (test/ai-sdk/plan-tool.test.ts, the V3 test model) and the runtime matrix's test of the current one
 * (test/runtimes/ai-sdk-current.matrix.ts, the V4 test model): the model sends a plan with a typo,
 * reads the diagnostic in the tool result, sends the corrected plan, which runs with its independent
 * steps at the same time, and reads the output in its third step. The prompt and content parts the
 * story reads and writes are the same in the V3 and V4 model specifications, so they are typed here
 * by their shape.
 */
import { tool } from "ai";
import { expect } from "vitest";
import { z } from "zod";
import type { PlanCallResult } from "../../src/ai-sdk/index.js";

export const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** When each tool call started and ended (the tools' own clocks), and what each received. */
export interface Calls {
  readonly times: Map<string, { start: number; end: number }>;
  readonly ids: string[];
}

/**
 * Three Zod tools. weather and airQuality each wait until both have started, so they end only if they
 * ran at the same time: run one after the other, the first never ends and the test fails on its
 * timeout (no guess of how long a parallel start may take).
 */
export function makeTools(calls: Calls) {
  let started = 0;
  let bothStarted!: () => void;
  const barrier = new Promise<void>((resolve) => (bothStarted = resolve));
  const timed = async <T>(name: string, id: string, work: () => T): Promise<T> => {
    calls.ids.push(id);
    const start = performance.now();
    if (name !== "geocode" && ++started === 2) bothStarted();
    if (name !== "geocode") await barrier;
    const value = work();
    calls.times.set(name, { start, end: performance.now() });
    return value;
  };
  return {
    geocode: tool({
      description: "A city's coordinates",
      inputSchema: z.object({ city: z.string() }),
      outputSchema: z.object({ lat: z.number(), lon: z.number() }),
      execute: ({ city }, { toolCallId }) =>
        timed("geocode", toolCallId, () => (city === "Lisbon" ? { lat: 38.72, lon: -9.14 } : { lat: 0, lon: 0 })),
    }),
    weather: tool({
      description: "The temperature at a place",
      inputSchema: z.object({ lat: z.number(), lon: z.number() }),
      outputSchema: z.object({ tempC: z.number() }),
      execute: ({ lat }, { toolCallId }) => timed("weather", toolCallId, () => ({ tempC: lat > 30 ? 21 : 30 })),
    }),
    airQuality: tool({
      description: "The air quality index at a place",
      inputSchema: z.object({ lat: z.number(), lon: z.number() }),
      outputSchema: z.object({ aqi: z.number() }),
      execute: ({ lon }, { toolCallId }) => timed("airQuality", toolCallId, () => ({ aqi: lon < 0 ? 17 : 80 })),
    }),
  };
}

export const plan = (lonKey: string) => ({
  steps: [
    { id: 1, tool: "geocode", args: { city: "Lisbon" } },
    { id: 2, tool: "weather", args: { lat: "$1.lat", lon: `$1.${lonKey}` } },
    { id: 3, tool: "airQuality", args: { lat: "$1.lat", lon: "$1.lon" } },
  ],
});

/** The messages of a model call's prompt, as far as the story reads them. */
export interface StoryCall {
  readonly prompt: readonly {
    readonly role: string;
    readonly content: string | readonly { readonly type: string; readonly output?: { readonly type: string; readonly value?: unknown } }[];
  }[];
}

/** What the story's model answers in one step: a call of the plan tool, or its closing text. */
export type StoryContent = { type: "tool-call"; toolCallId: string; toolName: string; input: string } | { type: "text"; text: string };

/** The value of the last tool result in the prompt the model is given (the V3 and V4 prompts alike). */
export function lastToolResult(prompt: StoryCall["prompt"]): unknown {
  const message = prompt.filter((entry) => entry.role === "tool").at(-1);
  const content = message === undefined || typeof message.content === "string" ? [] : message.content;
  const part = content.filter((entry) => entry.type === "tool-result").at(-1);
  return part?.output?.type === "json" ? part.output.value : part?.output;
}

/**
 * The model of the test: step 1 sends a plan with a typo'd key, step 2 reads the diagnostic and sends
 * the corrected plan, step 3 reads the results and answers in text. Each step's decision is recorded.
 */
export function modelSteps(seen: unknown[]): (options: StoryCall) => StoryContent[] {
  return ({ prompt }) => {
    const result = lastToolResult(prompt);
    seen.push(result);
    if (result === undefined)
      return [{ type: "tool-call", toolCallId: "call-1", toolName: "run_plan", input: JSON.stringify(plan("lonn")) }];
    const answer = result as PlanCallResult;
    if (answer.status === "invalid")
      return [{ type: "tool-call", toolCallId: "call-2", toolName: "run_plan", input: JSON.stringify(plan("lon")) }];
    if (answer.status !== "ok") return [{ type: "text", text: `the plan ${answer.status}` }];
    const weather = answer.results!["2"] as { tempC: number };
    const air = answer.results!["3"] as { aqi: number };
    return [{ type: "text", text: `Lisbon: ${weather.tempC} °C, air quality ${air.aqi}` }];
  };
}

/** Why a step of the story's model ends. */
export const finishReason = (content: readonly StoryContent[]) => ({
  unified: content[0]!.type === "tool-call" ? ("tool-calls" as const) : ("stop" as const),
  raw: undefined,
});

/** One step's answer as a model stream's parts: the tool call as one part, text as start, delta and end. */
export function streamParts(content: readonly StoryContent[]) {
  const parts: (
    | { type: "stream-start"; warnings: [] }
    | Extract<StoryContent, { type: "tool-call" }>
    | { type: "text-start" | "text-end"; id: string }
    | { type: "text-delta"; id: string; delta: string }
    | { type: "finish"; finishReason: ReturnType<typeof finishReason>; usage: typeof usage }
  )[] = [{ type: "stream-start", warnings: [] }];
  for (const part of content) {
    if (part.type === "tool-call") parts.push(part);
    else parts.push({ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: part.text }, { type: "text-end", id: "t" });
  }
  parts.push({ type: "finish", finishReason: finishReason(content), usage });
  return parts;
}

export function expectTheStory(seen: unknown[], calls: Calls): void {
  expect(seen).toHaveLength(3);
  expect(seen[0]).toBeUndefined();
  const invalid = seen[1] as PlanCallResult & { status: "invalid" };
  expect(invalid.status).toBe("invalid");
  expect(invalid.diagnostics).toHaveLength(1);
  expect(invalid.diagnostics![0]).toMatchObject({ code: "unknown-key", pointer: "/steps/1/args/lon" });
  expect(invalid.diagnostics![0]!.message).toContain(`did you mean "lon"?`);
  expect(seen[2]).toEqual({ status: "ok", results: { "1": { lat: 38.72, lon: -9.14 }, "2": { tempC: 21 }, "3": { aqi: 17 } } });
  // The invalid plan ran nothing; the corrected one ran every tool once, with ids of the plan tool's call.
  expect([...calls.ids].sort()).toEqual(["call-2:1", "call-2:2", "call-2:3"]);
  const geocode = calls.times.get("geocode")!;
  const weather = calls.times.get("weather")!;
  const air = calls.times.get("airQuality")!;
  expect(weather.start).toBeGreaterThanOrEqual(geocode.end);
  expect(air.start).toBeGreaterThanOrEqual(geocode.end);
  // weather and airQuality ran at the same time: each started before the other ended.
  expect(weather.start).toBeLessThan(air.end);
  expect(air.start).toBeLessThan(weather.end);
}
