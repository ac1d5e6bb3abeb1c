/**
 * One trace across processes: a plan submitted inside a span of this test is run by two PostgreSQL
 * worker processes (test/fixtures/pg-traced-worker.mjs, each with an SDK exporting to a file of its
 * own), and every step's span is in the submitter's trace, a child of the span that submitted it.
 * Needs `npm run build` first (the workers run dist/).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, expect, test } from "vitest";
import { migrate, submitPlan, waitForRun } from "../../src/postgres/index.js";
import { startDatabase, type TestDatabase } from "../postgres/server.js";
import { tempFolder } from "../helpers/temp.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/pg-traced-worker.mjs", import.meta.url));
const folder = tempFolder("pg-trace");
const tracer = new BasicTracerProvider().getTracer("submitter");
let db: TestDatabase;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  db = await startDatabase();
  await migrate({ connectionString: db.url });
}, 60_000);

afterAll(async () => {
  for (const child of workers) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  context.disable();
  await db?.remove();
}, 60_000);

function startTracedWorker(file: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [FIXTURE, db.url, file], { stdio: ["ignore", "pipe", "inherit"] });
  workers.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => chunk.includes("ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`the traced worker exited (${code}) before it was ready`)));
  });
}

interface FileSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes: Record<string, unknown>;
}

const spansIn = (file: string): FileSpan[] => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as FileSpan) : []);

test("a plan submitted inside a span: every worker's step spans are in the submitter's trace, children of that span", { timeout: 120_000 }, async () => {
  const files = [join(folder, "worker-1.jsonl"), join(folder, "worker-2.jsonl")];
  const children = await Promise.all(files.map(startTracedWorker));
  const plan = { steps: Array.from({ length: 12 }, (_, i) => ({ id: i + 1, tool: "echo", args: i < 4 ? { n: i } : { prev: `$${i - 3}` } })) };
  const submitter = tracer.startSpan("submit the plan");
  const runId = await context.with(trace.setSpan(context.active(), submitter), () => submitPlan(plan, { connectionString: db.url }));
  submitter.end();
  const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 100_000 });
  expect(report.status).toBe("ok");
  await Promise.all(children.map(async (child) => {
    child.kill("SIGTERM");
    await once(child, "exit");
  }));
  const spans = files.flatMap(spansIn);
  const { traceId, spanId } = submitter.spanContext();
  expect(spans.map((span) => span.attributes["plan_refs.step.id"]).sort((a, b) => Number(a) - Number(b))).toEqual(plan.steps.map((step) => step.id));
  for (const span of spans) {
    expect(span.name).toBe("execute_tool echo");
    expect(span.traceId).toBe(traceId);
    expect(span.parentSpanId).toBe(spanId);
    expect(span.attributes["gen_ai.tool.call.id"]).toBe(`${runId}:${span.attributes["plan_refs.step.id"]}`);
  }
});

test("a plan submitted outside any span is run untraced", { timeout: 120_000 }, async () => {
  const file = join(folder, "worker-3.jsonl");
  const child = await startTracedWorker(file);
  const runId = await submitPlan({ steps: [{ id: 1, tool: "echo", args: { n: 1 } }] }, { connectionString: db.url });
  expect((await waitForRun(runId, { connectionString: db.url, timeoutMs: 100_000 })).status).toBe("ok");
  child.kill("SIGTERM");
  await once(child, "exit");
  expect(spansIn(file)).toEqual([]);
});
