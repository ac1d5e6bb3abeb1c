/**
 * plan-refs/ai-sdk with the current AI SDK major (this folder's `ai`, which the matrix's configuration
 * makes every import of "ai" load, src/ai-sdk's too) and its own test model of that major,
 * MockLanguageModelV4: the story of test/ai-sdk/story.ts through generateText and streamText. The
 * root's ai 6 has no V4 model, so this file runs only in the matrix (its name is not a root test's).
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { generateText, stepCountIs, streamText } from "ai";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { describe, expect, test } from "vitest";
import { planTool } from "../../src/ai-sdk/index.js";
import { expectTheStory, finishReason, makeTools, modelSteps, streamParts, usage, type Calls } from "../ai-sdk/story.js";

describe("planTool in the current AI SDK's own loop, with its V4 test model", () => {
  test("generateText: typo → diagnostic → corrected plan → parallel run → the output reaches model step 3", async () => {
    const calls: Calls = { times: new Map(), ids: [] };
    const seen: unknown[] = [];
    const decide = modelSteps(seen);
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        const content = decide(options);
        return { content, finishReason: finishReason(content), usage, warnings: [] };
      },
    });
    const result = await generateText({
      model,
      tools: { run_plan: planTool(makeTools(calls)) },
      stopWhen: stepCountIs(4),
      prompt: "Weather and air in Lisbon?",
    });
    expect(model.specificationVersion).toBe("v4");
    expect(result.text).toBe("Lisbon: 21 °C, air quality 17");
    expect(result.steps).toHaveLength(3);
    expectTheStory(seen, calls);
    // The model was shown the plan tool with the plan schema over the three tools.
    const offered = model.doGenerateCalls[0]!.tools!;
    expect(offered.map((entry) => entry.name)).toEqual(["run_plan"]);
    const schema = JSON.stringify((offered[0] as { inputSchema: unknown }).inputSchema);
    for (const name of ["geocode", "weather", "airQuality"]) expect(schema).toContain(`"enum":["${name}"]`);
  });

  test("streamText: the same story through the streaming loop", async () => {
    const calls: Calls = { times: new Map(), ids: [] };
    const seen: unknown[] = [];
    const decide = modelSteps(seen);
    const model = new MockLanguageModelV4({
      doStream: async (options) => ({ stream: convertArrayToReadableStream<LanguageModelV4StreamPart>(streamParts(decide(options))) }),
    });
    const result = streamText({
      model,
      tools: { run_plan: planTool(makeTools(calls)) },
      stopWhen: stepCountIs(4),
      prompt: "Weather and air in Lisbon?",
    });
    expect(await result.text).toBe("Lisbon: 21 °C, air quality 17");
    expect(await result.steps).toHaveLength(3);
    expectTheStory(seen, calls);
    expect(model.doStreamCalls).toHaveLength(3);
  });
});
