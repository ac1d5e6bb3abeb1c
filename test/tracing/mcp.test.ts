/**
 * A traced step that calls an MCP tool sends its span's W3C trace context in the tools/call `_meta`
 * (`traceparent`, `tracestate`); a real SDK server (test/fixtures/mcp-meta-server.mjs) answers with the
 * `_meta` it received. The other way, plan-refs' own MCP server (`PlanService`, `plan-refs mcp serve`)
 * continues the trace of an incoming `_meta.traceparent`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { context, createTraceState, trace, TraceFlags } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { connectMcpServers, mcpTools, type McpServers } from "../../src/mcp/index.js";
import { PlanService } from "../../src/mcp/plan-server.js";
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

const plan = {
  steps: [
    { id: 1, tool: "record_meta", args: { city: "Paris" } },
    { id: 2, tool: "record_meta", args: { from: "$1.args" } },
  ],
};

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

describe.each(["stdio", "http"] as const)("connectMcpServers over %s", (kind) => {
  let servers: McpServers;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    if (kind === "stdio") servers = await connectMcpServers([{ command: process.execPath, args: [SERVER] }]);
    else {
      child = spawn(process.execPath, [SERVER, "--http"], { stdio: ["ignore", "pipe", "inherit"] });
      const [line] = (await once(child.stdout!.setEncoding("utf8"), "data")) as [string];
      servers = await connectMcpServers([{ url: (JSON.parse(line.split("\n")[0]!) as { url: string }).url }]);
    }
  });
  afterAll(async () => {
    await servers?.close();
    child?.kill();
  });

  test("each tools/call carries its step span's traceparent in _meta", async () => {
    exporter.reset();
    const report = await runPlan(plan, servers.tools(), { tracer });
    expect([...report.errors.values()].map((error) => error.message)).toEqual([]);
    const steps = exporter.getFinishedSpans().filter((span) => span.name === "execute_tool record_meta");
    expect(steps).toHaveLength(2);
    for (const span of steps) {
      const { traceId, spanId } = span.spanContext();
      expect((report.results.get(span.attributes["plan_refs.step.id"] as number) as { meta: unknown }).meta).toEqual({
        traceparent: `00-${traceId}-${spanId}-01`,
      });
    }
  });
});

test("the tracestate of the run's trace travels too", async () => {
  const caller = trace.wrapSpanContext({
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    spanId: "00f067aa0ba902b7",
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: createTraceState("vendor=a1"),
  });
  const report = await context.with(trace.setSpan(context.active(), caller), () => runPlan({ steps: [plan.steps[0]!] }, tools, { tracer }));
  const received = report.results.get(1) as { meta: Record<string, unknown> };
  expect(received.meta).toMatchObject({
    traceparent: expect.stringMatching(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/),
    tracestate: "vendor=a1",
  });
});

test("an untraced run sends no _meta", async () => {
  const report = await runPlan(plan, tools, { tracer: false });
  expect((report.results.get(1) as { meta: unknown }).meta).toBeNull();
});

test("run_plan of plan-refs' MCP server continues the trace of the request's _meta.traceparent", async () => {
  const service = await PlanService.create({ tools: { geocode: ({ city }) => ({ city, lat: 48.85 }) } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await service.server().connect(serverSide);
  const caller = new Client({ name: "traced-caller", version: "1.0.0" });
  await caller.connect(clientSide);
  trace.setGlobalTracerProvider(provider);
  exporter.reset();
  try {
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const answer = (await caller.callTool({
      name: "run_plan",
      arguments: { steps: [{ id: 1, tool: "geocode", args: { city: "Paris" } }] },
      _meta: { traceparent },
    })) as { structuredContent?: { status?: string } };
    expect(answer.structuredContent?.status).toBe("ok");
    const workflow = exporter.getFinishedSpans().find((span) => span.name === "invoke_workflow")!;
    expect(workflow.spanContext().traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(workflow.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
    expect(workflow.parentSpanContext?.isRemote).toBe(true);
    const step = exporter.getFinishedSpans().find((span) => span.name === "execute_tool geocode")!;
    expect(step.parentSpanContext?.spanId).toBe(workflow.spanContext().spanId);
  } finally {
    trace.disable();
    await caller.close();
    await service.close();
  }
});
