/**
 * `plan-refs run` exports its spans the standard way when OTEL_EXPORTER_OTLP_ENDPOINT is set and the SDK
 * packages are installed (they are, as dev dependencies): a local OTLP/HTTP receiver on 127.0.0.1,
 * written here, receives the run's spans. Needs `npm run build` first.
 */
import { execFile } from "node:child_process";
import { createServer, type IncomingMessage } from "node:http";
import { writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { root } from "../helpers/doc-code.js";
import { tempFolder } from "../helpers/temp.js";

const run = promisify(execFile);
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
    received.push({ path: request.url ?? "", spans: body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)) });
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  writeFileSync(join(folder, "plan.json"), JSON.stringify({ steps: [{ id: 1, tool: "geocode", args: { city: "Paris" } }, { id: 2, tool: "weather", args: { at: "$1" } }] }));
  writeFileSync(join(folder, "tools.mjs"), "export const geocode = ({ city }) => ({ city, lat: 48.85 });\nexport const weather = async () => 'sunny';\n");
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test("plan-refs run sends its run span and step spans to the OTLP endpoint", async () => {
  const { port } = server.address() as AddressInfo;
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("OTEL_"))), OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` };
  const { stdout, stderr } = await run(process.execPath, [join(root, "dist/cli/main.js"), "run", "plan.json", "--tools", "tools.mjs"], { cwd: folder, env });
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
