/**
 * A plan's output through PostgreSQL (submitPlan, a worker, waitForRun): the rows of
 * test/cases/output.json give the same output, or the same outputError, as through runPlan.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getRun, startWorker, submitPlan, waitForRun, type Worker } from "../../src/postgres/index.js";
import { runPlan, type ToolFunctions } from "../../src/run/run-plan.js";
import { outputCatalog, outputRows, outputTools } from "../helpers/output-rows.js";
import { fileDatabase, type FileDatabase } from "./server.js";

const rows = outputRows;
const catalog = outputCatalog;
const tools: ToolFunctions = {
  ...outputTools,
  // Waits until the test opens the gate (a run that is still going, for as long as the test needs).
  gate: () => gate,
};
let open!: (value: string) => void;
const gate = new Promise<string>((resolve) => (open = resolve));

let db: FileDatabase;
let worker: Worker;

beforeAll(async () => {
  db = await fileDatabase();
  worker = await startWorker({ connectionString: db.url, tools, concurrency: 4 });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await db?.remove();
}, 60_000);

describe("output.json through the workers", () => {
  test.each(rows)("$name", async (row) => {
    const options = { catalog, ...row.options };
    const local = await runPlan(row.plan, tools, options);
    const runId = await submitPlan(row.plan, { connectionString: db.url, options });
    const remote = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
    expect(remote.status).toBe(row.status);
    expect(Object.hasOwn(remote, "output")).toBe(Object.hasOwn(local, "output"));
    expect(remote.output).toEqual(local.output);
    expect(remote.outputError?.code).toBe(local.outputError?.code);
    expect(remote.outputError?.message).toBe(local.outputError?.message);
  });

  test("a run still going has no output yet; once it ends it has", async () => {
    const plan = {
      steps: [
        { id: 1, tool: "echo", args: { value: 1 } },
        { id: 2, tool: "gate", args: {} },
      ],
      output: { a: "$1", b: "$2" },
    };
    const runId = await submitPlan(plan, { connectionString: db.url, options: {} });
    const early = await getRun(runId, { connectionString: db.url });
    expect(early.status).toBe("running");
    expect(Object.hasOwn(early, "output") || Object.hasOwn(early, "outputError")).toBe(false);
    open("open");
    expect((await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 })).output).toEqual({ a: 1, b: "open" });
  });
});
