/**
 * A worker's `toolConcurrency`: at most N calls of a tool at once in this worker process, on top of
 * its `concurrency`. The limit is kept where jobs are taken: before each fetch graphile-worker asks
 * which job flags to skip (`forbiddenFlags`), and a tool whose calls, with every fetch still under
 * way counted as one more, reach its limit is skipped. So a job of a tool at its limit stays in the
 * queue, free for another worker, and this worker's free slots take other tools' steps: nothing waits
 * for it here. Counting each fetch under way against every limited tool makes the bound exact (a
 * fetch that may bring a job of the tool is counted before it brings one).
 *
 * Only a job queued without its tool's flag (by a version of plan-refs before the limits) can come past
 * a tool at its limit; it waits in a gate, in the order its job was taken, before its step is claimed
 * (so its step is never marked running while it waits). Its job stays locked by this worker, whose
 * heartbeat owns it: if the worker dies, recovery releases the job; if it stops, the job is released
 * at once.
 */

/** A job this worker has taken, counted against its tool's limit. */
interface Held {
  readonly tool: string;
  admitted: boolean;
  /** Lets a waiting job in (`true`), or sends it back (`false`). */
  wake?: (admitted: boolean) => void;
}

/**
 * @example
 * const limits = new WorkerToolLimits(new Map([["geocode", 2]]), (tool) => `plan_refs.step/${tool}`)
 * limits.forbidden() // [] (and one fetch is under way)
 */
export class WorkerToolLimits {
  #fetching = 0;
  #stopped = false;
  readonly #held = new Map<string, Held>();
  /** Jobs held by tool, admitted or waiting, in the order they were taken. */
  readonly #byTool = new Map<string, Held[]>();

  constructor(
    readonly limits: ReadonlyMap<string, number>,
    readonly flagOf: (tool: string) => string,
  ) {}

  /** Before a fetch: the flags of the tools it must not bring (the fetch is counted as under way). */
  forbidden(): string[] {
    const skip: string[] = [];
    for (const [tool, limit] of this.limits) if (this.#heldOf(tool).length + this.#fetching >= limit) skip.push(this.flagOf(tool));
    this.#fetching++;
    return skip;
  }

  /** A fetch ended, with the job it brought (its id and tool) or none. */
  fetched(job?: { readonly id: string; readonly tool: string | undefined }): void {
    this.#fetching = Math.max(0, this.#fetching - 1);
    if (job?.tool !== undefined) this.#hold(job.id, job.tool);
  }

  /**
   * The job's turn to call its tool: at once while its tool is under its limit, else once a call of
   * the tool ends. `false`: sent back while it waited (the worker stops), and its place given up.
   */
  async enter(jobId: string, tool: string | undefined): Promise<boolean> {
    if (tool === undefined || !this.limits.has(tool)) return true;
    const held = this.#held.get(jobId) ?? this.#hold(jobId, tool);
    if (held.admitted) return true;
    this.#admit(tool);
    if (held.admitted) return true;
    if (this.#stopped) {
      this.leave(jobId);
      return false;
    }
    return new Promise<boolean>((resolve) => {
      held.wake = resolve;
    });
  }

  /** The job's call ended (or it never came): its place goes to the next job of its tool. */
  leave(jobId: string): void {
    const held = this.#held.get(jobId);
    if (held === undefined) return;
    this.#drop(jobId, held);
    this.#admit(held.tool);
  }

  /** Send back every job that waits, and any that would wait from now on (the worker stops). */
  sendBack(): void {
    this.#stopped = true;
    const waiting = [...this.#held].filter(([, held]) => !held.admitted);
    for (const [jobId, held] of waiting) this.#drop(jobId, held);
    for (const [, held] of waiting) held.wake?.(false);
  }

  #heldOf(tool: string): Held[] {
    let list = this.#byTool.get(tool);
    if (list === undefined) this.#byTool.set(tool, (list = []));
    return list;
  }

  #drop(jobId: string, held: Held): void {
    this.#held.delete(jobId);
    const list = this.#heldOf(held.tool);
    list.splice(list.indexOf(held), 1);
  }

  #hold(jobId: string, tool: string): Held {
    const held: Held = { tool, admitted: false };
    if (!this.limits.has(tool)) return held;
    this.#held.set(jobId, held);
    this.#heldOf(tool).push(held);
    return held;
  }

  /** Let in the first waiting jobs of the tool while it is under its limit. */
  #admit(tool: string): void {
    const limit = this.limits.get(tool) ?? Infinity;
    const list = this.#heldOf(tool);
    let admitted = list.filter((held) => held.admitted).length;
    for (const held of list) {
      if (admitted >= limit) return;
      if (held.admitted) continue;
      held.admitted = true;
      admitted++;
      held.wake?.(true);
    }
  }
}
