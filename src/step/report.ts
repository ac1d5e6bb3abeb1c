/**
 * What a run gives back, the same from both executors: `runPlan`'s report and `getRun`'s (a stored
 * run's, read back from PostgreSQL) have this one shape.
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
   * `resumePlan` checks a plan against. Set by `runPlan` (a getter: made when first read); a streamed
   * plan's covers the steps that arrived.
   */
  readonly planHash?: string;
  readonly results: Map<number, unknown>;
  readonly errors: Map<number, StepError>;
  /** Steps never run because a step they depend on failed or was skipped, or because the run stopped first. */
  readonly skipped: number[];
  /** Lint diagnostics (all of them when the status is `invalid`), and problems of a streamed plan. */
  readonly diagnostics: Diagnostic[];
  /** Every step that started has its timing, also one aborted or timed out while it ran (`runPlan`'s `steps`: a getter, made when first read). */
  readonly timings: { readonly totalMs: number; readonly steps: Map<number, StepTiming> };
  /**
   * How many times each step's tool was tried (1 without retries); a step that never started has no
   * entry. Set by `runPlan` (a getter, made when first read), and by `getRun` from the tries the workers counted.
   */
  readonly attempts?: Map<number, number>;
  /**
   * Each try of a step tried more than once, in order (the waits between them are the gaps): the last
   * try ends when the step's timing does. Set by `runPlan` for the steps it retried.
   */
  readonly attemptTimes?: Map<number, readonly StepTiming[]>;
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
