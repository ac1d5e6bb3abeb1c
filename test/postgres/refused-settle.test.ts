/**
 * Starts nothing of its own: one in-process worker on the run's one PostgreSQL (a database of this
 * file's own, test/postgres/server.ts).
 *
 * A settle PostgreSQL refuses with an error that is no conflict (or with a conflict every time, up to
 * `MAX_CONFLICT_TRIES`): the worker's job fails, and graphile-worker tries it again later. A step a
 * settle took for the worker has no job of its own; when its own settle is refused it is given back,
 * ready with a job, else it would stay running with no job until its worker died. A settle refused
 * while it would take a step takes nothing: it is one transaction, rolled back. Either way the run
 * ends with the report a run nothing refused gives.
 *
 * The refusal is real: a trigger on the steps table raises the error when the first try of a given
 * step is settled a given way (done, failed, retrying); each refusal draws a number from a sequence
 * (which a rollback does not give back), so the test counts the settle's tries.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, afterAll, describe, expect, test } from "vitest";
import { startWorker, submitPlan, waitForRun, type Worker, type WorkerToolContext } from "../../src/postgres/index.js";
import { MAX_CONFLICT_TRIES } from "../../src/postgres/db.js";
import { CLAIMABLE_STATES } from "../../src/postgres/stored-states.js";
import { comparable } from "./compare.js";
import { databaseAndClient } from "./server.js";

const shared = databaseAndClient();
let worker: Worker;

/** For each call of `second`: its try, and whether its step had a job of its own then (a settle took it: none). */
const calls = new Map<string, [number, boolean][]>();

const tools = {
  first: () => ({ n: 1 }),
  /** `mode`: `ok` returns; `throws` throws every try; `flaky` throws on the first try only. */
  second: async (args: Record<string, unknown>, context: WorkerToolContext) => {
    const job = await shared.client.query("select count(*)::int as n from graphile_worker._private_jobs where key = $1", [
      `${context.runId}:${context.stepId}`,
    ]);
    calls.set(context.runId, [...(calls.get(context.runId) ?? []), [context.attempt, job.rows[0].n > 0]]);
    if (args.mode === "throws" || (args.mode === "flaky" && context.attempt === 1)) throw new Error("down");
    return { n: args.n };
  },
};

beforeAll(async () => {
  await shared.client.query(
    "create table public.settle_faults (run_id text not null, step_id bigint not null, state text not null, code text not null)",
  );
  await shared.client.query("create sequence public.refusals");
  await shared.client.query(`create function public.refuse_settle() returns trigger language plpgsql as $$
    declare v_code text;
    begin
      select f.code into v_code from public.settle_faults f where f.run_id = new.run_id and f.step_id = new.step_id and f.state = new.state;
      if found and old.state = 'running' and new.attempt = 1 then
        perform nextval('public.refusals');
        raise exception 'the test refuses this settle' using errcode = v_code;
      end if;
      return new;
    end $$`);
  await shared.client.query(
    "create trigger refuse_settle before update on plan_refs.steps for each row execute function public.refuse_settle()",
  );
  worker = await startWorker({ connectionString: shared.db.url, tools });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
}, 60_000);

async function refusals(): Promise<number> {
  const found = await shared.client.query("select case when is_called then last_value else 0 end::int as n from public.refusals");
  return found.rows[0].n;
}

/** Steps 1 (`first`) and 2 (`second`, after it), under `runId`, with the run's options. */
function submit(runId: string, mode: string, options: object): Promise<string> {
  const plan = {
    steps: [
      { id: 1, tool: "first", args: {} },
      { id: 2, tool: "second", args: { n: "$1.n", mode } },
    ],
  };
  return submitPlan(plan, { connectionString: shared.db.url, runId, options });
}

/**
 * Once graphile-worker has recorded the failure of step 1's job (the job of the worker whose settle
 * was refused), asked again and again: the event is the row written.
 */
async function firstJobFailed(runId: string): Promise<void> {
  for (let polls = 0; polls < 200_000; polls++) {
    const found = await shared.client.query(
      "select 1 from graphile_worker._private_jobs where key = $1 and last_error is not null and locked_at is null",
      [`${runId}:1`],
    );
    if (found.rows.length > 0) return;
  }
  throw new Error("step 1's job never failed");
}

/** The run's steps still to run (ready, running, retrying: a claim's states) that have no job to run them. */
async function withoutJob(runId: string): Promise<number[]> {
  const found = await shared.client.query(
    `select s.step_id::int as id from plan_refs.steps s
     where s.run_id = $1 and s.state = any($2::text[])
       and not exists (select 1 from graphile_worker._private_jobs j where j.key = s.run_id || ':' || s.step_id::text)
     order by s.step_id`,
    [runId, CLAIMABLE_STATES],
  );
  return found.rows.map((row) => Number(row.id));
}

const retrySecond = { retryByTool: { second: { attempts: 2, initialDelayMs: 0, jitter: "none" } } };

describe("a settle PostgreSQL refuses", { timeout: 60_000 }, () => {
  // `step`, `state`, `code`: whose settle is refused, the state it writes, the error; `tries`: how many
  // times the settle is made; `second`: the tries of step 2 (its try, whether it had a job).
  test.each([
    {
      name: "a taken step's done, an error that is no conflict",
      mode: "ok",
      options: {},
      step: 2,
      state: "done",
      code: "XX000",
      tries: 1,
      second: [
        [1, false],
        [2, true],
      ],
    },
    {
      name: "a taken step's done, a deadlock every time",
      mode: "ok",
      options: {},
      step: 2,
      state: "done",
      code: "40P01",
      tries: MAX_CONFLICT_TRIES,
      second: [
        [1, false],
        [2, true],
      ],
    },
    {
      name: "a taken step's failure, a check violation",
      mode: "throws",
      options: {},
      step: 2,
      state: "failed",
      code: "23514",
      tries: 1,
      second: [
        [1, false],
        [2, true],
      ],
    },
    {
      name: "a taken step's retry, an error that is no conflict",
      mode: "flaky",
      options: retrySecond,
      step: 2,
      state: "retrying",
      code: "XX000",
      tries: 1,
      second: [
        [1, false],
        [2, true],
      ],
    },
    {
      name: "the done of a step with a job, that would take the next, an error that is no conflict",
      mode: "ok",
      options: {},
      step: 1,
      state: "done",
      code: "XX000",
      tries: 1,
      second: [[1, false]],
    },
  ])("$name: no step is left without a job, and the run ends as a run nothing refused", async (row) => {
    const runId = randomUUID();
    await shared.client.query("insert into public.settle_faults values ($1, $2, $3, $4)", [runId, row.step, row.state, row.code]);
    const before = await refusals();
    await submit(runId, row.mode, row.options);
    await firstJobFailed(runId);
    expect(await withoutJob(runId)).toEqual([]);
    const report = await waitForRun(runId, { connectionString: shared.db.url, timeoutMs: 30_000 });
    expect(await refusals()).toBe(before + row.tries);
    expect(calls.get(runId)).toEqual(row.second);

    const clean = randomUUID();
    await submit(clean, row.mode, row.options);
    expect(comparable(report)).toEqual(comparable(await waitForRun(clean, { connectionString: shared.db.url, timeoutMs: 30_000 })));
  });
});
