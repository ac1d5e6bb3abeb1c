/**
 * The pool graphile-worker gets. graphile-worker ends each job with `completeJob` or `failJob`, and
 * does not await the promise: if the database is away at that moment it rejects unhandled, which ends
 * the process of any application that embeds a worker. Through this pool those statements never
 * reject: they are retried until the database answers (or the worker is closed), and any other error
 * of theirs is dropped (a job left locked is released by the recovery of `startWorker`).
 */
import { isConnectionError } from "./db.js";
import type { PgPool, PgPoolClient, PgQueryResult } from "./peers.js";
import { loadPg } from "./peers.js";

/** The names of graphile-worker's statements that end a job (prepared statements: `name/schema`). */
const ENDS_A_JOB = /^(?:complete_job|complete_jobs|complete_job_q|fail_job|fail_job_q)\//;

const NOTHING: PgQueryResult = { rows: [], rowCount: 0 };

/** Wait between tries while the database is away: 100 ms doubling up to 2 s. */
export function backoff(tries: number): number {
  return Math.min(2_000, 100 * 2 ** Math.min(tries, 5));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function endsAJob(query: unknown): boolean {
  if (typeof query !== "object" || query === null) return false;
  const name = (query as { name?: unknown }).name;
  return typeof name === "string" && ENDS_A_JOB.test(name);
}

/**
 * A pg pool for graphile-worker whose job-ending statements never reject (see above). `closed` says
 * when to stop retrying (the worker stopped).
 */
export async function makeJobPool(config: Record<string, unknown>, closed: () => boolean): Promise<PgPool> {
  const { Pool } = await loadPg();
  const Base = Pool as unknown as new (config: Record<string, unknown>) => { connect(callback?: unknown): unknown };
  class JobPool extends Base {
    override connect(callback?: unknown): unknown {
      // graphile-worker's LISTEN connection (callback style) is its own to handle.
      if (callback !== undefined) return super.connect(callback);
      const take = (): Promise<PgPoolClient> => super.connect() as Promise<PgPoolClient>;
      return take().then(
        (client) => new GuardedClient(take, closed, client, undefined),
        (error: unknown) => new GuardedClient(take, closed, undefined, error),
      );
    }
  }
  return new JobPool(config) as unknown as PgPool;
}

/** A pooled client (or the error of getting one) whose job-ending statements retry instead of rejecting. */
class GuardedClient {
  constructor(
    readonly take: () => Promise<PgPoolClient>,
    readonly closed: () => boolean,
    private client: PgPoolClient | undefined,
    readonly error: unknown,
  ) {}

  async query(query: unknown, values?: readonly unknown[]): Promise<PgQueryResult> {
    if (!endsAJob(query)) {
      if (this.client === undefined) throw this.error;
      return (this.client.query as (q: unknown, v?: readonly unknown[]) => Promise<PgQueryResult>)(query, values);
    }
    for (let tries = 0; ; tries++) {
      try {
        this.client ??= await this.take();
        return await (this.client.query as (q: unknown, v?: readonly unknown[]) => Promise<PgQueryResult>)(query, values);
      } catch (error) {
        if (!isConnectionError(error) || this.closed()) return NOTHING;
        this.client?.release(true);
        this.client = undefined;
        await sleep(backoff(tries));
      }
    }
  }

  release(destroy?: boolean | Error): void {
    this.client?.release(destroy);
    this.client = undefined;
  }
}
