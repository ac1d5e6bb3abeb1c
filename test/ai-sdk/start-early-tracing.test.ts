/**
 * A streamed plan tool call's spans, recorded by the real OpenTelemetry SDK (an in-memory exporter,
 * the async-hooks context manager, the global tracer provider plan-refs finds by itself) under the
 * AI SDK's real streamText driven by its test model: one run span per tool call, whether its steps
 * started while the input streamed or after, every step span its child, the early ones started
 * before the input was whole.
 */
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { stepCountIs, streamText } from "ai";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { planTool, type PlanCallResult } from "../../src/ai-sdk/index.js";
import { controlledTools, ModelStream, step } from "./model-stream.js";

const exporter = new InMemorySpanExporter();
/** Span starts and ends, and the test's own marks, in the order they happened. */
const order: string[] = [];
/** Who waits for the next run span to end. */
const runEnded: (() => void)[] = [];
const orderLog: SpanProcessor = {
  onStart: (span) => void order.push(`start ${span.name}`),
  onEnd: (span) => {
    order.push(`end ${span.name}`);
    if (span.name === "invoke_workflow") for (const wake of runEnded.splice(0)) wake();
  },
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter), orderLog] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(() => {
  context.disable();
  trace.disable();
});
afterEach(() => {
  exporter.reset();
  order.length = 0;
});

const named = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((span) => span.name === name);
const stepSpans = (): ReadableSpan[] => exporter.getFinishedSpans().filter((span) => span.name.startsWith("execute_tool "));

/** Starts a streamText whose model the test writes, with a plan tool whose `search` and `read` steps start early. */
async function streamedCall() {
  const stream = new ModelStream();
  const controlled = controlledTools(stream, ["search", "read", "book"]);
  const run_plan = planTool(controlled.tools, { startEarly: ["search", "read"] });
  const result = streamText({ model: stream.model, tools: { run_plan }, stopWhen: stepCountIs(1), prompt: "p" });
  const consumed = result.consumeStream({ onError: () => undefined });
  await stream.write({ type: "stream-start", warnings: [] }, { type: "tool-input-start", id: "c1", toolName: "run_plan" });
  return { stream, result, consumed, ...controlled };
}

describe("a streamed plan tool call's spans", () => {
  test("one run span for the call: the early steps' spans and the later step's are its children; the early ones started before the input was whole", async () => {
    const { stream, result, consumed, started } = await streamedCall();
    await stream.input("c1", `{"steps":[${step(1, "search", "x")}`);
    (await started("search")).finish({ a: "found" });
    await stream.input("c1", `,${step(2, "read", "$1.a")}`);
    (await started("read")).finish({ a: "page" });
    const text = `{"steps":[${step(1, "search", "x")},${step(2, "read", "$1.a")},${step(3, "book", "$2.a")}]}`;
    await stream.input("c1", `,${step(3, "book", "$2.a")}]}`);
    order.push("input complete");
    await stream.finishCall("c1", text);
    await stream.end();
    (await started("book")).finish({ a: "booked" });
    await consumed;
    expect(((await result.toolResults)[0]!.output as PlanCallResult).status).toBe("ok");
    const runs = named("invoke_workflow");
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    expect(run.attributes).toMatchObject({ "plan_refs.run.id": "c1", "plan_refs.run.status": "ok", "plan_refs.run.step_count": 3 });
    const steps = stepSpans();
    expect(steps.map((span) => span.name).sort()).toEqual(["execute_tool book", "execute_tool read", "execute_tool search"]);
    for (const span of steps) {
      expect(span.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
      expect(span.spanContext().traceId).toBe(run.spanContext().traceId);
    }
    const complete = order.indexOf("input complete");
    expect(order.indexOf("start execute_tool search")).toBeLessThan(complete);
    expect(order.indexOf("start execute_tool read")).toBeLessThan(complete);
    expect(order.indexOf("start execute_tool book")).toBeGreaterThan(complete);
    expect(order.at(-1)).toBe("end invoke_workflow");
  });

  test("a plan found invalid once whole: one run span, status invalid, the early step's span its child", async () => {
    const { stream, consumed, started, calls } = await streamedCall();
    await stream.input("c1", `{"steps":[${step(1, "search", "x")}`);
    (await started("search")).finish({ a: "found" });
    const bad = step(2, "book", "$9.a");
    await stream.input("c1", `,${bad}]}`);
    await stream.finishCall("c1", `{"steps":[${step(1, "search", "x")},${bad}]}`);
    await stream.end();
    await consumed;
    expect(calls.get("book")).toHaveLength(0);
    const runs = named("invoke_workflow");
    expect(runs).toHaveLength(1);
    expect(runs[0]!.attributes).toMatchObject({ "plan_refs.run.status": "invalid", "error.type": "invalid" });
    expect(runs[0]!.status.code).toBe(SpanStatusCode.ERROR);
    expect(stepSpans().map((span) => [span.name, span.parentSpanContext?.spanId])).toEqual([
      ["execute_tool search", runs[0]!.spanContext().spanId],
    ]);
  });

  test("an input that never completes (the request aborted): one run span, ended aborted, once the early step stopped", async () => {
    const stream = new ModelStream();
    const { tools, started } = controlledTools(stream, ["search"]);
    const abort = new AbortController();
    const result = streamText({
      model: stream.model,
      tools: { run_plan: planTool(tools, { startEarly: ["search"] }) },
      stopWhen: stepCountIs(1),
      prompt: "p",
      abortSignal: abort.signal,
    });
    const consumed = result.consumeStream({ onError: () => undefined });
    await stream.write({ type: "stream-start", warnings: [] }, { type: "tool-input-start", id: "c1", toolName: "run_plan" });
    await stream.input("c1", `{"steps":[${step(1, "search", "x")}`);
    const search = await started("search");
    const ended = new Promise<void>((resolve) => runEnded.push(resolve));
    abort.abort();
    await ended;
    await consumed;
    expect(search.signal!.aborted).toBe(true);
    const runs = named("invoke_workflow");
    expect(runs).toHaveLength(1);
    expect(runs[0]!.attributes).toMatchObject({ "plan_refs.run.status": "aborted" });
    expect(stepSpans().map((span) => span.parentSpanContext?.spanId)).toEqual([runs[0]!.spanContext().spanId]);
  });
});
