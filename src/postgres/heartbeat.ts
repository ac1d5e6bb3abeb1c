/**
 * A worker's heartbeat, and what workers do for one another on each beat: every quarter of its
 * `recoveryMs` a worker writes its row, takes for dead the workers past their own deadline (their jobs
 * released, so their steps run elsewhere), queues again the steps left with no job, and reconnects its
 * listener for stopped runs if the database dropped it.
 */
import { DEFAULT_RECOVERY_MS } from "./worker-settings.js";
import { connectClient, type Connection } from "./db.js";
import type { PgClient, PgPool } from "./peers.js";
import { stoppedChannel } from "./queue.js";
import { beat } from "./sql/heartbeat.js";
import { listenOn } from "./sql/listen.js";
import { findDeadWorkers } from "./sql/recover-dead-workers.js";
import { removeWorker } from "./sql/remove-worker.js";
import { unlockWorkers } from "./sql/unlock-workers.js";
import { requeueOrphans } from "./sql/requeue-orphans.js";

/** What the heartbeat needs from its worker. */
export interface HeartbeatOwner {
  readonly id: string;
  readonly recoveryMs: number;
  readonly toolNames: readonly string[];
  /** Workers were taken for dead: said before their jobs are released (the steps this worker takes next are theirs). */
  recovered(workerIds: readonly string[]): void;
  /** A run was stopped: its running steps' signals are to be aborted. */
  stopped(runId: string): void;
  /** `n` jobs became available now. */
  nudge(n: number): void;
}

/**
 * @example
 * const heartbeat = new Heartbeat(pool, connection, worker); await heartbeat.start(); … await heartbeat.stop()
 */
export class Heartbeat {
  #timer: ReturnType<typeof setInterval> | undefined;
  #listener: PgClient | undefined;
  #closed = false;

  constructor(
    readonly pool: PgPool,
    readonly connection: Connection,
    readonly owner: HeartbeatOwner,
  ) {}

  async start(): Promise<void> {
    await this.#beat();
    const every = Math.max(100, Math.floor(this.owner.recoveryMs / 4));
    this.#timer = setInterval(() => void this.#tick(), every);
    this.#timer.unref();
    await this.#listen();
  }

  /** Stop beating, remove the worker's row, close the listener. */
  async stop(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await removeWorker(this.pool, this.connection, this.owner.id).catch(() => undefined);
    await this.#listener?.end().catch(() => undefined);
    this.#listener = undefined;
  }

  #beat(): Promise<void> {
    return beat(this.pool, this.connection, this.owner.id, this.owner.recoveryMs, this.owner.toolNames);
  }

  async #tick(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#beat();
      // Strays (jobs held by a worker with no row) are judged after a generous window.
      const ids = await findDeadWorkers(this.pool, this.connection, this.owner.id, Math.max(this.owner.recoveryMs, DEFAULT_RECOVERY_MS));
      if (ids.length > 0) {
        this.owner.recovered(ids);
        await unlockWorkers(this.pool, ids);
        this.owner.nudge(ids.length);
      }
      const n = await requeueOrphans(this.pool, this.connection);
      if (n > 0) this.owner.nudge(n);
      if (this.#listener === undefined) await this.#listen();
    } catch {
      // The database is away: the next beat tries again.
    }
  }

  /** Listen for stopped runs. Reconnects from the heartbeat. */
  async #listen(): Promise<void> {
    if (this.#closed) return;
    let client: PgClient;
    try {
      client = await connectClient(this.connection);
    } catch {
      return;
    }
    client.on("notification", (message) => {
      if (message.payload !== undefined) this.owner.stopped(message.payload);
    });
    client.on("error", () => {
      if (this.#listener === client) this.#listener = undefined;
      void client.end().catch(() => undefined);
    });
    try {
      await listenOn(client, stoppedChannel(this.connection));
      this.#listener = client;
    } catch {
      await client.end().catch(() => undefined);
    }
  }
}
