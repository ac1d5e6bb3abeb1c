/**
 * The tracing of a step's try on a PostgreSQL worker (README, "Tracing"): the try's span has the
 * attributes of `runPlan`'s (src/step/tracing.ts writes both), and the worker's database operations,
 * its claim and its settle, are child spans with `db.system.name`.
 */
import { describeThrown } from "../shared/errors.js";
import { ownData } from "../shared/own-data.js";
import {
  describeTry,
  guarded,
  otelApi,
  SPAN_KIND_INTERNAL,
  STATUS_ERROR,
  stepAttributes,
  traceText,
  withRemoteParent,
  type OtelApi,
  type TraceAttribute,
  type TraceCarrier,
  type TracedFailure,
  type Tracer,
  type TraceSpan,
} from "../step/tracing.js";

/** `SpanKind.CLIENT` (fixed by the specification): a worker's call to the database. */
const SPAN_KIND_CLIENT = 2;

/** Now, as span times are given: milliseconds since the epoch, with a fraction. */
function now(): number {
  return performance.timeOrigin + performance.now();
}

/** The most failed tries of one operation kept as events (an outage of any length is retried every 2 s at most). */
const MAX_TRY_EVENTS = 32;

/**
 * The tries of one database operation of a worker's step (its claim, its settle): when it started,
 * each failed try (the database was away, and it was tried again), when it ended. Kept as plain
 * times, so that the operation's span can be written after the fact: the claim's span is a child of
 * the step's span, which cannot start before the claim has read the run's trace context.
 *
 * @example
 * const claim = new TracedTries(); // …each failed try: claim.failed(error); the last one: claim.done()
 */
export class TracedTries {
  readonly start = now();
  end: number | undefined = undefined;
  /** Every try that failed (`failures` keeps the first `MAX_TRY_EVENTS`). */
  failedTries = 0;
  readonly failures: { readonly time: number; readonly type: string; readonly message: string }[] = [];

  failed(error: unknown): void {
    this.failedTries++;
    if (this.failures.length < MAX_TRY_EVENTS)
      this.failures.push({ time: now(), type: errorType(error), message: traceText(describeThrown(error)) });
  }

  done(): void {
    this.end ??= now();
  }
}

/** A thrown value's class, for `error.type`: its own string `code` (a `CodedError`'s, a system error's), else its name. */
function errorType(error: unknown): string {
  try {
    const code = ownData(error, "code");
    if (typeof code === "string" && code !== "") return traceText(code);
    const name = error instanceof Error ? error.name : "";
    return typeof name === "string" && name !== "" ? traceText(name) : typeof error;
  } catch {
    return typeof error;
  }
}

/** What became of a worker's settle: the outcome stored, or not (`lost`: another attempt holds the step; `moot`: the step or its run was settled otherwise), or the settle threw. */
export type SettleResult = "stored" | "lost" | "moot" | { readonly thrown: unknown };

/**
 * The tracing of one try of a stored run's step on a PostgreSQL worker: the try's span
 * (`execute_tool <tool>`, the same attributes as runPlan's) is a child of the context the submitter
 * stored, so one trace spans the submitting process and every worker. It covers the worker's whole
 * try: it starts when the claim started (its `plan_refs.claim` child span is written once the claim
 * has read the run's trace context and the attempt number), is the active context while the tool
 * runs, and ends after the settle (its `plan_refs.settle` child span). A database operation that was
 * retried through an outage is one span, with an `exception` event per failed try; a settle that did
 * not store the outcome has error status.
 */
export class StepTrace {
  readonly #api: OtelApi;
  readonly #tracer: Tracer;
  readonly #span: TraceSpan;
  /** The step span's context: the tool's and the operations' parent. */
  readonly #context: unknown;
  readonly #attributes: Record<string, TraceAttribute>;
  #described = false;

  constructor(api: OtelApi, tracer: Tracer, parent: unknown, step: StoredStep, claim: TracedTries) {
    this.#api = api;
    this.#tracer = tracer;
    this.#span = tracer.startSpan(
      `execute_tool ${traceText(step.tool)}`,
      { kind: SPAN_KIND_INTERNAL, attributes: stepAttributes(step.runId, step), startTime: claim.start },
      parent,
    );
    this.#context = api.trace.setSpan(parent, this.#span);
    this.#attributes = { "plan_refs.run.id": step.runId, "plan_refs.step.id": step.id, "plan_refs.step.attempt": step.attempt };
    this.#operation("plan_refs.claim", claim, undefined);
  }

  /** Run `body` with the step's span as the active context (the tool runs inside). */
  within<A extends unknown[]>(body: (...args: A) => void, ...args: A): void {
    this.#api.context.with(this.#context, body, undefined, ...args);
  }

  /** How the try ended (the first call counts): error status and `error.type` on failure. */
  ended(failure: TracedFailure | undefined): void {
    if (this.#described) return;
    this.#described = true;
    describeTry(this.#span, undefined, failure, false);
  }

  /** The settle's tries as a child span (none: the step was released unsettled), then the end of the step's span. */
  settled(settle: TracedTries | undefined, result: SettleResult): void {
    if (settle !== undefined) {
      settle.done();
      const failure =
        typeof result === "object"
          ? { code: errorType(result.thrown), detail: describeThrown(result.thrown) }
          : result === "lost"
            ? { code: "step-lost", detail: "another attempt holds the step: this outcome was not stored" }
            : undefined;
      this.#operation("plan_refs.settle", settle, failure, typeof result === "string" ? result : undefined);
    }
    guarded(() => this.#span.end(settle?.end));
  }

  /** A database operation's span, written from its recorded tries. */
  #operation(name: string, tries: TracedTries, failure: TracedFailure | undefined, result?: string): void {
    guarded(() => {
      const span = this.#tracer.startSpan(
        name,
        {
          kind: SPAN_KIND_CLIENT,
          attributes: { ...this.#attributes, "db.system.name": "postgresql", "plan_refs.tries": tries.failedTries + 1 },
          startTime: tries.start,
        },
        this.#context,
      );
      guarded(() => {
        for (const failed of tries.failures)
          span.addEvent("exception", { "exception.type": failed.type, "exception.message": failed.message }, failed.time);
        if (result !== undefined) span.setAttribute("plan_refs.settle.result", result);
        if (failure !== undefined) {
          span.setAttribute("error.type", failure.code);
          span.setStatus({ code: STATUS_ERROR, message: traceText(failure.detail) });
        }
      });
      span.end(tries.end);
    });
  }
}

/** A claimed step as its tracing reads it. */
export interface StoredStep {
  readonly runId: string;
  readonly id: number;
  readonly tool: string;
  readonly attempt: number;
}

/**
 * The tracing of a claimed step's try on a PostgreSQL worker, a child of the context the submitter
 * stored (`carrier`, its W3C fields), starting when the claim did (`claim`, ended here). `undefined`
 * when nothing was stored or the API is missing. Never throws.
 *
 * @example
 * const trace = storedStepTrace(known.options.trace, { runId, id: 3, tool: "geocode", attempt: 1 }, claim)
 */
export function storedStepTrace(carrier: TraceCarrier | undefined, step: StoredStep, claim: TracedTries): StepTrace | undefined {
  const found = carrier === undefined ? null : otelApi();
  if (found === null) return undefined;
  claim.done();
  return withRemoteParent(carrier, () => {
    try {
      const { api, version } = found;
      const parent = api.context.active();
      const spanContext = api.trace.getSpanContext(parent);
      if (spanContext === undefined || !api.trace.isSpanContextValid(spanContext)) return undefined;
      return new StepTrace(api, api.trace.getTracer("plan-refs", version), parent, step, claim);
    } catch {
      return undefined;
    }
  });
}
