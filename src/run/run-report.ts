/**
 * `runPlan`'s report: what a run gives back (results, errors, skipped steps, diagnostics, timings) and
 * the step times it is made from, kept by slot in one typed array while the run goes (a number there
 * costs no allocation; a timing object is made per step only when the report is made).
 */
import type { Diagnostic } from "../shared/diagnostic.js";
import type { RunStatus } from "./schedule.js";
import type { StepError } from "./step-error.js";

/** When one step ran. */
export interface StepTiming {
  readonly startMs: number;
  readonly endMs: number;
  readonly durationMs: number;
}

/** The outcome of a run. Nothing produced is ever dropped. */
export interface RunReport {
  /** The run's id (the `runId` option, else a random UUID): the first half of every idempotency key. */
  readonly runId: string;
  /**
   * `ok`: every step succeeded; `failed`: a step failed; `aborted`: the signal fired; `invalid`: lint
   * errors, nothing ran; `suspended`: steps wait for approval (`pending`) and nothing else could run.
   */
  readonly status: RunStatus;
  /**
   * SHA-256 (hex) of the canonical JSON of the plan as linted (its steps and its own options): what
   * `resumePlan` checks a plan against. Set by `runPlan`; a streamed plan's covers the steps that arrived.
   */
  readonly planHash?: string;
  readonly results: Map<number, unknown>;
  readonly errors: Map<number, StepError>;
  /** Steps never run because a step they depend on failed or was skipped, or because the run stopped first. */
  readonly skipped: number[];
  /** Lint diagnostics (all of them when the status is `invalid`), and problems of a streamed plan. */
  readonly diagnostics: Diagnostic[];
  /** Every step that started has its timing, also one aborted or timed out while it ran. */
  readonly timings: { readonly totalMs: number; readonly steps: Map<number, StepTiming> };
  /**
   * How many times each step's tool was tried (1 without retries); a step that never started has no
   * entry. Set by `runPlan`, and by `getRun` from the tries the workers counted.
   */
  readonly attempts?: Map<number, number>;
  /** The plan's `output`, resolved when the run ended, when the plan has one and it could be resolved. */
  readonly output?: unknown;
  /**
   * Why the plan's `output` could not be resolved (code `unresolved-output`: a step it refers to failed,
   * was skipped or never ran, or a key is missing). No step fails because of it; the status is the steps'.
   */
  readonly outputError?: StepError;
  /** Steps waiting for approval, each with its tool and resolved arguments: what a person has to approve. */
  readonly pending?: Map<number, PendingStep>;
  /** Steps whose result was taken from the previous report by `resumePlan` (their tools were not called). */
  readonly reused?: number[];
}

/** A step waiting for approval: its tool was not called. */
export interface PendingStep {
  readonly tool: string;
  /** Its arguments, resolved: what the tool would be called with. */
  readonly args: Record<string, unknown>;
}

/** Start and end of each step by its slot (2 × slot, 2 × slot + 1), in ms since scheduling began; NaN until set. */
export class StepTimes {
  #times = new Float64Array(0);

  /** Room for the times of at least `slots` steps. */
  reserve(slots: number): void {
    if (2 * slots <= this.#times.length) return;
    const times = new Float64Array(Math.max(2 * slots, 2 * this.#times.length, 16)).fill(Number.NaN);
    times.set(this.#times);
    this.#times = times;
  }

  start(slot: number, ms: number): void {
    this.#times[2 * slot] = ms;
  }

  end(slot: number, ms: number): void {
    this.#times[2 * slot + 1] = ms;
  }

  startOf(slot: number): number {
    return this.#times[2 * slot]!;
  }

  /** The timing of every step that started (and so ended: by settling, or when the run stopped), in the order given. */
  timings(steps: readonly { readonly id: number; readonly slot: number }[]): Map<number, StepTiming> {
    const timings = new Map<number, StepTiming>();
    const times = this.#times;
    for (const step of steps) {
      const startMs = times[2 * step.slot]!;
      const endMs = times[2 * step.slot + 1]!;
      if (!Number.isNaN(endMs)) timings.set(step.id, { startMs, endMs, durationMs: endMs - startMs });
    }
    return timings;
  }
}
