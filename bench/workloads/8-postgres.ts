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
import { ratioTarget, type Row, type Workload } from "../harness.js";
import { planOf, predecessors } from "../pg-shapes.js";

const PLANS = 1_000;
const SHAPE_SIZES = [1_000, 10_000] as const;

function shapeName(shape: "fan-out" | "fan-in", n: number): string {
  return `${shape} of ${n.toLocaleString("en-US")} steps, until the run is ok`;
}

/** One step, then `n` steps that each reference it. */
function fanOut(n: number): unknown {
  return { steps: [{ id: 1, tool: "hop", args: { plan: 0 } }, ...Array.from({ length: n }, (_, i) => ({ id: i + 2, tool: "hop", args: { from: "$1.n" } }))] };
}

/** `n` steps, then one step that references them all. */
function fanIn(n: number): unknown {
  const sources = Array.from({ length: n }, (_, i) => ({ id: i + 1, tool: "hop", args: { plan: i } }));
  return { steps: [...sources, { id: n + 1, tool: "hop", args: { all: sources.map((step) => `$${step.id}.n`) } }] };
}
const WORKERS = 2;
const workerScript = fileURLToPath(new URL("../pg-worker.js", import.meta.url));
/** The example's embedded PostgreSQL (a .mjs file tsc does not copy: loaded from the repository, three folders up from bench-dist/bench/workloads/). */
const embedded = new URL("../../../examples/postgres/embedded.mjs", import.meta.url).href;

function spawnWorkers(mode: string, url: string): Promise<ChildProcess[]> {
  return Promise.all(
    Array.from(
      { length: WORKERS },
      () =>
        new Promise<ChildProcess>((resolve, reject) => {
          const child = spawn(process.execPath, [workerScript, mode, url], { stdio: ["ignore", "pipe", "inherit"] });
          child.stdout!.setEncoding("utf8").on("data", (chunk: string) => chunk.includes("ready") && resolve(child));
          child.on("exit", (code) => reject(new Error(`workload 8: a ${mode} worker exited (${code})`)));
        }),
    ),
  );
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(children.map((child) => new Promise<void>((resolve) => (child.removeAllListeners("exit"), child.on("exit", () => resolve()), child.kill("SIGTERM")))));
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
    return Number((await client.query(sql)).rows[0].median);
  } finally {
    await client.end();
  }
}

const workload: Workload = {
  id: "8",
  title: "plan-refs on PostgreSQL: 1,000 plans × 10 steps through 2 worker processes, against graphile-worker alone; fan-out and fan-in of 1,000 and 10,000 steps",
  async run() {
    const { startEmbeddedPostgres } = (await import(embedded)) as typeof import("../../examples/postgres/embedded.mjs");
    const db = await startEmbeddedPostgres();
    try {
      await migrate({ connectionString: db.url });
      const setup = new pg.Client({ connectionString: db.url });
      await setup.connect();
      await setup.query(`create schema bare;
        create table bare.pending (plan int, step int, pending int, primary key (plan, step));
        create table bare.results (plan int, step int, result json, started_at timestamptz, ended_at timestamptz, primary key (plan, step))`);

      // The bare engine: pending counters, then every plan's first step, then wait for every last step.
      const bareWorkers = await spawnWorkers("bare", db.url);
      const bareDone = await finished(db.url, "bare_finished", PLANS);
      const bareStart = performance.now();
      const rows: [number, number, number][] = [];
      for (let plan = 0; plan < PLANS; plan++) for (const [step, before] of predecessors(plan)) rows.push([plan, step, before.length]);
      await setup.query("insert into bare.pending select * from unnest($1::int[], $2::int[], $3::int[])", [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])]);
      await setup.query("select graphile_worker.add_job('bare_step', json_build_object('plan', p, 'step', 1)) from generate_series(0, $1::int - 1) p", [PLANS]);
      await bareDone.done;
      const bareMs = performance.now() - bareStart;
      await bareDone.close();
      await stopAll(bareWorkers);

      // plan-refs: submit every plan at once, wait for every run to finish.
      const workers = await spawnWorkers("plan-refs", db.url);
      // One step with N dependents, and one step with N dependencies, each plan alone (N = 1,000, 10,000).
      const shapes: [string, number][] = [];
      for (const [shape, make] of [["fan-out", fanOut], ["fan-in", fanIn]] as const) {
        for (const n of SHAPE_SIZES) {
          const one = await finished(db.url, "plan_refs_finished", 1);
          const shapeStart = performance.now();
          await submitPlan(make(n), { connectionString: db.url });
          await one.done;
          shapes.push([shapeName(shape, n), performance.now() - shapeStart]);
          await one.close();
        }
      }
      const done = await finished(db.url, "plan_refs_finished", PLANS);
      const start = performance.now();
      await Promise.all(Array.from({ length: PLANS }, (_, plan) => submitPlan(planOf(plan), { connectionString: db.url })));
      await done.done;
      const planRefsMs = performance.now() - start;
      await done.close();
      await stopAll(workers);
      const failed = Number((await setup.query("select count(*) as n from plan_refs.runs where status <> 'ok'")).rows[0].n);
      await setup.end();
      if (failed > 0) throw new Error(`workload 8: ${failed} runs not ok`);

      const planRefsHop = await medianOf(
        db.url,
        `select percentile_cont(0.5) within group (order by hop) as median from (
           select extract(epoch from (s.started_at - max(d.ended_at))) * 1000 as hop
           from plan_refs.steps s join plan_refs.steps d on d.run_id = s.run_id and d.step_id in (select json_array_elements_text(s.dependencies)::bigint)
           group by s.run_id, s.step_id, s.started_at) h`,
      );
      const bareHop = await medianOf(
        db.url,
        `select percentile_cont(0.5) within group (order by hop) as median from (
           select extract(epoch from (s.started_at - max(d.ended_at))) * 1000 as hop
           from bare.results s join bare.results d on d.plan = s.plan and (
             (s.plan % 2 = 0 and d.step = s.step - 1) or
             (s.plan % 2 = 1 and d.step = any(case s.step when 2 then array[1] when 3 then array[1] when 4 then array[2,3] when 5 then array[4] when 6 then array[4] when 7 then array[5,6] when 8 then array[7] when 9 then array[8] when 10 then array[9] else array[]::int[] end)))
           group by s.plan, s.step, s.started_at) h`,
      );
      const names = { planRefs: "plan-refs: submitPlan × 1,000 + 2 workers, until every run is ok", bare: "graphile-worker alone: the same 10,000 jobs and hops" };
      const rowsOut: Row[] = [
        { name: names.planRefs, medianNs: planRefsMs * 1e6, roundsNs: [planRefsMs * 1e6] },
        { name: names.bare, medianNs: bareMs * 1e6, roundsNs: [bareMs * 1e6] },
        { name: "median hop, plan-refs (a dependency's end to its dependent's start)", medianNs: planRefsHop * 1e6, roundsNs: [planRefsHop * 1e6] },
        { name: "median hop, graphile-worker alone", medianNs: bareHop * 1e6, roundsNs: [bareHop * 1e6] },
        ...shapes.map(([name, ms]): Row => ({ name, medianNs: ms * 1e6, roundsNs: [ms * 1e6] })),
      ];
      return {
        id: this.id,
        title: this.title,
        unit: "ns",
        rows: rowsOut,
        baselines: [names.bare],
        targets: [
          ratioTarget(rowsOut, "plan-refs on PostgreSQL ÷ graphile-worker alone (1,000 plans × 10 steps, 2 worker processes)", names.planRefs, names.bare, "max", 1.5),
          // Linear within 1.5× per 10× steps: 10,000 steps at most 15 times 1,000.
          ...(["fan-out", "fan-in"] as const).map((shape) => ratioTarget(rowsOut, `${shape}: 10,000 steps ÷ 1,000 steps (linear: at most 15×)`, shapeName(shape, 10_000), shapeName(shape, 1_000), "max", 15)),
        ],
        notes: [
          "One round each, on an embedded PostgreSQL (fsync off) on this machine: the bare engine first, then plan-refs, each with 2 worker processes of concurrency 8. Even plans are chains of 10 steps, odd ones two diamonds and a tail (the same shapes for both).",
          "The bare engine's task stores its result and, in the same statement, decrements its successors' counters and adds those that reach 0 (graphile_worker.add_job): what an application does by hand. plan-refs also stores the run and its steps, lints each plan, resolves each step's arguments from its dependencies' stored results, and keeps attempts and timings: per step one prepared statement marks it running and reads its dependencies' results, and one prepared call (plan_refs.settle_done) stores the result, enqueues the dependents now ready and ends the run. Progress is announced only for runs someone follows (none here).",
          "Fan-out: one step and N steps that each reference it; fan-in: N steps and one step that references them all; one plan at a time on the same 2 workers, from submitPlan until the run is ok. Settling a step costs its dependents: each step counts its dependencies not yet done, each run its steps not yet settled.",
          "A hop is the time from a step's last dependency ending (its result stored) to the step starting on a worker (LISTEN/NOTIFY wakes the workers).",
        ],
      };
    } finally {
      await db.remove();
    }
  },
};

export default workload;
