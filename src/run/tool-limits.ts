/**
 * Calls at once by tool within one run (`toolConcurrency`), on top of the run's `concurrency`: a step
 * whose tool is at its limit waits here, holding no concurrency slot, so that steps of other tools go
 * on. The steps waiting for one tool go in plan order, each when a call of its tool ends.
 */
import type { StepRecord } from "./step-record.js";

/** One limited tool: its calls running, and the steps waiting for it, by slot (those before `head` have gone). */
interface ToolQueue {
  readonly limit: number;
  running: number;
  readonly waiting: StepRecord[];
  head: number;
}

/**
 * The limited tools of a run.
 *
 * @example
 * const limits = new ToolLimits(new Map([["geocode", 2]]));
 * limits.admit(record) // false when two geocode calls run: the step waits, and `next()` gives it once one ends
 */
export class ToolLimits {
  readonly #tools = new Map<string, ToolQueue>();
  /** Steps let through as a call of their tool ended, in that order: their calls are counted, they are to begin. */
  readonly #released: StepRecord[] = [];
  #releasedHead = 0;

  constructor(limits: ReadonlyMap<string, number>) {
    for (const [tool, limit] of limits) this.#tools.set(tool, { limit, running: 0, waiting: [], head: 0 });
  }

  /** Whether a step's call may begin now (it is counted), else it waits for a call of its tool to end. */
  admit(record: StepRecord): boolean {
    const queue = this.#tools.get(record.tool);
    if (queue === undefined) return true;
    if (queue.running < queue.limit && queue.head === queue.waiting.length) {
      queue.running++;
      return true;
    }
    insertBySlot(queue, record);
    return false;
  }

  /** A call of the step's tool ended: the first step waiting for that tool is released. */
  ended(record: StepRecord): void {
    const queue = this.#tools.get(record.tool);
    if (queue === undefined) return;
    if (queue.head === queue.waiting.length) {
      queue.running--;
      return;
    }
    this.#released.push(queue.waiting[queue.head++]!); // the call that ended is its call: the count stays
    if (queue.head === queue.waiting.length) queue.waiting.length = queue.head = 0;
  }

  /** The next released step, or `undefined`. */
  next(): StepRecord | undefined {
    if (this.#releasedHead === this.#released.length) return undefined;
    const record = this.#released[this.#releasedHead++]!;
    if (this.#releasedHead === this.#released.length) this.#released.length = this.#releasedHead = 0;
    return record;
  }

  /** Whether released steps are still to begin. */
  get releasing(): boolean {
    return this.#releasedHead < this.#released.length;
  }
}

/** Add a step to its tool's waiting steps, in plan order (usually at the end: steps become ready roughly in plan order). */
function insertBySlot(queue: ToolQueue, record: StepRecord): void {
  const waiting = queue.waiting;
  let low = queue.head;
  let high = waiting.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (waiting[middle]!.slot < record.slot) low = middle + 1;
    else high = middle;
  }
  if (low === waiting.length) waiting.push(record);
  else waiting.splice(low, 0, record);
}
