/**
 * Workload 8: plan-refs on PostgreSQL: 1,000 plans × 10 steps (chains and diamonds)
 * through 2 worker processes, against graphile-worker alone doing the same 10,000 jobs with the same
 * dependency hops (each task adding its successors, no plan-refs code). Target: plan-refs ≤ 1.5× the
 * bare engine's time. Also the median hop: from a step's last dependency ending to the step starting.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { migrate, submitPlan } from "../../src/postgres/index.js";
import { startEmbeddedPostgres } from "../../src/postgres/embedded.js";
import { ratioTarget, type Row, type Target, type Workload } from "../harness.js";
import { planOf, predecessors } from "../pg-shapes.js";

const PLANS = 1_000;
const SHAPE_SIZES = [1_000, 10_000] as const;

function shapeName(shape: "fan-out" | "fan-in", n: number): string {
  return `${shape} of ${n.toLocaleString("en-US")} steps, until the run is ok`;
}

/** One step, then `n` steps that each reference it. */
function fanOut(n: number): unknown {
  return {
    steps: [
      { id: 1, tool: "hop", args: { plan: 0 } },
      ...Array.from({ length: n }, (_, i) => ({ id: i + 2, tool: "hop", args: { from: "$1.n" } })),
    ],
  };
}

/** `n` steps, then one step that references them all. */
function fanIn(n: number): unknown {
  const sources = Array.from({ length: n }, (_, i) => ({ id: i + 1, tool: "hop", args: { plan: i } }));
  return { steps: [...sources, { id: n + 1, tool: "hop", args: { all: sources.map((step) => `$${step.id}.n`) } }] };
}
const WORKERS = 2;
const workerScript = fileURLToPath(new URL("../pg-worker.js", import.meta.url));

/**
 * The load phase, opt-in: `PLAN_REFS_BENCH8_LOAD=N` (or `npm run bench -- 8 --load N`) also runs N × 1,000
 * plans through 4 worker processes, both engines, on a fresh database. `PLAN_REFS_BENCH8_PLANS` overrides
 * that plan count (to try the phase at a small scale).
 */
function loadPlans(): number | undefined {
  const [name, text, factor] = process.env["PLAN_REFS_BENCH8_PLANS"]
    ? ["PLAN_REFS_BENCH8_PLANS", process.env["PLAN_REFS_BENCH8_PLANS"], 1]
    : ["PLAN_REFS_BENCH8_LOAD", process.env["PLAN_REFS_BENCH8_LOAD"] ?? "", 1_000];
  if (text === "") return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1 || value > 1_000)
    throw new Error(`workload 8: ${name} must be a whole number from 1 to 1000, not ${JSON.stringify(text)}`);
  return value * factor;
}
const LOAD_WORKERS = 4;
/** Plans submitted at once in the load phase: enough to keep 4 workers busy, few enough not to queue thousands of calls on the submit pool. */
const LOAD_BATCH = 100;
const LOAD_LIMIT = 1.3;
/** A worker's peak RSS over the last quarter of its steps at most this times its first quarter's. */
const RSS_LIMIT = 1.2;

/** What a worker process reported on stopping (see pg-worker.ts). */
interface RssReport {
  readonly steps: number;
  readonly firstQuarter: number;
  readonly lastQuarter: number;
}
interface Worker {
  readonly child: ChildProcess;
  /** What it printed on stopping, once it has. */
  readonly rss: () => RssReport | undefined;
}

function spawnWorkers(mode: string, url: string, count: number): Promise<Worker[]> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Worker>((resolve, reject) => {
          const child = spawn(process.execPath, [workerScript, mode, url], { stdio: ["ignore", "pipe", "inherit"] });
          let out = "";
          let reported: RssReport | undefined;
          const rss = () => reported;
          child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
            out += chunk;
            if (out.includes("ready\n")) resolve({ child, rss });
            const line = /^rss (.*)\n/m.exec(out);
            if (line !== null) reported = JSON.parse(line[1]!) as RssReport;
          });
          child.on("exit", (code) => reject(new Error(`workload 8: a ${mode} worker exited (${code})`)));
        }),
    ),
  );
}

/** Stops the workers and returns what each reported about its memory (its output read to the end: "close", not "exit"). */
async function stopAll(workers: Worker[]): Promise<RssReport[]> {
  await Promise.all(
    workers.map(
      ({ child }) =>
        new Promise<void>((resolve) => (child.removeAllListeners("exit"), child.on("close", () => resolve()), child.kill("SIGTERM"))),
    ),
  );
  return workers.map((worker) => {
    const report = worker.rss();
    if (report === undefined) throw new Error("workload 8: a worker stopped without reporting its memory");
    return report;
  });
}

/** Resolves when `count` distinct payloads came on `channel`. */
async function finished(url: string, channel: string, count: number): Promise<{ done: Promise<void>; close: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const seen = new Set<string>();
  let resolve: () => void = () => undefined;
  const done = new Promise<void>((r) => (resolve = r));
  client.on("notification", (message) => {
    seen.add(message.payload ?? "");
    if (seen.size === count) resolve();
  });
  await client.query(`listen ${channel}`);
  return { done, close: () => client.end() };
}

async function medianOf(url: string, sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ median: unknown }>(sql)).rows[0]?.median);
  } finally {
    await client.end();
  }
}

// The 10-step plans only: the fan-out and fan-in plans run on the same database before them.
const PLAN_REFS_HOP = `select percentile_cont(0.5) within group (order by hop) as median from (
   select extract(epoch from (s.started_at - max(d.ended_at))) * 1000 as hop
   from plan_refs.steps s join plan_refs.runs r on r.id = s.run_id and r.steps_total = 10
     join plan_refs.steps d on d.run_id = s.run_id and d.step_id in (select json_array_elements_text(s.dependencies)::bigint)
   group by s.run_id, s.step_id, s.started_at) h`;
const BARE_HOP = `select percentile_cont(0.5) within group (order by hop) as median from (
   select extract(epoch from (s.started_at - max(d.ended_at))) * 1000 as hop
   from bare.results s join bare.results d on d.plan = s.plan and (
     (s.plan % 2 = 0 and d.step = s.step - 1) or
     (s.plan % 2 = 1 and d.step = any(case s.step when 2 then array[1] when 3 then array[1] when 4 then array[2,3] when 5 then array[4] when 6 then array[4] when 7 then array[5,6] when 8 then array[7] when 9 then array[8] when 10 then array[9] else array[]::int[] end)))
   group by s.plan, s.step, s.started_at) h`;

interface Comparison {
  readonly bareMs: number;
  readonly planRefsMs: number;
  readonly bareHopMs: number;
  readonly planRefsHopMs: number;
  readonly bareRss: RssReport[];
  readonly planRefsRss: RssReport[];
}

/**
 * `plans` plans × 10 steps through `workers` processes, the bare engine first, then plan-refs, each timed
 * from its first submit to its last run finishing. Plans go in `batch` at a time: for the bare engine
 * one statement adding the first job of `batch` plans, for plan-refs `batch` concurrent submitPlan calls,
 * each batch once the one before is stored. `beforePlans` runs on the plan-refs workers before the clock starts.
 */
async function compare(
  url: string,
  plans: number,
  workers: number,
  batch: number,
  beforePlans: () => Promise<void> = async () => undefined,
): Promise<Comparison> {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  try {
    await setup.query(`create schema bare;
      create table bare.pending (plan int, step int, pending int, primary key (plan, step));
      create table bare.results (plan int, step int, result json, started_at timestamptz, ended_at timestamptz, primary key (plan, step))`);

    // The bare engine: pending counters, then every plan's first step, then wait for every last step.
    const bareWorkers = await spawnWorkers("bare", url, workers);
    const bareDone = await finished(url, "bare_finished", plans);
    const bareStart = performance.now();
    const rows: [number, number, number][] = [];
    for (let plan = 0; plan < plans; plan++) for (const [step, before] of predecessors(plan)) rows.push([plan, step, before.length]);
    await setup.query("insert into bare.pending select * from unnest($1::int[], $2::int[], $3::int[])", [
      rows.map((r) => r[0]),
      rows.map((r) => r[1]),
      rows.map((r) => r[2]),
    ]);
    for (let first = 0; first < plans; first += batch) {
      await setup.query(
        "select graphile_worker.add_job('bare_step', json_build_object('plan', p, 'step', 1)) from generate_series($1::int, $2::int - 1) p",
        [first, Math.min(first + batch, plans)],
      );
    }
    await bareDone.done;
    const bareMs = performance.now() - bareStart;
    await bareDone.close();
    const bareRss = await stopAll(bareWorkers);

    const planRefsWorkers = await spawnWorkers("plan-refs", url, workers);
    await beforePlans();
    const done = await finished(url, "plan_refs_finished", plans);
    const start = performance.now();
    for (let first = 0; first < plans; first += batch) {
      await Promise.all(
        Array.from({ length: Math.min(batch, plans - first) }, (_, i) => submitPlan(planOf(first + i), { connectionString: url })),
      );
    }
    await done.done;
    const planRefsMs = performance.now() - start;
    await done.close();
    const planRefsRss = await stopAll(planRefsWorkers);
    const failed = Number((await setup.query<{ n: string }>("select count(*) as n from plan_refs.runs where status <> 'ok'")).rows[0]?.n);
    if (failed > 0) throw new Error(`workload 8: ${failed} runs not ok`);
    return {
      bareMs,
      planRefsMs,
      bareHopMs: await medianOf(url, BARE_HOP),
      planRefsHopMs: await medianOf(url, PLAN_REFS_HOP),
      bareRss,
      planRefsRss,
    };
  } finally {
    await setup.end();
  }
}

async function withDatabase<T>(use: (url: string) => Promise<T>): Promise<T> {
  const db = await startEmbeddedPostgres();
  try {
    await migrate({ connectionString: db.url });
    return await use(db.url);
  } finally {
    await db.remove();
  }
}

const ms = (value: number): Row => ({ name: "", medianNs: value * 1e6, roundsNs: [value * 1e6] });
const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/** The rows, targets and notes of the load phase. */
function loadReport(plans: number, result: Comparison): { rows: Row[]; targets: Target[]; notes: string[]; baseline: string } {
  const count = plans.toLocaleString("en-US");
  const jobs = (plans * 10).toLocaleString("en-US");
  const names = {
    planRefs: `load: plan-refs, submitPlan × ${count} (${LOAD_BATCH} at a time) + ${LOAD_WORKERS} workers, until every run is ok`,
    bare: `load: graphile-worker alone, the same ${jobs} jobs and hops on ${LOAD_WORKERS} workers`,
  };
  const rows: Row[] = [
    { ...ms(result.planRefsMs), name: names.planRefs },
    { ...ms(result.bareMs), name: names.bare },
    { ...ms(result.planRefsHopMs), name: `load: median hop, plan-refs (${count} plans, ${LOAD_WORKERS} workers)` },
    { ...ms(result.bareHopMs), name: `load: median hop, graphile-worker alone (${count} plans, ${LOAD_WORKERS} workers)` },
  ];
  const rssTargets = result.planRefsRss.map((rss, i): Target => {
    const measured = rss.lastQuarter / rss.firstQuarter;
    return {
      description: `load: plan-refs worker ${i + 1} (${rss.steps.toLocaleString("en-US")} steps) peak RSS, last quarter ÷ first quarter (${mb(rss.lastQuarter)} / ${mb(rss.firstQuarter)})`,
      measured,
      limit: RSS_LIMIT,
      kind: "max",
      unit: "×",
      met: measured <= RSS_LIMIT,
    };
  });
  const rssLine = (engine: string, reports: RssReport[]): string =>
    `${engine}, per worker: peak RSS first quarter / last quarter of the steps it ran: ${reports.map((rss, i) => `worker ${i + 1} (${rss.steps.toLocaleString("en-US")} steps) ${mb(rss.firstQuarter)} / ${mb(rss.lastQuarter)}`).join("; ")}.`;
  return {
    rows,
    baseline: names.bare,
    targets: [
      ratioTarget(
        rows,
        `load: plan-refs on PostgreSQL ÷ graphile-worker alone (${count} plans × 10 steps, ${LOAD_WORKERS} worker processes)`,
        names.planRefs,
        names.bare,
        "max",
        LOAD_LIMIT,
      ),
      ...rssTargets,
    ],
    notes: [
      `Load phase (PLAN_REFS_BENCH8_LOAD): ${count} plans × 10 steps on a fresh embedded PostgreSQL through ${LOAD_WORKERS} worker processes of concurrency 8, the bare engine first, then plan-refs, each timed from its first submit to its last run finishing. The plans go in ${LOAD_BATCH} at a time for both: plan-refs as ${LOAD_BATCH} concurrent submitPlan calls (not ${count} at once, which would queue them all on the submit pool), the bare engine as one statement adding the first jobs of ${LOAD_BATCH} plans (its pending counters for every plan go in one statement first, inside the timing); each batch starts once the one before is stored, while the workers already run the earlier ones.`,
      rssLine("plan-refs", result.planRefsRss),
      rssLine("graphile-worker alone", result.bareRss),
      `Each worker samples its RSS every 250 ms and every 10th step it runs, keeping the peak per 25 steps; the quarters are by the count of steps it ran. The bound, last quarter ≤ ${RSS_LIMIT}× the first, tolerates the heap and allocator settling after the first runs and the GC's timing (a few MB either way), and still catches a leak of about 1 KB per step: some 19 MB over the last three quarters of a worker's 25,000 steps at the 10× load. The graphile-worker-alone workers are the control: the same processes without plan-refs code show how much the runtime's own warm-up adds (at a small load the first quarter is mostly warm-up, and both engines' ratios are higher).`,
    ],
  };
}

const workload: Workload = {
  id: "8",
  title:
    "plan-refs on PostgreSQL: 1,000 plans × 10 steps through 2 worker processes, against graphile-worker alone; fan-out and fan-in of 1,000 and 10,000 steps; opt-in (PLAN_REFS_BENCH8_LOAD=10 or `npm run bench -- 8 --load 10`): 10,000 plans × 10 steps through 4 worker processes",
  async run() {
    // One step with N dependents, and one step with N dependencies, each plan alone (N = 1,000, 10,000),
    // on the plan-refs workers before the plans.
    const shapes: [string, number][] = [];
    const result = await withDatabase((url) =>
      compare(url, PLANS, WORKERS, PLANS, async () => {
        for (const [shape, make] of [
          ["fan-out", fanOut],
          ["fan-in", fanIn],
        ] as const) {
          for (const n of SHAPE_SIZES) {
            const one = await finished(url, "plan_refs_finished", 1);
            const shapeStart = performance.now();
            await submitPlan(make(n), { connectionString: url });
            await one.done;
            shapes.push([shapeName(shape, n), performance.now() - shapeStart]);
            await one.close();
          }
        }
      }),
    );
    const plans = loadPlans();
    const load =
      plans === undefined ? undefined : loadReport(plans, await withDatabase((url) => compare(url, plans, LOAD_WORKERS, LOAD_BATCH)));

    const names = {
      planRefs: "plan-refs: submitPlan × 1,000 + 2 workers, until every run is ok",
      bare: "graphile-worker alone: the same 10,000 jobs and hops",
    };
    const rowsOut: Row[] = [
      { ...ms(result.planRefsMs), name: names.planRefs },
      { ...ms(result.bareMs), name: names.bare },
      { ...ms(result.planRefsHopMs), name: "median hop, plan-refs (a dependency's end to its dependent's start)" },
      { ...ms(result.bareHopMs), name: "median hop, graphile-worker alone" },
      ...shapes.map(([name, shapeMs]): Row => ({ ...ms(shapeMs), name })),
      ...(load?.rows ?? []),
    ];
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows: rowsOut,
      baselines: [names.bare, ...(load === undefined ? [] : [load.baseline])],
      targets: [
        ratioTarget(
          rowsOut,
          "plan-refs on PostgreSQL ÷ graphile-worker alone (1,000 plans × 10 steps, 2 worker processes)",
          names.planRefs,
          names.bare,
          "max",
          1.5,
        ),
        // Linear within 1.5× per 10× steps: 10,000 steps at most 15 times 1,000.
        ...(["fan-out", "fan-in"] as const).map((shape) =>
          ratioTarget(
            rowsOut,
            `${shape}: 10,000 steps ÷ 1,000 steps (linear: at most 15×)`,
            shapeName(shape, 10_000),
            shapeName(shape, 1_000),
            "max",
            15,
          ),
        ),
        ...(load?.targets ?? []),
      ],
      notes: [
        "One round each, on an embedded PostgreSQL (fsync off) on this machine: the bare engine first, then plan-refs, each with 2 worker processes of concurrency 8. Even plans are chains of 10 steps, odd ones two diamonds and a tail (the same shapes for both). The 1,000 plans go in at once: one statement adding every first job for the bare engine, 1,000 concurrent submitPlan calls for plan-refs.",
        "The bare engine's task stores its result and, in the same statement, decrements its successors' counters and adds those that reach 0 (graphile_worker.add_job): what an application does by hand. plan-refs also stores the run and its steps, lints each plan, resolves each step's arguments from its dependencies' stored results, and keeps attempts and timings: one prepared call (plan_refs.settle_done) stores a step's result, enqueues the dependents now ready and ends the run, and claims one dependent it made ready for the worker that settled, which runs it next with no job; a step taken from the queue is claimed by one prepared statement that marks it running and reads its dependencies' results. So a chain runs on one worker with no trip through the queue per step, where the bare engine queues every step. Progress is announced only for runs someone follows (none here).",
        "Fan-out: one step and N steps that each reference it; fan-in: N steps and one step that references them all; one plan at a time on the same 2 workers, from submitPlan until the run is ok. Settling a step costs its dependents: each step counts its dependencies not yet done, each run its steps not yet settled.",
        "A hop is the time from a step's last dependency ending (its result stored) to the step starting on a worker (LISTEN/NOTIFY wakes the workers), over the 10-step plans' steps.",
        ...(load?.notes ?? [
          "The load phase (10,000 plans × 10 steps through 4 worker processes, target ≤ 1.3× graphile-worker alone, per-worker peak RSS) is opt-in: PLAN_REFS_BENCH8_LOAD=10 or `npm run bench -- 8 --load 10`.",
        ]),
      ],
    };
  },
};

export default workload;
