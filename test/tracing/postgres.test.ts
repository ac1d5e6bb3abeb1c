/**
 * One trace across processes: a plan submitted inside a span of this test is run by two PostgreSQL
 * worker processes (test/fixtures/pg-traced-worker.mjs, each with an SDK exporting to a file of its
 * own), and every step's span is in the submitter's trace, a child of the span that submitted it; the
 * worker's claim and settle are child spans of the step's span. Needs `npm run build` first (the
 * workers run dist/). The last tests run the command line's worker (`plan-refs worker --trace-file`), and
 * its submitter (`plan-refs run --database --trace-file`), each a process of its own.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, expect, test } from "vitest";
import { migrate, submitPlan, waitForRun } from "../../src/postgres/index.js";
import { startDatabase, type TestDatabase } from "../postgres/server.js";
import { until } from "../helpers/processes.js";
import { tempFolder } from "../helpers/temp.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/pg-traced-worker.mjs", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));
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
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => chunk.includes("ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`the traced worker exited (${code}) before it was ready`)));
  });
}

/** A plan of two echo steps, the second reading the first. */
const echoPlan = {
  steps: [
    { id: 1, tool: "echo", args: { n: 1 } },
    { id: 2, tool: "echo", args: { prev: "$1.n" } },
  ],
};

/** The command line's worker (a process: its --trace-file is its own), with an echo tool, once it takes steps; its stderr so far. */
async function startCliWorker(toolsName: string, traceFile: string): Promise<{ child: ChildProcess; log: () => string }> {
  const tools = join(folder, toolsName);
  writeFileSync(tools, "export const echo = (args) => args;\n");
  const child = spawn(
    process.execPath,
    [join(root, "dist/cli/main.js"), "worker", "--tools", tools, "--database", db.url, "--trace-file", traceFile],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  workers.push(child);
  let log = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      log += chunk;
      if (log.includes("taking steps")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the worker exited (${code}) before it took steps: ${log}`)));
  });
  return { child, log: () => log };
}

interface FileSpan {
  readonly name: string;
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly attributes: Record<string, unknown>;
  readonly status: { readonly code: number; readonly message?: string };
  readonly startMs: number;
  readonly endMs: number;
  readonly events: readonly { readonly name: string; readonly attributes: Record<string, unknown>; readonly timeMs: number }[];
}

/** The claim and settle spans of each step span, checked to be its children in its trace, within its time. */
function operationsOf(spans: readonly FileSpan[]): Map<FileSpan, { claim: FileSpan; settle: FileSpan }> {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const found = new Map<FileSpan, { claim: FileSpan; settle: FileSpan }>();
  for (const step of spans.filter((span) => span.name.startsWith("execute_tool "))) {
    const children = spans.filter((span) => span.parentSpanId === step.spanId);
    expect(children.map((span) => span.name).sort()).toEqual(["plan_refs.claim", "plan_refs.settle"]);
    const claim = children.find((span) => span.name === "plan_refs.claim")!;
    const settle = children.find((span) => span.name === "plan_refs.settle")!;
    for (const child of [claim, settle]) {
      expect(child.traceId).toBe(step.traceId);
      expect(byId.get(child.parentSpanId!)).toBe(step);
      expect(child.kind).toBe(2); // CLIENT: a call to the database
      expect(child.attributes).toMatchObject({
        "plan_refs.run.id": expect.any(String),
        "plan_refs.step.id": step.attributes["plan_refs.step.id"],
        "plan_refs.step.attempt": step.attributes["plan_refs.step.attempt"],
        "db.system.name": "postgresql",
      });
    }
    // The step's span starts with its claim and ends with its settle.
    expect(claim.startMs).toBe(step.startMs);
    expect(claim.endMs).toBeLessThanOrEqual(settle.startMs);
    expect(settle.endMs).toBe(step.endMs);
    found.set(step, { claim, settle });
  }
  return found;
}

const spansIn = (file: string): FileSpan[] =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as FileSpan)
    : [];

test(
  "a plan submitted inside a span: every worker's step spans are in the submitter's trace, children of that span",
  { timeout: 120_000 },
  async () => {
    const files = [join(folder, "worker-1.jsonl"), join(folder, "worker-2.jsonl")];
    const children = await Promise.all(files.map(startTracedWorker));
    const plan = {
      steps: Array.from({ length: 12 }, (_, i) => ({ id: i + 1, tool: "echo", args: i < 4 ? { n: i } : { prev: `$${i - 3}` } })),
    };
    const submitter = tracer.startSpan("submit the plan");
    const runId = await context.with(trace.setSpan(context.active(), submitter), () => submitPlan(plan, { connectionString: db.url }));
    submitter.end();
    const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 100_000 });
    expect(report.status).toBe("ok");
    await Promise.all(
      children.map(async (child) => {
        child.kill("SIGTERM");
        await once(child, "exit");
      }),
    );
    const spans = files.flatMap(spansIn);
    const { traceId, spanId } = submitter.spanContext();
    const steps = spans.filter((span) => span.name.startsWith("execute_tool "));
    expect(steps.map((span) => span.attributes["plan_refs.step.id"]).sort((a, b) => Number(a) - Number(b))).toEqual(
      plan.steps.map((step) => step.id),
    );
    expect(spans).toHaveLength(3 * steps.length);
    for (const span of steps) {
      expect(span.name).toBe("execute_tool echo");
      expect(span.traceId).toBe(traceId);
      expect(span.parentSpanId).toBe(spanId);
      expect(span.attributes["gen_ai.tool.call.id"]).toBe(`${runId}:${String(span.attributes["plan_refs.step.id"])}`);
    }
    for (const { claim, settle } of operationsOf(spans).values()) {
      expect(claim.attributes["plan_refs.run.id"]).toBe(runId);
      for (const operation of [claim, settle]) {
        expect(operation.attributes["plan_refs.tries"]).toBe(1);
        expect(operation.status.code).toBe(0);
        expect(operation.events).toEqual([]);
      }
      expect(settle.attributes["plan_refs.settle.result"]).toBe("stored");
    }
  },
);

test(
  "the database away as a step ends: one settle span over every try, an exception event per failed try, the outcome stored",
  { timeout: 120_000 },
  async () => {
    const file = join(folder, "worker-outage.jsonl");
    const gate = join(folder, "outage-gate");
    const child = await startTracedWorker(file);
    const submitter = tracer.startSpan("submit the plan");
    const runId = await context.with(trace.setSpan(context.active(), submitter), () =>
      submitPlan({ steps: [{ id: 1, tool: "waitForFile", args: { path: gate } }] }, { connectionString: db.url }),
    );
    submitter.end();
    await until(() => existsSync(`${gate}.started`));
    await db.stop();
    writeFileSync(gate, "");
    // The tool has answered with the database away: its settle fails until the database is back.
    await until(() => existsSync(`${gate}.returned`));
    await db.start();
    expect((await waitForRun(runId, { connectionString: db.url, timeoutMs: 100_000 })).status).toBe("ok");
    child.kill("SIGTERM");
    await once(child, "exit");
    const spans = spansIn(file);
    const operations = [...operationsOf(spans)];
    expect(operations).toHaveLength(1);
    const [step, { settle }] = operations[0]!;
    expect(step.parentSpanId).toBe(submitter.spanContext().spanId);
    expect(step.status.code).toBe(0);
    expect(settle.attributes["plan_refs.settle.result"]).toBe("stored");
    expect(settle.status.code).toBe(0);
    const tries = Number(settle.attributes["plan_refs.tries"]);
    expect(tries).toBeGreaterThan(1);
    expect(settle.events).toHaveLength(tries - 1);
    for (const event of settle.events) {
      expect(event.name).toBe("exception");
      expect(event.attributes["exception.type"]).toEqual(expect.any(String));
      expect(event.attributes["exception.message"]).toEqual(expect.any(String));
      expect(event.timeMs).toBeGreaterThanOrEqual(settle.startMs);
      expect(event.timeMs).toBeLessThanOrEqual(settle.endMs);
    }
  },
);

test("a plan submitted outside any span is run untraced", { timeout: 120_000 }, async () => {
  const file = join(folder, "worker-3.jsonl");
  const child = await startTracedWorker(file);
  const runId = await submitPlan({ steps: [{ id: 1, tool: "echo", args: { n: 1 } }] }, { connectionString: db.url });
  expect((await waitForRun(runId, { connectionString: db.url, timeoutMs: 100_000 })).status).toBe("ok");
  child.kill("SIGTERM");
  await once(child, "exit");
  expect(spansIn(file)).toEqual([]);
});

test(
  "plan-refs worker --trace-file: the CLI worker's spans, one JSON line each, in the submitter's trace with their claim and settle",
  { timeout: 120_000 },
  async () => {
    const file = join(folder, "cli-worker.jsonl");
    const { child, log } = await startCliWorker("cli-tools.mjs", file);
    const plan = echoPlan;
    const submitter = tracer.startSpan("submit the plan");
    const runId = await context.with(trace.setSpan(context.active(), submitter), () => submitPlan(plan, { connectionString: db.url }));
    submitter.end();
    expect((await waitForRun(runId, { connectionString: db.url, timeoutMs: 100_000 })).status).toBe("ok");
    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
    expect(log()).not.toContain("{");
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const spans = lines.map(
      (line) =>
        JSON.parse(line) as {
          name: string;
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          kind: string;
          attributes: Record<string, unknown>;
        },
    );
    const { traceId, spanId } = submitter.spanContext();
    const steps = spans.filter((span) => span.name === "execute_tool echo");
    expect(steps.map((span) => span.attributes["plan_refs.step.id"]).sort()).toEqual([1, 2]);
    expect(spans).toHaveLength(3 * steps.length);
    for (const step of steps) {
      expect(step).toMatchObject({ traceId, parentSpanId: spanId });
      const children = spans.filter((span) => span.parentSpanId === step.spanId);
      expect(children.map((span) => [span.name, span.kind]).sort()).toEqual([
        ["plan_refs.claim", "CLIENT"],
        ["plan_refs.settle", "CLIENT"],
      ]);
    }
  },
);

test(
  "plan-refs run --database --trace-file: the submitter's run span in its file, the CLI worker's step spans its children in theirs",
  { timeout: 120_000 },
  async () => {
    const workerFile = join(folder, "cli-worker-2.jsonl");
    const runFile = join(folder, "cli-run.jsonl");
    const planFile = join(folder, "cli-plan.json");
    writeFileSync(planFile, JSON.stringify(echoPlan));
    const { child: worker } = await startCliWorker("cli-tools-2.mjs", workerFile);
    const run = spawn(process.execPath, [join(root, "dist/cli/main.js"), "run", planFile, "--database", db.url, "--trace-file", runFile], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let runErr = "";
    run.stderr.setEncoding("utf8").on("data", (chunk: string) => (runErr += chunk));
    const [runCode] = (await once(run, "exit")) as [number | null];
    expect(runCode, runErr).toBe(0);
    worker.kill("SIGTERM");
    expect(((await once(worker, "exit")) as [number | null])[0]).toBe(0);
    const read = (file: string) =>
      readFileSync(file, "utf8")
        .trimEnd()
        .split("\n")
        .map(
          (line) =>
            JSON.parse(line) as {
              name: string;
              traceId: string;
              spanId: string;
              parentSpanId?: string;
              attributes: Record<string, unknown>;
            },
        );
    const [runSpan, ...others] = read(runFile);
    expect(others).toEqual([]);
    expect(runSpan).toMatchObject({
      name: "invoke_workflow",
      attributes: { "plan_refs.run.status": "ok", "plan_refs.run.step_count": 2, "gen_ai.operation.name": "invoke_workflow" },
    });
    const steps = read(workerFile).filter((span) => span.name === "execute_tool echo");
    expect(steps).toHaveLength(2);
    for (const step of steps) {
      expect(step).toMatchObject({ traceId: runSpan!.traceId, parentSpanId: runSpan!.spanId });
      expect(step.attributes["gen_ai.tool.call.id"]).toBe(
        `${String(runSpan!.attributes["plan_refs.run.id"])}:${String(step.attributes["plan_refs.step.id"])}`,
      );
    }
  },
);
