/**
 * A traced step that calls an MCP tool sends its span's W3C trace context in the tools/call `_meta`
 * (`traceparent`, `tracestate`); a real SDK server (test/fixtures/mcp-meta-server.mjs) answers with the
 * `_meta` it received.
 */
import { fileURLToPath } from "node:url";
import { context, createTraceState, trace, TraceFlags } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { mcpTools } from "../../src/mcp/index.js";
import { runPlan, type ToolFunctions } from "../../src/run/index.js";

const SERVER = fileURLToPath(new URL("../fixtures/mcp-meta-server.mjs", import.meta.url));
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("test");
const client = new Client({ name: "plan-refs-test", version: "1.0.0" });
let tools: ToolFunctions;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: "ignore" }));
  tools = await mcpTools(client);
});
afterAll(async () => {
  await client.close();
  context.disable();
});

const plan = { steps: [{ id: 1, tool: "record_meta", args: { city: "Paris" } }, { id: 2, tool: "record_meta", args: { from: "$1.args" } }] };

test("each tools/call carries its step span's traceparent in _meta", async () => {
  const report = await runPlan(plan, tools, { tracer });
  expect([...report.errors.values()].map((error) => error.message)).toEqual([]);
  expect(report.status).toBe("ok");
  const steps = exporter.getFinishedSpans().filter((span) => span.name === "execute_tool record_meta");
  expect(steps).toHaveLength(2);
  for (const span of steps) {
    const { traceId, spanId } = span.spanContext();
    const received = report.results.get(span.attributes["plan_refs.step.id"] as number) as { meta: Record<string, unknown>; args: unknown };
    expect(received.meta).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
  }
  expect((report.results.get(2) as { args: unknown }).args).toEqual({ from: { city: "Paris" } });
});

test("the tracestate of the run's trace travels too", async () => {
  const caller = trace.wrapSpanContext({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: TraceFlags.SAMPLED, isRemote: true, traceState: createTraceState("vendor=a1") });
  const report = await context.with(trace.setSpan(context.active(), caller), () => runPlan({ steps: [plan.steps[0]!] }, tools, { tracer }));
  const received = report.results.get(1) as { meta: Record<string, unknown> };
  expect(received.meta).toMatchObject({ traceparent: expect.stringMatching(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/), tracestate: "vendor=a1" });
});

test("an untraced run sends no _meta", async () => {
  const report = await runPlan(plan, tools, { tracer: false });
  expect((report.results.get(1) as { meta: unknown }).meta).toBeNull();
});
