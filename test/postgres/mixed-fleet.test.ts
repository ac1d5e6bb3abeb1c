/**
 * Starts PostgreSQL (databases of this file's own on the run's server) and workers in this process,
 * and runs npm once (the previous release's own dependencies): a rolling upgrade, where workers of the
 * previous release still run on a schema this release migrated. The previous release's worker is its
 * compiled code, kept in test/fixtures/vendor/previous-release/dist (its README says from which
 * commit; scripts/previous-release-fixture.mjs rebuilds it), run where it is (its imports resolve from
 * this repository: graphile-worker 0.18) and installed with the dependencies it shipped with
 * (graphile-worker 0.17.3); it calls the previous `settle_done` signature, which `migrate` keeps as a wrapper.
 * The same plans (chains, fan-out and fan-in, steps that fail and are retried, a failure that skips
 * its dependents) run on a mixed fleet, one previous worker beside one current, and on an all-new
 * fleet of two current workers: every run ends with the same report, and each worker of the mixed
 * fleet ran steps (a gate step blocks until two workers hold one each, so it cannot be one alone).
 * The tools are split between the two workers of a fleet, the same way in both fleets, so that what
 * each release's code does is certain: the previous worker alone retries and fails steps (its
 * `retry_step`, `settle_failed` and wrapped `settle_done` calls), the current one alone adds (chains
 * and fan-out, each settle taking the next step), and their steps depend on each other's.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import {
  startWorker,
  submitPlan,
  waitForRun,
  type Worker,
  type WorkerOptions,
  type WorkerToolContext,
  type WorkerToolFunction,
} from "../../src/postgres/index.js";
import type { RunReport } from "../../src/run/run-plan.js";
import { installedGraphileWorkerVersion } from "../../src/postgres/graphile-version.js";
import { tempFolder } from "../helpers/temp.js";
import { comparable } from "./compare.js";
import { fileDatabase, type FileDatabase } from "./server.js";

/** The previous release's `startWorker`: its options are a subset of this release's. */
type StartWorker = (options: Pick<WorkerOptions, "connectionString" | "tools" | "concurrency">) => Promise<Pick<Worker, "stop">>;

/** Imported by URL: the fixture is plain JavaScript without declarations. */
const PREVIOUS_WORKER = new URL("../fixtures/vendor/previous-release/dist/postgres/worker.js", import.meta.url).href;

/** A fleet's tools; `calls` says which worker ran which step. */
interface Fleet {
  readonly calls: { worker: string; runId: string; tool: string; attempt: number }[];
  tools(worker: string, names: readonly ToolName[]): Record<string, WorkerToolFunction>;
}

/**
 * The tools both fleets run (their results never say which worker ran them). `gate` returns once two
 * different workers are inside it: each worker has one slot, so while one waits in a gate the other
 * must take the second gate step, and the run cannot finish on one worker alone.
 */
function fleet(): Fleet {
  const calls: Fleet["calls"] = [];
  const inGate = new Set<string>();
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    calls,
    tools: (worker, names) => {
      const called = (tool: string, context: WorkerToolContext): void => {
        calls.push({ worker, runId: context.runId, tool, attempt: context.attempt });
      };
      const all: Record<ToolName, WorkerToolFunction> = {
        echo: (args, context) => {
          called("echo", context);
          return args;
        },
        add: (args, context) => {
          called("add", context);
          return Number(args.a) + Number(args.b);
        },
        // Fails while its try is at most `fails`, then returns `value`.
        flaky: (args, context) => {
          called("flaky", context);
          if (context.attempt <= Number(args.fails)) throw new Error(`down on try ${context.attempt}`);
          return args.value;
        },
        fail: (args, context) => {
          called("fail", context);
          throw new Error(String(args.message));
        },
        gate: async (args, context) => {
          called("gate", context);
          inGate.add(worker);
          if (inGate.size >= 2) open();
          await opened;
          return args;
        },
      };
      return Object.fromEntries(names.map((name) => [name, all[name]]));
    },
  };
}

type ToolName = "echo" | "add" | "flaky" | "fail" | "gate";

/** The tools of a fleet's first worker (the previous release's in the mixed fleet) and of its second. */
const FIRST_TOOLS: readonly ToolName[] = ["gate", "echo", "flaky", "fail"];
const SECOND_TOOLS: readonly ToolName[] = ["gate", "echo", "add"];

const RETRIES = { retryByTool: { flaky: { attempts: 3, initialDelayMs: 0, jitter: "none" } } } as const;

/** The plans, with their run options: each fleet runs them all at once. */
const PLANS: readonly { readonly plan: unknown; readonly options?: object }[] = [
  {
    plan: {
      steps: [
        { id: 1, tool: "gate", args: { side: "left" } },
        { id: 2, tool: "gate", args: { side: "right" } },
        { id: 3, tool: "echo", args: { left: "$1.side", right: "$2.side" } },
      ],
    },
  },
  {
    plan: {
      steps: [
        { id: 1, tool: "add", args: { a: 0, b: 1 } },
        ...Array.from({ length: 11 }, (_, i) => ({ id: i + 2, tool: "add", args: { a: `$${i + 1}`, b: 1 } })),
      ],
    },
  },
  {
    plan: {
      steps: [
        { id: 0, tool: "echo", args: { n: 5 } },
        ...Array.from({ length: 12 }, (_, i) => ({ id: i + 1, tool: "add", args: { a: "$0.n", b: i } })),
        { id: 20, tool: "echo", args: { first: "$1", last: "$12" } },
      ],
    },
  },
  {
    plan: {
      steps: [
        { id: 1, tool: "flaky", args: { fails: 1, value: "up" } },
        { id: 2, tool: "flaky", args: { fails: 2, value: { city: "Lisbon" } } },
        { id: 3, tool: "echo", args: { a: "$1", city: "$2.city" } },
        { id: 4, tool: "flaky", args: { fails: 5, value: "never" } },
        { id: 5, tool: "echo", args: { after: "$4" } },
      ],
    },
    options: RETRIES,
  },
  {
    plan: {
      steps: [
        { id: 1, tool: "fail", args: { message: "no geocoder" } },
        { id: 2, tool: "echo", args: { at: "$1" } },
        { id: 3, tool: "flaky", args: { fails: 1, value: 3 } },
        { id: 4, tool: "add", args: { a: "$3", b: 4 } },
      ],
    },
    options: RETRIES,
  },
];

/** What two fleets must agree on: the report as runPlan's are compared, and each step's tries. */
function sameness(report: RunReport): unknown {
  return { ...(comparable(report) as object), attempts: [...(report.attempts ?? [])].sort((a, b) => a[0] - b[0]) };
}

/** Start `workers`, run every plan at once, stop the workers; the reports in the order of PLANS. */
async function runOn(db: FileDatabase, workers: readonly (() => Promise<Pick<Worker, "stop">>)[]): Promise<unknown[]> {
  const started: Pick<Worker, "stop">[] = [];
  try {
    for (const start of workers) started.push(await start());
    const runIds = await Promise.all(
      PLANS.map(({ plan, options }) => submitPlan(plan, { connectionString: db.url, ...(options === undefined ? {} : { options }) })),
    );
    const reports = await Promise.all(runIds.map((runId) => waitForRun(runId, { connectionString: db.url, timeoutMs: 100_000 })));
    return reports.map(sameness);
  } finally {
    await Promise.all(started.map((worker) => worker.stop()));
  }
}

/** The all-new fleet's reports, run once for the file's tests. */
let allNewReports: Promise<unknown[]> | undefined;
function allNew(): Promise<unknown[]> {
  allNewReports ??= (async () => {
    const db = await fileDatabase();
    try {
      const fleetOfNew = fleet();
      return await runOn(db, [
        () => startWorker({ connectionString: db.url, tools: fleetOfNew.tools("one", FIRST_TOOLS), concurrency: 1 }),
        () => startWorker({ connectionString: db.url, tools: fleetOfNew.tools("two", SECOND_TOOLS), concurrency: 1 }),
      ]);
    } finally {
      await db.remove();
    }
  })();
  return allNewReports;
}

/**
 * The plans on a mixed fleet: the previous release's worker (`startWorker` of the fixture's code, as
 * `from` loads it) beside this release's, on a database of its own; the reports and the calls.
 */
async function mixedFleet(from: string): Promise<{ reports: unknown[]; calls: Fleet["calls"] }> {
  const previousStartWorker = ((await import(from)) as { startWorker: StartWorker }).startWorker;
  const db = await fileDatabase();
  try {
    const mixed = fleet();
    const reports = await runOn(db, [
      () => previousStartWorker({ connectionString: db.url, tools: mixed.tools("previous", FIRST_TOOLS), concurrency: 1 }),
      () => startWorker({ connectionString: db.url, tools: mixed.tools("current", SECOND_TOOLS), concurrency: 1 }),
    ]);
    return { reports, calls: mixed.calls };
  } finally {
    await db.remove();
  }
}

/** The same report as the all-new fleet's, and each worker ran what only it could. */
async function expectSameAsAllNew({ reports, calls }: { reports: unknown[]; calls: Fleet["calls"] }): Promise<void> {
  expect(reports).toEqual(await allNew());
  // The fleets did what the plans ask: some runs fail, tries were retried.
  expect(reports.map((report) => (report as { status: string }).status)).toEqual(["ok", "ok", "ok", "failed", "failed"]);
  expect(reports[3]).toMatchObject({
    attempts: [
      [1, 2],
      [2, 3],
      [3, 1],
      [4, 3],
    ],
    skipped: [5],
  });
  const workersOf = (tool: ToolName) => new Set(calls.filter((call) => call.tool === tool).map((call) => call.worker));
  expect(workersOf("gate")).toEqual(new Set(["previous", "current"]));
  expect([workersOf("flaky"), workersOf("fail"), workersOf("add")]).toEqual([
    new Set(["previous"]),
    new Set(["previous"]),
    new Set(["current"]),
  ]);
  // Tries 2 and 3 of the retried steps ran on the previous release's code too.
  expect(
    calls
      .filter((call) => call.tool === "flaky")
      .map((call) => call.attempt)
      .sort((a, b) => a - b),
  ).toEqual([1, 1, 1, 1, 2, 2, 2, 2, 3, 3]);
}

describe("a mixed fleet during a rolling upgrade", { timeout: 180_000 }, () => {
  test("a previous-release worker beside a current one, on a schema this release migrated: every run ends with an all-new fleet's report, and both workers ran steps", async () => {
    await expectSameAsAllNew(await mixedFleet(PREVIOUS_WORKER));
  });

  const folder = tempFolder("previous-release");

  // Spawns npm: the previous release's worker as a machine not yet upgraded has it, on the graphile-worker it shipped with.
  test("the previous-release worker on graphile-worker 0.17.3 (its own install) beside a current one on 0.18.0: the same reports", async () => {
    const fixture = fileURLToPath(new URL("../fixtures/vendor/previous-release/", import.meta.url));
    for (const file of ["package.json", "package-lock.json"]) copyFileSync(join(fixture, file), join(folder, file));
    cpSync(join(fixture, "dist"), join(folder, "dist"), { recursive: true });
    const npm = spawnSync("npm", ["ci", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: folder,
      encoding: "utf8",
      shell: process.platform === "win32",
    });
    expect(npm.status, npm.stderr).toBe(0);
    const entry = pathToFileURL(join(folder, "dist/postgres/worker.js")).href;
    expect([installedGraphileWorkerVersion(entry), installedGraphileWorkerVersion()]).toEqual(["0.17.3", "0.18.0"]);
    await expectSameAsAllNew(await mixedFleet(entry));
  }, 300_000);
});
