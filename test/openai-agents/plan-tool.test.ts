/**
 * plan-refs/openai-agents with the Agents SDK's own runner: `run(agent, input)` with a Model of the
 * test's own (the SDK's model interface, no network) that calls run_plan with a plan with a typo,
 * reads the diagnostic, sends the corrected plan, and answers from its results.
 */
import { Agent, run, setTracingDisabled, tool, Usage, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { catalogFromAgentTools, planTool, type PlanCallResult } from "../../src/openai-agents/index.js";

beforeAll(() => setTracingDisabled(true));

const usage = new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 });

function makeTools(calls: string[]) {
  return [
    tool({
      name: "geocode",
      description: "A city's coordinates",
      parameters: z.object({ city: z.string(), country: z.string().nullable().optional() }),
      // Its output schema tells the linter the keys of its result.
      outputSchema: z.object({ lat: z.number(), lon: z.number() }),
      execute: ({ city, country }) => (calls.push(`geocode ${city} ${country ?? "-"}`), { lat: 38.72, lon: -9.14 }),
    }),
    tool({
      name: "weather",
      description: "The temperature at a place",
      parameters: z.object({ lat: z.number(), lon: z.number() }),
      execute: ({ lat }) => (calls.push(`weather ${lat}`), JSON.stringify({ tempC: 21 })),
    }),
    tool({
      name: "fails",
      description: "Always fails",
      parameters: z.object({ x: z.number() }),
      execute: () => {
        throw new Error("out of order");
      },
    }),
  ];
}

const plan = (key: string) => ({
  steps: [
    { id: 1, tool: "geocode", args: { city: "Lisbon", country: null } },
    { id: 2, tool: "weather", args: { lat: "$1.lat", lon: `$1.${key}` } },
  ],
});

/** The last run_plan result the model is shown, parsed. */
function lastPlanResult(request: ModelRequest): PlanCallResult | undefined {
  if (typeof request.input === "string") return undefined;
  const item = request.input.filter((entry) => entry.type === "function_call_result").at(-1) as
    { output: { type: string; text: string } | string } | undefined;
  if (item === undefined) return undefined;
  return JSON.parse(typeof item.output === "string" ? item.output : item.output.text) as PlanCallResult;
}

class PlanningModel implements Model {
  readonly seen: (PlanCallResult | undefined)[] = [];
  readonly tools: ModelRequest["tools"][] = [];
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const result = lastPlanResult(request);
    this.seen.push(result);
    this.tools.push(request.tools);
    const call = (id: string, args: unknown): ModelResponse => ({
      usage,
      output: [{ type: "function_call", callId: id, name: "run_plan", arguments: JSON.stringify(args), status: "completed" }],
    });
    if (result === undefined) return call("c1", plan("lonn"));
    if (result.status === "invalid") return call("c2", plan("lon"));
    const text = result.status === "ok" ? `Lisbon: ${(result.results!["2"] as { tempC: number }).tempC} °C` : `the plan ${result.status}`;
    return { usage, output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] }] };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not used");
  }
}

describe("planTool in the Agents SDK's runner", () => {
  test("run(agent, input): typo → diagnostic → corrected plan, each step through its tool's invoke → final message", async () => {
    const calls: string[] = [];
    const tools = makeTools(calls);
    const model = new PlanningModel();
    const agent = new Agent({ name: "planner", instructions: "Plan.", model, tools: [planTool(tools)] });
    const result = await run(agent, "Weather in Lisbon?");
    expect(result.finalOutput).toBe("Lisbon: 21 °C");
    expect(model.seen).toHaveLength(3);
    const invalid = model.seen[1] as PlanCallResult & { status: "invalid" };
    expect(invalid.status).toBe("invalid");
    expect(invalid.diagnostics).toEqual([expect.objectContaining({ code: "unknown-key", pointer: "/steps/1/args/lon" })]);
    expect(invalid.diagnostics![0]!.message).toContain(`did you mean "lon"?`);
    // The tool's own parser turned the strict null into "left out"; its JSON text answer became a value.
    expect(model.seen[2]).toEqual({ status: "ok", results: { "1": { lat: 38.72, lon: -9.14 }, "2": { tempC: 21 } } });
    expect(calls).toEqual(["geocode Lisbon -", "weather 38.72"]);
    // The model was offered run_plan, strict, with the plan schema over the three tools.
    const offered = model.tools[0]!.find((entry) => entry.type === "function" && entry.name === "run_plan") as
      { strict: boolean; parameters: unknown } | undefined;
    expect(offered?.strict).toBe(true);
    for (const name of ["geocode", "weather", "fails"]) expect(JSON.stringify(offered!.parameters)).toContain(`"enum":["${name}"]`);
  });

  test("the tool is strict, named run_plan, with parameters in the openai-strict dialect", () => {
    const tools = makeTools([]);
    const planner = planTool(tools);
    expect(planner).toMatchObject({ type: "function", name: "run_plan", strict: true });
    expect(JSON.stringify(planner.parameters)).toContain(`"additionalProperties":false`);
    expect(planner.description).toContain(`"$2.key" is one key of it`);
    expect(catalogFromAgentTools(tools)["weather"]!.input).toMatchObject({
      type: "object",
      required: ["lat", "lon"],
      additionalProperties: false,
    });
  });

  test("a failing tool's error is its own error text (the SDK's error function), and a bad plan text is invalid-plan", async () => {
    const tools = makeTools([]);
    const planner = planTool(tools);
    const context = undefined as never;
    const failsPlan = JSON.stringify({ steps: [{ id: 1, tool: "fails", args: { x: 1 } }] });
    const failed = JSON.parse(await planner.invoke(context, failsPlan)) as PlanCallResult;
    // Exactly what the tool's own invoke answers: the SDK's default text (with the error up to 0.19, a fixed sentence since 0.20).
    expect(failed).toEqual({ status: "ok", results: { "1": await tools[2]!.invoke(context, JSON.stringify({ x: 1 })) } });
    const explained = tool({
      name: "fails",
      description: "Always fails",
      parameters: z.object({ x: z.number() }),
      execute: () => Promise.reject(new Error("out of order")),
      errorFunction: (_, error) => `fails: ${String(error)}`,
    });
    expect(JSON.parse(await planTool([explained]).invoke(context, failsPlan))).toMatchObject({
      status: "ok",
      results: { "1": "fails: Error: out of order" },
    });
    const bad = JSON.parse(await planner.invoke(context, "{not json")) as PlanCallResult;
    expect(bad).toMatchObject({ status: "invalid", diagnostics: [{ code: "invalid-plan", pointer: "" }] });
  });

  test("options are checked when the tool is made", () => {
    expect(() => planTool(makeTools([]), { maxResultChars: -1 })).toThrow("option maxResultChars must be a positive integer");
    expect(() => planTool([{ type: "hosted_tool", name: "web_search" }])).toThrow("tool 0 is not a function tool");
    // A function tool gets its arguments only once the model's response is whole: nothing can start early.
    // @ts-expect-error startEarly is not an option of the Agents SDK's plan tool
    expect(() => planTool(makeTools([]), { startEarly: ["geocode"] })).toThrow(
      expect.objectContaining({
        code: "invalid-options",
        message: expect.stringContaining("option startEarly is not available with the Agents SDK"),
      }),
    );
  });
});
