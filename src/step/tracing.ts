/**
 * Tracing a run with OpenTelemetry, through the API only (`@opentelemetry/api`, an optional peer
 * dependency): plan-refs never loads an SDK and registers nothing global. A run is one span (the GenAI
 * conventions' workflow span, `invoke_workflow`) and each try of a step one span under it
 * (`execute_tool <tool>`), the active context while the tool runs, so a tool's own spans nest under
 * its step.
 *
 * Why the API is loaded this way: this layer imports nothing from Node (it also runs in browsers), and
 * a static import of an optional package would fail to load for every user who lacks it. The API is
 * looked up once, synchronously, the first time a run asks (`createRequire` reached through
 * `process.getBuiltinModule`, guarded), so the first run is traced like every other, and where it
 * is missing (or there is no Node) nothing is traced and nothing is said. The API keeps its state
 * (tracer provider, context manager) in one global of its own, so the copy found here and the
 * caller's share it whichever module format each loaded.
 *
 * What a run costs untraced: with no SDK registered the API's tracer makes spans that record nothing
 * and carry no trace; the run span is such a span, and then the run drops tracing, and each step
 * costs one branch (`record.span === undefined`).
 */
import { isPlainArray, isPlainObject, ownData, ownDataEntries } from "../shared/own-data.js";
import { cutText } from "../shared/text.js";
import { idempotencyKey } from "./attempt.js";

/** An attribute value as spans take it. */
export type TraceAttribute = string | number | boolean;

/** What plan-refs reads of a span context (the API's `SpanContext` fits). */
export interface TraceSpanContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly traceState?: { serialize(): string };
}

/** What plan-refs does with a span (the API's `Span` fits). */
export interface TraceSpan {
  spanContext(): TraceSpanContext;
  setAttribute(key: string, value: TraceAttribute): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  addEvent(name: string, attributes?: Readonly<Record<string, TraceAttribute>>, time?: number): unknown;
  /** `endTime`: milliseconds since the epoch (default: now). */
  end(endTime?: number): void;
}

/**
 * A tracer, described by shape so that plan-refs' types name nothing of `@opentelemetry/api` (a
 * project compiles against plan-refs whether or not the API is installed); the API's `Tracer` fits.
 *
 * @example
 * import { trace } from "@opentelemetry/api";
 * const tracer: Tracer = trace.getTracer("my-service"); // await runPlan(plan, tools, { tracer })
 */
export interface Tracer {
  /** `startTime`: milliseconds since the epoch (default: now). */
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: Readonly<Record<string, TraceAttribute>>; startTime?: number; links?: { context: SpanRef }[] },
    context?: unknown,
  ): TraceSpan;
}

/** Where a span is, and nothing of what it recorded: what a plan session keeps of a step's span, to link to it. */
export interface SpanRef {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
}

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;

/**
 * A span reference read from saved data (own data only), or `undefined` when it is not one (ids of
 * the W3C form, flags a byte).
 *
 * @example
 * readSpanRef({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 }) // the same, as a SpanRef
 */
export function readSpanRef(value: unknown): SpanRef | undefined {
  if (!isPlainObject(value)) return undefined;
  const traceId = ownData(value, "traceId");
  const spanId = ownData(value, "spanId");
  const traceFlags = ownData(value, "traceFlags");
  if (typeof traceId !== "string" || !TRACE_ID.test(traceId) || typeof spanId !== "string" || !SPAN_ID.test(spanId)) return undefined;
  if (typeof traceFlags !== "number" || !Number.isInteger(traceFlags) || traceFlags < 0 || traceFlags > 0xff) return undefined;
  return { traceId, spanId, traceFlags };
}

/** The parts of `@opentelemetry/api` plan-refs uses. */
export interface OtelApi {
  readonly trace: {
    getTracer(name: string, version?: string): Tracer;
    setSpan(context: unknown, span: TraceSpan): unknown;
    getSpanContext(context: unknown): TraceSpanContext | undefined;
    setSpanContext(context: unknown, spanContext: TraceSpanContext & { isRemote?: boolean }): unknown;
    isSpanContextValid(spanContext: TraceSpanContext): boolean;
  };
  readonly context: {
    active(): unknown;
    with<A extends unknown[], R>(context: unknown, fn: (...args: A) => R, thisArg?: unknown, ...args: A): R;
  };
  readonly ROOT_CONTEXT: unknown;
  readonly createTraceState?: (raw?: string) => { serialize(): string };
}

/** The API's values of `SpanKind.INTERNAL` and `SpanStatusCode.ERROR` (fixed by the specification). */
export const SPAN_KIND_INTERNAL = 0;
export const STATUS_ERROR = 2;

/**
 * The longest content attribute (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) with
 * `recordContent`: the JSON text is cut after this many characters, and `…` marks the cut.
 *
 * @example
 * await runPlan(plan, tools, { recordContent: true }) // each argument and result at most MAX_CONTENT_LENGTH characters
 */
export const MAX_CONTENT_LENGTH = 4096;

/**
 * Text a plan, a tool or the database chooses (a tool name, a failure's message), as a span's name,
 * attribute, status or event takes it: cut (`cutText`) at `MAX_CONTENT_LENGTH`, as content is, so that
 * a planner cannot fill a span with a 200,000-character tool name.
 *
 * @example
 * traceText("x".repeat(5000)).length // 4096, ending in "…"
 */
export function traceText(text: string): string {
  return cutText(text, MAX_CONTENT_LENGTH, "…");
}

/** How deep the content writer goes into nested values (deeper ones are written as `"…"`). */
const MAX_CONTENT_DEPTH = 32;

type Loaded = { readonly api: OtelApi; readonly version: string } | null;
let loaded: Loaded | undefined;

/**
 * `@opentelemetry/api` with plan-refs' version, or `null` when it cannot be had (not installed, no
 * Node, a copy that does not look like the API). Looked up once per process; never throws.
 */
export function otelApi(): Loaded {
  if (loaded !== undefined) return loaded;
  loaded = null;
  try {
    const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const module = process?.getBuiltinModule?.("node:module") as { createRequire?: (from: string) => (id: string) => unknown } | undefined;
    const require = module?.createRequire?.(import.meta.url);
    if (require === undefined) return loaded;
    const api = require("@opentelemetry/api") as Partial<OtelApi> | undefined;
    if (typeof api?.trace?.getTracer !== "function" || typeof api.context?.with !== "function") return loaded;
    loaded = { api: api as OtelApi, version: manifestVersion(require) };
  } catch {
    // Not installed (or unreadable): nothing is traced.
  }
  return loaded;
}

/** plan-refs' version from its package.json, two folders up in src/run as in dist/run (else "unknown": a copy of the code elsewhere). */
function manifestVersion(require: (id: string) => unknown): string {
  try {
    const version = (require("../../package.json") as { version?: unknown }).version;
    return typeof version === "string" ? version : "unknown";
  } catch {
    return "unknown";
  }
}

/** What a run reads of its tracing options. */
export interface TraceSettings {
  /** The caller's tracer; `false`: no tracing; `undefined`: the API's global tracer, if the API is installed. */
  readonly tracer: Tracer | false | undefined;
  readonly recordContent: boolean;
}

/** A step's try as tracing sees it. */
export interface TracedStep {
  readonly id: number;
  readonly tool: string;
  readonly attempt?: number;
  /** The steps whose results it reads (those of earlier plans of the session become links). */
  readonly dependencies?: readonly number[];
  span: TraceSpan | undefined;
}

/** A step failure's code and detail (and the detail with the values it quotes reduced to their shapes, when it quotes any). */
export interface TracedFailure {
  readonly code: string;
  readonly detail: string;
  readonly detailWithoutValues?: string;
}

/**
 * The tracing of one run: its span, and the spans of its steps' tries. Made by `startRunTrace` only
 * when the run span records or carries a trace; every method is called on that path only.
 */
export class RunTrace {
  readonly #api: OtelApi;
  readonly #tracer: Tracer;
  readonly #span: TraceSpan;
  /** The run span's context: the parent of every step span. */
  readonly #context: unknown;
  readonly #runId: string;
  readonly recordContent: boolean;
  #ended = false;
  /** The runs that still use this run span (`share`): the last one's `end` ends it. */
  #holders = 1;
  /** In a session: the spans of the earlier plans' steps, linked from the steps that read their results. */
  earlierSpans: ReadonlyMap<number, SpanRef> | undefined = undefined;
  /** Where each step's last try span is, for the session to keep. */
  readonly stepSpans = new Map<number, SpanRef>();

  constructor(api: OtelApi, tracer: Tracer, span: TraceSpan, parent: unknown, runId: string, recordContent: boolean) {
    this.#api = api;
    this.#tracer = tracer;
    this.#span = span;
    this.#context = api.trace.setSpan(parent, span);
    this.#runId = runId;
    this.recordContent = recordContent;
  }

  /** Start a span for the step's try and run `body` with it as the active context (the tool runs inside). */
  within<A extends unknown[]>(step: TracedStep, body: (...args: A) => void, ...args: A): void {
    let active: unknown;
    try {
      const links = this.earlierSpans === undefined ? undefined : earlierLinks(step.dependencies, this.earlierSpans);
      const span = this.#tracer.startSpan(
        `execute_tool ${traceText(step.tool)}`,
        { kind: SPAN_KIND_INTERNAL, attributes: stepAttributes(this.#runId, step), ...(links === undefined ? {} : { links }) },
        this.#context,
      );
      active = this.#api.trace.setSpan(this.#context, span);
      step.span = span;
    } catch {
      return body(...args); // a tracer that fails: this try runs untraced
    }
    this.#api.context.with(active, body, undefined, ...args);
  }

  /** The step's resolved arguments, recorded with `recordContent` only. */
  arguments(step: TracedStep, args: unknown): void {
    if (this.recordContent) guarded(() => step.span?.setAttribute("gen_ai.tool.call.arguments", contentJson(args)));
  }

  /** End the step's try: error status and `error.type` (the `StepError` code) on failure, the result with `recordContent`. */
  endStep(step: TracedStep, value: unknown, failure: TracedFailure | undefined): void {
    const span = step.span;
    if (span === undefined) return;
    step.span = undefined;
    guarded(() => {
      const { traceId, spanId, traceFlags } = span.spanContext();
      this.stepSpans.set(step.id, { traceId, spanId, traceFlags });
    });
    describeTry(span, value, failure, this.recordContent);
    guarded(() => span.end());
  }

  /** A step that never ran (skipped, or failed before its tool could be called): an event on the run span, not a span. */
  event(
    name: "plan_refs.step.skipped" | "plan_refs.step.failed",
    step: { readonly id: number; readonly tool: string },
    detail: Readonly<Record<string, TraceAttribute>>,
  ): void {
    if (!this.#ended)
      guarded(() => this.#span.addEvent(name, { "plan_refs.step.id": step.id, "gen_ai.tool.name": traceText(step.tool), ...detail }));
  }

  /**
   * One more run puts its steps under this run span: a plan call whose first steps started while its
   * input was streamed is one run to whoever reads the trace, though an early run and the whole run
   * execute it. Each holder calls `end`; only the last one's status is the run's.
   */
  share(): this {
    this.#holders++;
    return this;
  }

  /**
   * Run `body` with the run span as the active context: what it starts, or submits with the active
   * context (a plan submitted to PostgreSQL stores it), is under the run span.
   */
  active<R>(body: () => R): R {
    let ran = false;
    try {
      return this.#api.context.with(this.#context, () => {
        ran = true;
        return body();
      });
    } catch (error) {
      if (ran) throw error; // the body's own error
      return body(); // a context manager that fails: the body runs outside the run span
    }
  }

  /** End the run span of a run that goes on elsewhere (submitted, not waited for): its status `running`, not an error. */
  endDetached(steps: number): void {
    if (this.#ended) return;
    this.#ended = true;
    const span = this.#span;
    guarded(() => {
      span.setAttribute("plan_refs.run.status", "running");
      span.setAttribute("plan_refs.run.step_count", steps);
    });
    guarded(() => span.end());
  }

  /** End the run span with the run's status and step count; any status but `ok` is an error (`error.type` = the status, or the code of what runPlan threw). */
  end(status: string, steps: number, message?: string): void {
    if (this.#ended || --this.#holders > 0) return;
    this.#ended = true;
    const span = this.#span;
    guarded(() => {
      span.setAttribute("plan_refs.run.status", status);
      span.setAttribute("plan_refs.run.step_count", steps);
      if (status !== "ok") {
        span.setAttribute("error.type", status);
        span.setStatus(message === undefined ? { code: STATUS_ERROR } : { code: STATUS_ERROR, message: traceText(message) });
      }
    });
    guarded(() => span.end());
  }
}

/** A link to the span of each earlier plan's step a step reads (`undefined`: none). */
function earlierLinks(
  dependencies: readonly number[] | undefined,
  earlier: ReadonlyMap<number, SpanRef>,
): { context: SpanRef }[] | undefined {
  let links: { context: SpanRef }[] | undefined;
  for (const id of dependencies ?? []) {
    const ref = earlier.get(id);
    if (ref !== undefined) (links ??= []).push({ context: { traceId: ref.traceId, spanId: ref.spanId, traceFlags: ref.traceFlags } });
  }
  return links;
}

/**
 * The attributes a step's try span starts with (the same in runPlan and on a worker).
 *
 * @example
 * stepAttributes("run-1", { id: 3, tool: "geocode", attempt: 2 })["gen_ai.tool.call.id"] // "run-1:3"
 */
export function stepAttributes(
  runId: string,
  step: { readonly id: number; readonly tool: string; readonly attempt?: number },
): Record<string, TraceAttribute> {
  return {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": traceText(step.tool),
    "gen_ai.tool.call.id": idempotencyKey(runId, step.id),
    "gen_ai.tool.type": "function",
    "plan_refs.step.id": step.id,
    "plan_refs.step.attempt": step.attempt ?? 1,
  };
}

/**
 * How a step's try ended, on its span: error status and `error.type` on failure, the result with `recordContent`.
 *
 * @example
 * describeTry(span, undefined, { code: "timeout", detail: "timed out after 50 ms" }, false) // error status, error.type "timeout"
 */
export function describeTry(span: TraceSpan, value: unknown, failure: TracedFailure | undefined, recordContent: boolean): void {
  guarded(() => {
    if (failure !== undefined) {
      span.setAttribute("error.type", failure.code);
      // Without recordContent no argument or result value reaches a span: a message quoting one gives its shape.
      span.setStatus({
        code: STATUS_ERROR,
        message: traceText(recordContent ? failure.detail : (failure.detailWithoutValues ?? failure.detail)),
      });
    }
    if (recordContent && (failure === undefined || value !== undefined)) span.setAttribute("gen_ai.tool.call.result", contentJson(value));
  });
}

/**
 * A call into the tracer's spans: what a broken tracer throws never reaches the run.
 *
 * @example
 * guarded(() => span.end())
 */
export function guarded(call: () => unknown): void {
  try {
    call();
  } catch {
    // The span is the tracer's; the run goes on without it.
  }
}

/**
 * Start a run's tracing, or `undefined` when the run is not traced: `tracer: false`, the API missing,
 * or a run span that neither records nor carries a trace (no SDK registered). The parent is the
 * caller's active context. Never throws: a tracer that fails leaves the run untraced.
 *
 * @example
 * const trace = startRunTrace({ tracer: undefined, recordContent: false }, "run-1") // undefined without an SDK
 */
export function startRunTrace(settings: TraceSettings, runId: string): RunTrace | undefined {
  if (settings.tracer === false) return undefined;
  const found = otelApi();
  if (found === null) return undefined;
  try {
    const { api, version } = found;
    const tracer = settings.tracer ?? api.trace.getTracer("plan-refs", version);
    const parent = api.context.active();
    const span = tracer.startSpan(
      "invoke_workflow",
      { kind: SPAN_KIND_INTERNAL, attributes: { "gen_ai.operation.name": "invoke_workflow", "plan_refs.run.id": runId } },
      parent,
    );
    if (!api.trace.isSpanContextValid(span.spanContext())) {
      span.end();
      return undefined;
    }
    return new RunTrace(api, tracer, span, parent, runId, settings.recordContent);
  } catch {
    return undefined;
  }
}

/** W3C trace context fields (`traceparent`, and `tracestate` when there is one); a type, so it fits a `Record`. */
export type TraceCarrier = {
  traceparent?: string;
  tracestate?: string;
};

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-|$)/;
/** The longest `tracestate` carried (W3C: at most 32 members of at most 256 characters each). */
const MAX_TRACESTATE = 8192;

/**
 * The active span's context as W3C trace context fields (written here, so that they are there whatever
 * propagator the application registered), or `undefined` with no API or no valid active span.
 *
 * @example
 * activeTraceCarrier() // { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" } inside a step span
 */
export function activeTraceCarrier(): TraceCarrier | undefined {
  const found = otelApi();
  if (found === null) return undefined;
  try {
    const spanContext = found.api.trace.getSpanContext(found.api.context.active());
    if (spanContext === undefined || !found.api.trace.isSpanContextValid(spanContext)) return undefined;
    const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, "0");
    const carrier: TraceCarrier = { traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}` };
    const state = spanContext.traceState?.serialize();
    if (typeof state === "string" && state !== "") carrier.tracestate = state;
    return carrier;
  } catch {
    return undefined;
  }
}

/**
 * Run `body` in the context of a remote parent given as W3C fields (`traceparent`, `tracestate`), so
 * that the spans it starts continue that trace; fields that do not parse (or no API) run it as it is.
 *
 * @example
 * withRemoteParent({ traceparent: meta.traceparent }, () => runPlan(plan, tools))
 */
export function withRemoteParent<R>(carrier: Readonly<Record<string, unknown>> | undefined, body: () => R): R {
  const found = otelApi();
  let traceparent: unknown;
  let tracestate: unknown;
  try {
    // Fields from the wire: own data properties only.
    traceparent = ownData(carrier, "traceparent");
    tracestate = ownData(carrier, "tracestate");
  } catch {
    return body();
  }
  const parent = typeof traceparent === "string" ? TRACEPARENT.exec(traceparent) : null;
  if (found === null || parent === null || parent[1] === "ff") return body();
  let context: unknown;
  try {
    const { api } = found;
    const state =
      typeof tracestate === "string" && tracestate.length <= MAX_TRACESTATE && api.createTraceState !== undefined
        ? api.createTraceState(tracestate)
        : undefined;
    const spanContext = {
      traceId: parent[2]!,
      spanId: parent[3]!,
      traceFlags: Number.parseInt(parent[4]!, 16),
      isRemote: true,
      ...(state === undefined ? {} : { traceState: state }),
    };
    if (!api.trace.isSpanContextValid(spanContext)) return body();
    context = api.trace.setSpanContext(api.context.active(), spanContext);
  } catch {
    return body();
  }
  return found.api.context.with(context, body);
}

/**
 * A value as JSON text for a content attribute, at most `MAX_CONTENT_LENGTH` characters (then cut,
 * ending in `…`). Written from own data properties only (getters never run, `toJSON` is not called),
 * so recording content never runs the caller's code; what JSON has no form for is written as a string
 * naming it (`"[BigInt]"`, `"[Function]"`, a class instance `"[Object]"`, a cycle `"[Cycle]"`). Never throws.
 *
 * @example
 * contentJson({ city: "Paris", at: 1n }) // '{"city":"Paris","at":"[BigInt]"}'
 */
export function contentJson(value: unknown): string {
  const out: string[] = [];
  let length = 0;
  const seen = new Set<object>();
  const push = (text: string): boolean => {
    out.push(text);
    length += text.length;
    return length <= MAX_CONTENT_LENGTH;
  };
  const write = (item: unknown, depth: number): boolean => {
    if (item === null || item === undefined) return push("null");
    if (typeof item === "string") return push(JSON.stringify(cutText(item, MAX_CONTENT_LENGTH)));
    if (typeof item === "number") return push(Number.isFinite(item) ? String(item) : "null");
    if (typeof item === "boolean") return push(String(item));
    if (typeof item === "bigint") return push('"[BigInt]"');
    if (typeof item !== "object") return push(typeof item === "function" ? '"[Function]"' : `"[${typeof item}]"`);
    if (depth >= MAX_CONTENT_DEPTH) return push('"…"');
    if (seen.has(item)) return push('"[Cycle]"');
    seen.add(item);
    try {
      if (isPlainArray(item)) {
        if (!push("[")) return false;
        for (let i = 0; i < item.length; i++) {
          const descriptor = Object.getOwnPropertyDescriptor(item, i);
          if ((i > 0 && !push(",")) || !write(descriptor !== undefined && "value" in descriptor ? descriptor.value : undefined, depth + 1))
            return false;
        }
        return push("]");
      }
      if (!isPlainObject(item)) return push('"[Object]"'); // a class instance (a Map, a Date): not plain data
      if (!push("{")) return false;
      let first = true;
      for (const [key, entry] of ownDataEntries(item)) {
        if ((!first && !push(",")) || !push(`${JSON.stringify(key)}:`) || !write(entry, depth + 1)) return false;
        first = false;
      }
      return push("}");
    } finally {
      seen.delete(item);
    }
  };
  try {
    write(value, 0);
  } catch {
    push('"[unreadable]"'); // a Proxy whose trap throws
  }
  const text = out.join("");
  return cutText(text, MAX_CONTENT_LENGTH, "…");
}
