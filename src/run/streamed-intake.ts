/**
 * `runPlan`'s intake of a streamed plan (an `AsyncIterable` of steps, as a planner produces them): each
 * step read and checked on its own as it arrives, a problem reported at its place in the stream, and a
 * stream the run stops reading (an abort, a `failFast` stop) told to finish without being waited for,
 * since a stalled planner may never answer.
 */
import { readPlan, type LocatedStep } from "../plan/plan.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { describeError } from "../step/attempt.js";
import { handled } from "./callbacks.js";
import { PlanText } from "../step/plan-hash.js";
import type { PreparedStep, RunLanguage } from "../step/prepare.js";

/** What the intake needs of the run it feeds. */
export interface StreamedRun {
  /** The run is over (stopped, or failed): nothing more is read. */
  readonly over: boolean;
  /** Problems of the stream go here. */
  readonly diagnostics: Diagnostic[];
  /** Whether a step with this id has arrived before. */
  hasStep(id: number): boolean;
  /** A step arrived, read and checked on its own, and snapshotted: schedule it. */
  accept(step: LocatedStep, prepared: PreparedStep): void;
  /** An error of plan-refs' own while accepting a step: the run ends. */
  fatal(error: unknown): void;
}

/** Whether a plan is streamed: an `AsyncIterable` (else it is a whole plan). */
export function isStream(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function"
  );
}

const STOPPED: unique symbol = Symbol("plan-refs: run stopped");

/** Reads one streamed plan into one run. */
export class StreamIntake {
  readonly #iterator: AsyncIterator<unknown>;
  /** Wakes the read waiting for the planner's next step when the run stops. */
  #interrupt: ((value: typeof STOPPED) => void) | undefined;

  /** The canonical text of the steps that arrived, taken from their snapshots (a streamed plan has no options of its own). */
  readonly text = new PlanText(undefined);

  /** Takes the plan's iterator now (what that throws rejects the run); `language` snapshots the steps. */
  constructor(
    plan: AsyncIterable<unknown>,
    readonly language: RunLanguage,
  ) {
    this.#iterator = plan[Symbol.asyncIterator]();
  }

  /** Read steps until the stream ends or the run is over; a stream left early is told to finish. */
  async read(run: StreamedRun): Promise<void> {
    const iterator = this.#iterator;
    let index = 0;
    let exhausted = false;
    try {
      while (!run.over) {
        const next = await new Promise<unknown>((resolve, reject) => {
          this.#interrupt = resolve;
          Promise.resolve(iterator.next()).then(resolve, reject);
        });
        this.#interrupt = undefined;
        if (next === STOPPED || run.over) break;
        const { done, value } = next as IteratorResult<unknown, unknown>;
        if (done === true) {
          exhausted = true;
          break;
        }
        try {
          const step = readStreamedStep(value, index++, run);
          if (step !== undefined) this.#accept(step, run);
        } catch (error) {
          run.fatal(error);
        }
      }
    } catch (error) {
      exhausted = true; // a stream that threw is over
      run.diagnostics.push({
        code: "invalid-plan",
        severity: "error",
        pointer: `/${index}`,
        message: `the plan stream failed: ${describeError(error)}`,
      });
    }
    this.#interrupt = undefined;
    // Stopped while the planner was still producing (or stalled): tell it to finish, without waiting for it.
    if (!exhausted) closeIterator(iterator);
  }

  #accept(step: LocatedStep, run: StreamedRun): void {
    const prepared = this.language.prepareStreamed(step);
    this.text.add(step);
    run.accept(step, prepared);
  }

  /** The run stopped: a read waiting for the planner's next step returns now. */
  interrupt(): void {
    this.#interrupt?.(STOPPED);
  }
}

/** A streamed step checked on its own, or `undefined` (its problems, or a second step with its id, reported). */
function readStreamedStep(raw: unknown, index: number, run: StreamedRun): LocatedStep | undefined {
  const read = readPlan([raw]);
  const step = read.steps[0];
  if (step === undefined) {
    for (const problem of read.problems) {
      run.diagnostics.push({
        code: problem.code,
        severity: "error",
        pointer: `/${index}${problem.pointer.slice(2)}`,
        message: problem.message,
        ...(problem.step === undefined ? {} : { step: problem.step }),
      });
    }
    return undefined;
  }
  if (run.hasStep(step.id)) {
    run.diagnostics.push({
      code: "duplicate-step-id",
      severity: "error",
      step: step.id,
      pointer: `/${index}/id`,
      message: `step id ${step.id} arrived twice; the second was ignored`,
    });
    return undefined;
  }
  return step;
}

/** Tell an iterator the run will not read it any further, without waiting for it (it may be stalled). Never throws. */
function closeIterator(iterator: AsyncIterator<unknown>): void {
  try {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- read once (a getter runs once), then called on the iterator
    const close = iterator.return;
    if (typeof close === "function") handled(close.call(iterator));
  } catch {
    // A planner whose return() throws: it was told.
  }
}
