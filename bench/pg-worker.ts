/**
 * A worker process of workload 8. `plan-refs URL`: a plan-refs worker (startWorker) whose one tool,
 * `hop`, returns at once. `bare URL`: graphile-worker alone running the same steps with no plan-refs
 * code: each task stores its result and, in the same transaction, adds the successors whose
 * predecessors are all done (a counter per step), as an application would by hand.
 */
import { run } from "graphile-worker";
import { Logger } from "graphile-worker";
import pg from "pg";
import { startWorker } from "../src/postgres/index.js";
import { successors } from "./pg-shapes.js";

const [mode, url] = process.argv.slice(2);
const concurrency = 8;
const silent = new Logger(() => () => undefined);

if (mode === "plan-refs") {
  const worker = await startWorker({ connectionString: url!, concurrency, tools: { hop: (args) => ({ n: Object.keys(args).length }) } });
  process.on("SIGTERM", () => void worker.stop().then(() => process.exit(0)));
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
  process.on("SIGTERM", () => void runner.stop().then(() => process.exit(0)));
}
process.stdout.write("ready\n");
