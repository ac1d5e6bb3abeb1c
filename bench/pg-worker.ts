/**
 * A worker process of workload 8. `plan-refs URL`: a plan-refs worker (startWorker) whose one tool,
 * `hop`, returns at once. `bare URL`: graphile-worker alone running the same steps with no plan-refs
 * code: each task stores its result and, in the same transaction, adds the successors whose
 * predecessors are all done (a counter per step), as an application would by hand.
 *
 * Either kind samples its resident set size (every 250 ms and every 10th step it runs) and, on SIGTERM,
 * prints one line `rss {"steps":…,"firstQuarter":…,"lastQuarter":…}` before it exits: the peak RSS over
 * the first and over the last quarter of the steps it ran, so the bench can tell a worker whose memory
 * grows with the runs it has served from one that settles.
 */
import { run } from "graphile-worker";
import { Logger } from "graphile-worker";
import pg from "pg";
import { startWorker } from "../src/postgres/index.js";
import { successors } from "./pg-shapes.js";

const [mode, url] = process.argv.slice(2);
const concurrency = 8;
const silent = new Logger(() => () => undefined);

/** Peaks are kept per bucket of this many steps run (bounded: steps ÷ 25 numbers), quarters read off at the end. */
const BUCKET = 25;
const peaks: number[] = [];
let steps = 0;
function sample(): void {
  const bucket = Math.floor(steps / BUCKET);
  const rss = process.memoryUsage.rss();
  if (!((peaks[bucket] ?? 0) >= rss)) peaks[bucket] = rss;
}
function ranStep(): void {
  steps++;
  if (steps % 10 === 0) sample();
}
sample();
setInterval(sample, 250).unref();

/** The peak RSS over the buckets whose first step lies in [from, to) of the steps run. */
function peakBetween(from: number, to: number): number {
  let peak = 0;
  peaks.forEach((rss, bucket) => {
    const first = bucket * BUCKET;
    if (first >= from && first < to) peak = Math.max(peak, rss);
  });
  return peak;
}

function report(): string {
  sample();
  const quarter = steps / 4;
  return `rss ${JSON.stringify({ steps, firstQuarter: peakBetween(0, Math.max(quarter, 1)), lastQuarter: peakBetween(Math.floor(3 * quarter), Infinity) })}\n`;
}

let stop: () => Promise<void>;
if (mode === "plan-refs") {
  const worker = await startWorker({
    connectionString: url!,
    concurrency,
    tools: { hop: (args) => (ranStep(), { n: Object.keys(args).length }) },
  });
  stop = () => worker.stop();
} else {
  const pool = new pg.Pool({ connectionString: url!, max: concurrency + 2 });
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined)); // as src/postgres/worker.ts does
  const runner = await run({
    pgPool: pool,
    concurrency,
    noHandleSignals: true,
    logger: silent,
    taskList: {
      bare_step: async (payload, helpers) => {
        const { plan, step } = payload as { plan: number; step: number };
        ranStep();
        const startedAt = new Date();
        const result = JSON.stringify({ n: step });
        await helpers.withPgClient(async (client) => {
          await client.query(
            `with stored as (insert into bare.results (plan, step, result, started_at, ended_at) values ($1, $2, $3, $4, clock_timestamp())),
                  ready as (update bare.pending set pending = pending - 1 where plan = $1 and step = any($5::int[]) returning step, pending)
             select graphile_worker.add_job('bare_step', json_build_object('plan', $1::int, 'step', step)) from ready where pending = 0`,
            [plan, step, result, startedAt, successors(plan, step)],
          );
          if (step === 10) await client.query("select pg_notify('bare_finished', $1)", [String(plan)]);
        });
      },
    },
  });
  stop = () => runner.stop();
}
process.on("SIGTERM", () => void stop().then(() => process.stdout.write(report(), () => process.exit(0))));
process.stdout.write("ready\n");
