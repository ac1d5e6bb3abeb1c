/**
 * `plan-refs run` exports its spans the standard way when OTEL_EXPORTER_OTLP_ENDPOINT is set and the SDK
 * packages are installed (they are, as dev dependencies): a local OTLP/HTTP receiver on 127.0.0.1,
 * written here, receives the run's spans. OTEL_TRACES_EXPORTER is read from `CliIo.env`, in-process.
 * Spawns the built executable (`npm run build` first) where only a process shows it: the OTLP
 * exporter takes its endpoint (and headers, timeout) from the process's own environment, and
 * `mcp serve` is an MCP server process (over stdio, and over HTTP).
 */
import { execFile, spawn } from "node:child_process";
import { createServer, type IncomingMessage } from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { runCliInProcess } from "../helpers/cli.js";
import { until } from "../helpers/processes.js";
import { root } from "../helpers/doc-code.js";
import { tempFolder } from "../helpers/temp.js";

const run = promisify(execFile);

/** This process's environment without any OTEL_* variable (each test sets its own). */
const withoutOtel = (): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_")));
const folder = tempFolder("otlp");

interface OtlpSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes: { key: string; value: Record<string, unknown> }[];
}

/** What the receiver got: the path and the spans of each request (OTLP/HTTP JSON). */
const received: { path: string; spans: OtlpSpan[] }[] = [];
const server = createServer((request: IncomingMessage, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
    received.push({
      path: request.url ?? "",
      spans: body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)),
    });
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  writeFileSync(
    join(folder, "plan.json"),
    JSON.stringify({
      steps: [
        { id: 1, tool: "geocode", args: { city: "Paris" } },
        { id: 2, tool: "weather", args: { at: "$1" } },
      ],
    }),
  );
  writeFileSync(
    join(folder, "tools.mjs"),
    "export const geocode = ({ city }) => ({ city, lat: 48.85 });\nexport const weather = async () => 'sunny';\n",
  );
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test("plan-refs run sends its run span and step spans to the OTLP endpoint", async () => {
  const { port } = server.address() as AddressInfo;
  const env = { ...withoutOtel(), OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` };
  const { stdout, stderr } = await run(process.execPath, [join(root, "dist/cli/main.js"), "run", "plan.json", "--tools", "tools.mjs"], {
    cwd: folder,
    env,
  });
  expect(stderr).not.toMatch(/OpenTelemetry|OTEL_/);
  expect(JSON.parse(stdout)).toMatchObject({ status: "ok", results: { 2: "sunny" } });
  expect(received.map((request) => request.path)).toContain("/v1/traces");
  const spans = received.flatMap((request) => request.spans);
  const workflow = spans.find((span) => span.name === "invoke_workflow")!;
  expect(spans.map((span) => span.name).sort()).toEqual(["execute_tool geocode", "execute_tool weather", "invoke_workflow"]);
  for (const step of spans.filter((span) => span.name.startsWith("execute_tool"))) {
    expect(step.traceId).toBe(workflow.traceId);
    expect(step.parentSpanId).toBe(workflow.spanId);
  }
  expect(workflow.attributes).toContainEqual({ key: "plan_refs.run.status", value: { stringValue: "ok" } });
}, 60_000);

test("OTEL_TRACES_EXPORTER=console writes each span as a JSON line on stderr; stdout keeps the report", async () => {
  const env = { ...withoutOtel(), OTEL_TRACES_EXPORTER: "console" };
  const { stdout, stderr } = await runCliInProcess(["run", "plan.json", "--tools", "tools.mjs"], { cwd: folder, env });
  expect(JSON.parse(stdout)).toMatchObject({ status: "ok" });
  const spans = stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { name: string; parentSpanId?: string; spanId: string });
  const workflow = spans.find((span) => span.name === "invoke_workflow")!;
  expect(spans.map((span) => span.name).sort()).toEqual(["execute_tool geocode", "execute_tool weather", "invoke_workflow"]);
  expect(spans.filter((span) => span !== workflow).map((span) => span.parentSpanId)).toEqual([workflow.spanId, workflow.spanId]);
}, 60_000);

test("an exporter plan-refs cannot export to is one line, and the run goes on", async () => {
  const env = { ...withoutOtel(), OTEL_TRACES_EXPORTER: "zipkin" };
  const { stdout, stderr } = await runCliInProcess(["run", "plan.json", "--tools", "tools.mjs"], { cwd: folder, env });
  expect(JSON.parse(stdout)).toMatchObject({ status: "ok" });
  expect(stderr.split("\n").filter((line) => line.includes("OTEL_"))).toEqual([
    'plan-refs: OTEL_TRACES_EXPORTER "zipkin" is not one plan-refs can export to (otlp, console, none); no spans are exported',
  ]);
}, 60_000);

test.each(["stdio", "http"] as const)(
  "plan-refs mcp serve over %s continues the trace of a run_plan request's _meta.traceparent",
  async (kind) => {
    const env = { ...withoutOtel(), OTEL_TRACES_EXPORTER: "console" } as Record<string, string>;
    const args = [join(root, "dist/cli/main.js"), "mcp", "serve", "--tools", join(folder, "tools.mjs")];
    let stderr = "";
    let transport: Transport;
    let stop = (): void => undefined;
    if (kind === "stdio") {
      const stdio = new StdioClientTransport({ command: process.execPath, args, env, stderr: "pipe" });
      stdio.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      transport = stdio;
    } else {
      const child = spawn(process.execPath, [...args, "--http", "0"], { env, stdio: ["ignore", "ignore", "pipe"] });
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      stop = () => void child.kill();
      await until(() => /listening on \S+\n/.test(stderr));
      transport = new StreamableHTTPClientTransport(new URL(/listening on (\S+)\n/.exec(stderr)![1]!));
    }
    const client = new Client({ name: "traced-caller", version: "1.0.0" });
    try {
      await client.connect(transport);
      const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
      const answer = (await client.callTool({
        name: "run_plan",
        arguments: { steps: [{ id: 1, tool: "geocode", args: { city: "Paris" } }] },
        _meta: { traceparent },
      })) as { structuredContent?: { status?: string } };
      expect(answer.structuredContent?.status).toBe("ok");
      const spans = (): { name: string; traceId: string; spanId: string; parentSpanId?: string }[] =>
        stderr
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line));
      await until(() => spans().some((span) => span.name === "invoke_workflow"));
      const workflow = spans().find((span) => span.name === "invoke_workflow")!;
      expect(workflow).toMatchObject({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", parentSpanId: "00f067aa0ba902b7" });
      expect(spans().find((span) => span.name === "execute_tool geocode")).toMatchObject({
        traceId: workflow.traceId,
        parentSpanId: workflow.spanId,
      });
    } finally {
      await client.close();
      stop();
    }
  },
);

/** A span line as --trace-file writes it. */
interface SpanLine {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly kind: string;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly durationMs: number;
  readonly status: { code: string; message?: string };
  readonly attributes: Record<string, unknown>;
  readonly events: unknown[];
  readonly links: unknown[];
}

test("--trace-file FILE: every line is one finished span as JSON, nothing else; the file is emptied first; progress stays on stderr", async () => {
  const file = join(folder, "spans.jsonl");
  writeFileSync(file, "an older run's lines\n");
  const { code, stdout, stderr } = await runCliInProcess(["run", "plan.json", "--tools", "tools.mjs", "--trace-file", "spans.jsonl"], {
    cwd: folder,
    env: withoutOtel(),
  });
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toMatchObject({ status: "ok" });
  expect(stderr).toMatch(/^step 2 \(weather\) done in/m);
  expect(stderr).not.toContain("{");
  const text = readFileSync(file, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  const spans = text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as SpanLine);
  expect(spans.map((span) => span.name).sort()).toEqual(["execute_tool geocode", "execute_tool weather", "invoke_workflow"]);
  const workflow = spans.find((span) => span.name === "invoke_workflow")!;
  expect(workflow.parentSpanId).toBeUndefined();
  expect(workflow.attributes["plan_refs.run.status"]).toBe("ok");
  for (const span of spans) {
    expect(Object.keys(span)).toEqual([
      "name",
      "traceId",
      "spanId",
      ...(span === workflow ? [] : ["parentSpanId"]),
      "kind",
      "startTimeUnixNano",
      "endTimeUnixNano",
      "durationMs",
      "status",
      "attributes",
      "events",
      "links",
    ]);
    expect(span).toMatchObject({ traceId: workflow.traceId, kind: "INTERNAL", status: { code: "UNSET" }, links: [] });
    expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true);
    if (span !== workflow) expect(span.parentSpanId).toBe(workflow.spanId);
  }
}, 60_000);

test.each([
  [
    "a folder that does not exist",
    ["--trace-file", "missing/spans.jsonl"],
    /^plan-refs: --trace-file missing\/spans\.jsonl: .*; nothing was run\n$/,
  ],
  ["the plan itself", ["--trace-file", "plan.json"], /^plan-refs: --trace-file plan\.json: is the plan; .*nothing was run\n$/],
  [
    "the --results file",
    ["--results", "out.json", "--trace-file", "out.json"],
    /^plan-refs: --trace-file out\.json: is the --results file; .*nothing was run\n$/,
  ],
])("--trace-file that cannot be written (%s): exit 2 before anything runs", async (_name, flags, message) => {
  const { code, stdout, stderr } = await runCliInProcess(["run", "plan.json", "--tools", "tools.mjs", ...flags], {
    cwd: folder,
    env: withoutOtel(),
  });
  expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
  expect(stderr).toMatch(message);
  expect(JSON.parse(readFileSync(join(folder, "plan.json"), "utf8"))).toHaveProperty("steps");
});

test("plan-refs mcp serve --trace-file: run_plan's spans in the file, one JSON line each; nothing of them on stderr", async () => {
  const file = join(folder, "mcp-spans.jsonl");
  const stdio = new StdioClientTransport({
    command: process.execPath,
    args: [join(root, "dist/cli/main.js"), "mcp", "serve", "--tools", join(folder, "tools.mjs"), "--trace-file", file],
    env: withoutOtel() as Record<string, string>,
    stderr: "pipe",
  });
  let stderr = "";
  stdio.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "trace-file-caller", version: "1.0.0" });
  try {
    await client.connect(stdio);
    const answer = (await client.callTool({
      name: "run_plan",
      arguments: { steps: [{ id: 1, tool: "geocode", args: { city: "Paris" } }] },
    })) as { structuredContent?: { status?: string } };
    expect(answer.structuredContent?.status).toBe("ok");
    const spans = (): { name: string; spanId: string; parentSpanId?: string }[] =>
      readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line));
    await until(() => spans().some((span) => span.name === "invoke_workflow"));
    const workflow = spans().find((span) => span.name === "invoke_workflow")!;
    expect(spans().find((span) => span.name === "execute_tool geocode")).toMatchObject({ parentSpanId: workflow.spanId });
    expect(stderr).not.toContain("{");
  } finally {
    await client.close();
  }
});
