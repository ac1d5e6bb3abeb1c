/**
 * The rules both executors share, each through both: `runPlan` in this process and `submitPlan` with a
 * worker on a real PostgreSQL. A row per rule that once had two homes: a run's `timeoutMs: Infinity`
 * (no limit, also on a worker with a default of its own), what a result may be in every JSON form
 * (`toStorableJSON`), the approval state and event, the retry policy lookup, what becomes of a step
 * after a try (`afterTry`), the result kept when it fails its output schema, the input check, the idempotency key, the run-id rule, and the event names.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startWorker, submitPlan, waitForRun, type Worker, type WorkerEvent } from "../../src/postgres/index.js";
import { requireApproval } from "../../src/step/gated.js";
import { reportToJSON, type RunReportJSON } from "../../src/run/report-json.js";
import { runPlan, type RunEvent, type RunOptions, type RunReport, type ToolContext, type ToolFunctions } from "../../src/run/run-plan.js";
import { STEP_EVENT_TYPES } from "../../src/step/schedule.js";
import { NonRetryableError } from "../../src/step/retry.js";
import { RefError } from "../../src/shared/errors.js";
import { UNSTORABLE_RESULTS } from "../helpers/unstorable.js";
import { comparable } from "./compare.js";
import { databaseAndClient } from "./server.js";

const shared = databaseAndClient();

/** The worker's own default limit of a try, for runs that give none: far shorter than `outlast` takes. */
const WORKER_TIMEOUT_MS = 50;
/** How long `outlast` takes: many times the worker's default, so only a try without a limit finishes. */
const OUTLAST_MS = 8 * WORKER_TIMEOUT_MS;

const unstorableTool = (i: number): string => `unstorable${i}`;

/** Tries of `flaky` by idempotency key: the first try of a step fails, the next succeeds. */
const tries = new Map<string, number>();

const tools: ToolFunctions = {
  echo: (args) => args,
  outlast: () => new Promise((resolve) => setTimeout(resolve, OUTLAST_MS, "finished")),
  key: (_args, context: ToolContext) => ({ key: context.idempotencyKey }),
  flaky: (_args, context: ToolContext) => {
    const n = (tries.get(context.idempotencyKey!) ?? 0) + 1;
    tries.set(context.idempotencyKey!, n);
    if (n === 1) throw new Error("first try fails");
    return { tries: n };
  },
  broken: () => {
    throw new Error("always");
  },
  refuses: () => {
    throw new NonRetryableError("not again");
  },
  answer: () => 42,
  add: (args) => (args.a as number) + (args.b as number),
  pay: requireApproval((args) => ({ paid: args.amount }), true),
  ...Object.fromEntries(UNSTORABLE_RESULTS.map(([, make], i) => [unstorableTool(i), () => make()])),
};

const workerEvents: WorkerEvent[] = [];
/** Checks run on each worker event (a worker tells a step's end just after storing it, so maybe after waitForRun has seen it). */
const onWorkerEvent = new Set<() => void>();
let worker: Worker;

beforeAll(async () => {
  const onEvent = (event: WorkerEvent): void => {
    workerEvents.push(event);
    for (const check of onWorkerEvent) check();
  };
  worker = await startWorker({ connectionString: shared.db.url, tools, timeoutMs: WORKER_TIMEOUT_MS, onEvent });
}, 60_000);

/** The worker's events of a run, once it has told the end (done, failed, waiting) of every step the report has settled or holds. */
function toldEnds(report: RunReport): Promise<WorkerEvent[]> {
  const ends = new Set([...report.results.keys(), ...report.errors.keys(), ...(report.pending?.keys() ?? [])]);
  const ofRun = (): WorkerEvent[] => workerEvents.filter((event) => "runId" in event && event.runId === report.runId);
  const told = (): boolean => {
    const ended = new Set(
      ofRun().flatMap((event) =>
        event.type === "step-done" || event.type === "step-failed" || event.type === "step-awaiting-approval" ? [event.stepId] : [],
      ),
    );
    return [...ends].every((id) => ended.has(id));
  };
  return new Promise((resolve) => {
    const check = (): void => {
      if (!told()) return;
      onWorkerEvent.delete(check);
      resolve(ofRun());
    };
    onWorkerEvent.add(check);
    check();
  });
}

afterAll(async () => {
  await worker?.stop();
}, 60_000);

interface Both {
  readonly local: RunReport;
  readonly remote: RunReport;
  readonly localEvents: readonly RunEvent[];
  readonly remoteEvents: readonly WorkerEvent[];
}

/** The plan through runPlan and through a worker, with the same run options (a run id each, or the one given). */
async function both(
  plan: unknown,
  options: Omit<RunOptions, "signal" | "onEvent" | "concurrency" | "runId"> = {},
  runId?: string,
): Promise<Both> {
  const localEvents: RunEvent[] = [];
  const local = await runPlan(plan, tools, {
    ...options,
    concurrency: 8,
    onEvent: (event) => void localEvents.push(event),
    ...(runId === undefined ? {} : { runId }),
  });
  const id = await submitPlan(plan, { connectionString: shared.db.url, options, ...(runId === undefined ? {} : { runId }) });
  const remote = await waitForRun(id, { connectionString: shared.db.url, timeoutMs: 60_000 });
  return { local, remote, localEvents, remoteEvents: await toldEnds(remote) };
}

/** The distinct event names, sorted: what the two executors must agree on for a run (times and order aside). */
function names(events: readonly { readonly type: string }[]): string[] {
  return [...new Set(events.map((event) => event.type))].sort();
}

/** A JSON report reduced to what both must agree on; an error as its code and detail (the worker's message also names the tool). */
function jsonComparable(json: RunReportJSON): unknown {
  return {
    status: json.status,
    results: json.results,
    errors: Object.fromEntries(
      Object.entries(json.errors).map(([id, error]) => [
        id,
        { code: error.code, detail: error.message.replace(/^step \d+(?: \(.*?\))?: /s, "") },
      ]),
    ),
    skipped: json.skipped,
  };
}

const one = (tool: string, args: Record<string, unknown> = {}): unknown => ({ steps: [{ id: 1, tool, args }] });

describe("a try's time limit: one rule (tryTimeoutMs)", () => {
  test("timeoutMs: Infinity is no limit in both, also on a worker whose own default is shorter", async () => {
    const { local, remote } = await both(one("outlast"), { timeoutMs: Infinity });
    expect(comparable(remote)).toEqual(comparable(local));
    expect([remote.status, remote.results.get(1)]).toEqual(["ok", "finished"]);
  });

  test("a finite timeoutMs is the run's in both", async () => {
    const { local, remote } = await both(one("outlast"), { timeoutMs: WORKER_TIMEOUT_MS });
    expect(comparable(remote)).toEqual(comparable(local));
    expect(remote.errors.get(1)?.message).toBe(`step 1 (outlast): timed out after ${WORKER_TIMEOUT_MS} ms`);
  });

  test("a run that gives none gets the executor's default: none for runPlan, the worker's own timeoutMs on a worker", async () => {
    const { local, remote } = await both(one("outlast"));
    expect(local.status).toBe("ok");
    expect(remote.errors.get(1)?.message).toBe(`step 1 (outlast): timed out after ${WORKER_TIMEOUT_MS} ms`);
  });
});

describe("what a result may be in JSON: one rule (toStorableJSON)", () => {
  test.each(UNSTORABLE_RESULTS.map(([name, make, reason], i) => [name, make, reason, i] as const))(
    "%s: runPlan's report keeps it, its JSON form and the worker refuse it alike (unserializable)",
    async (_name, make, reason, i) => {
      const { local, remote } = await both(one(unstorableTool(i)));
      expect(local.status).toBe("ok");
      expect(local.results.get(1)).toEqual(make());
      expect(remote.errors.get(1)?.code).toBe("unserializable");
      expect(remote.errors.get(1)?.message).toBe(`step 1 (${unstorableTool(i)}): its result cannot be stored as JSON: ${reason}`);
      const json = reportToJSON(local);
      expect(json.errors["1"]).toEqual({ code: "unserializable", message: `step 1: its result cannot be stored as JSON: ${reason}` });
      expect(jsonComparable(json)).toEqual(jsonComparable(reportToJSON(remote)));
    },
  );

  test("a plain result is written the same by both", async () => {
    const { local, remote } = await both(one("echo", { city: "Lisbon", days: [1, 2], none: null }));
    expect(jsonComparable(reportToJSON(local))).toEqual(jsonComparable(reportToJSON(remote)));
  });
});

describe("approval: one state and one event name", () => {
  test("a gated step: both report it pending and tell it as step-awaiting-approval", async () => {
    const plan = {
      steps: [
        { id: 1, tool: "echo", args: { amount: 30 } },
        { id: 2, tool: "pay", args: { amount: "$1.amount" } },
      ],
    };
    const { local, remote, localEvents, remoteEvents } = await both(plan);
    expect(comparable(remote)).toEqual(comparable(local));
    expect(local.status).toBe("suspended");
    const waiting = (events: readonly { readonly type: string; readonly stepId?: number }[]): unknown =>
      events.filter((event) => event.type === "step-awaiting-approval").map((event) => event.stepId);
    expect(waiting(localEvents)).toEqual([2]);
    expect(waiting(remoteEvents)).toEqual([2]);
    const state = await shared.client.query<{ state: string }>("select state from plan_refs.steps where run_id = $1 and step_id = 2", [
      remote.runId,
    ]);
    expect(state.rows).toEqual([{ state: "awaiting-approval" }]);
  });
});

describe("the smaller rules, each through both", () => {
  test("retry policy: the tool's own (retryByTool), else the run's (retry)", async () => {
    const plan = {
      steps: [
        { id: 1, tool: "flaky", args: {} },
        { id: 2, tool: "broken", args: {} },
      ],
    };
    const { local, remote, localEvents, remoteEvents } = await both(plan, {
      retry: { attempts: 2, initialDelayMs: 0, jitter: "none" },
      retryByTool: { flaky: { attempts: 3, initialDelayMs: 0, jitter: "none" } },
    });
    expect(comparable(remote)).toEqual(comparable(local));
    expect([...(remote.attempts ?? [])].sort()).toEqual([...(local.attempts ?? [])].sort());
    expect(local.attempts).toEqual(
      new Map([
        [1, 2],
        [2, 2],
      ]),
    );
    const retries = (events: readonly { readonly type: string; readonly stepId?: number; readonly attempts?: number }[]): unknown =>
      events
        .filter((event) => event.type === "step-retry")
        .map((event) => [event.stepId, event.attempts])
        .sort();
    expect(retries(remoteEvents)).toEqual(retries(localEvents));
    expect(retries(localEvents)).toEqual([
      [1, 3],
      [2, 2],
    ]);
  });

  test("after a try (afterTry), under a retry policy: a tool's NonRetryableError and an output that fails its schema fail at once in both, the output kept", async () => {
    const catalog = { answer: { output: { type: "string" } }, flaky: {}, refuses: {} };
    const plan = {
      steps: [
        { id: 1, tool: "refuses", args: {} },
        { id: 2, tool: "answer", args: {} },
        { id: 3, tool: "flaky", args: {} },
      ],
    };
    const { local, remote, localEvents, remoteEvents } = await both(plan, {
      catalog,
      validateOutputs: true,
      retry: { attempts: 3, initialDelayMs: 0, jitter: "none" },
    });
    expect(comparable(remote)).toEqual(comparable(local));
    expect([...(remote.attempts ?? [])].sort()).toEqual([...(local.attempts ?? [])].sort());
    expect(local.attempts).toEqual(
      new Map([
        [1, 1],
        [2, 1],
        [3, 2],
      ]),
    );
    expect([local.errors.get(1)?.code, local.errors.get(2)?.code, local.results.get(2), local.results.get(3)]).toEqual([
      "tool-error",
      "invalid-output",
      42,
      { tries: 2 },
    ]);
    const retried = (events: readonly { readonly type: string; readonly stepId?: number }[]): unknown =>
      events.filter((event) => event.type === "step-retry").map((event) => event.stepId);
    expect(retried(remoteEvents)).toEqual(retried(localEvents));
    expect(retried(localEvents)).toEqual([3]);
  });

  test("a result that fails its output schema is kept in both", async () => {
    const catalog = { answer: { output: { type: "string" } } };
    const { local, remote } = await both(one("answer"), { catalog, validateOutputs: true });
    expect(comparable(remote)).toEqual(comparable(local));
    expect([local.errors.get(1)?.code, local.results.get(1)]).toEqual(["invalid-output", 42]);
  });

  test("validateInputs: both check the resolved arguments and call nothing that does not fit", async () => {
    const catalog = {
      echo: {},
      add: { input: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },
    };
    const plan = {
      steps: [
        { id: 1, tool: "echo", args: { n: "two" } },
        { id: 2, tool: "add", args: { a: 1, b: "$1.n" } },
      ],
    };
    const { local, remote } = await both(plan, { catalog, validateInputs: true });
    expect(comparable(remote)).toEqual(comparable(local));
    expect(local.errors.get(2)?.code).toBe("invalid-input");
  });

  test("the idempotency key is runId:stepId in both", async () => {
    const runId = `parity-key-${process.pid}`;
    const local = await runPlan(one("key"), tools, { runId });
    const remote = await waitForRun(await submitPlan(one("key"), { connectionString: shared.db.url, runId }), {
      connectionString: shared.db.url,
      timeoutMs: 60_000,
    });
    expect(remote.results.get(1)).toEqual({ key: `${runId}:1` });
    expect(local.results.get(1)).toEqual({ key: `${runId}:1` });
  });

  test.each([
    ["empty", ""],
    ["a space", "trip 1"],
    ["a control character", "trip\u001b[2K"],
    ["not ASCII", "trip-é"],
    ["201 characters", "r".repeat(201)],
  ])("a run id with %s is refused by both, with one message", async (_name, runId) => {
    const message = "option runId must be 1 to 200 printable ASCII characters without spaces";
    const local = await runPlan(one("echo"), tools, { runId }).catch((error: unknown) => error);
    const remote = await submitPlan(one("echo"), { connectionString: shared.db.url, runId }).catch((error: unknown) => error);
    expect(local).toBeInstanceOf(RefError);
    expect(remote).toBeInstanceOf(RefError);
    expect([(local as RefError).code, (local as RefError).message]).toEqual(["invalid-options", message]);
    expect([(remote as RefError).code, (remote as RefError).message]).toEqual(["invalid-options", `submitPlan: ${message}`]);
  });

  test("the longest printable run id is taken by both", async () => {
    const suffix = `~${process.pid}`;
    const runId = `${"r".repeat(200 - suffix.length)}${suffix}`;
    const { local, remote } = await both(one("echo", { x: 1 }), {}, runId);
    expect([local.runId, remote.runId]).toEqual([runId, runId]);
  });

  test("event names: every event either executor tells is one of the shared list, and a run's names agree", async () => {
    const plan = {
      steps: [
        { id: 1, tool: "flaky", args: {} },
        { id: 2, tool: "echo", args: { after: "$1" } },
        { id: 3, tool: "broken", args: {} },
        { id: 4, tool: "echo", args: { after: "$3" } },
      ],
    };
    const { localEvents, remoteEvents } = await both(plan, { retry: { attempts: 2, initialDelayMs: 0, jitter: "none" } });
    for (const event of [...localEvents, ...workerEvents]) expect(STEP_EVENT_TYPES).toContain(event.type);
    // A worker skips in the database (its settle), so it tells no step-skipped.
    expect(names(remoteEvents)).toEqual(names(localEvents).filter((name) => name !== "step-skipped"));
    expect(names(localEvents)).toEqual(["step-done", "step-failed", "step-retry", "step-skipped", "step-start"]);
  });
});
