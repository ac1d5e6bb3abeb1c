/**
 * The kernel's tracing helpers (src/step/tracing.ts) one by one, recorded by the real OpenTelemetry
 * SDK (an in-memory exporter, the async-hooks context manager): the API's lookup, span references read
 * from saved data, W3C trace context fields in and out, a run's span and its steps' try spans
 * (`RunTrace`: shared, ended once, ended detached, active around a submit), and the content writer.
 * runPlan's spans end to end are test/tracing/run-plan.test.ts.
 */
import { readFileSync } from "node:fs";
import {
  context,
  createTraceState,
  diag,
  DiagLogLevel,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type ContextManager,
  type DiagLogger,
  type SpanContext,
} from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { useOtelGlobals } from "../helpers/otel-globals.js";
import {
  activeTraceCarrier,
  contentJson,
  describeTry,
  guarded,
  MAX_CONTENT_LENGTH,
  otelApi,
  readSpanRef,
  RunTrace,
  startRunTrace,
  stepAttributes,
  traceText,
  withRemoteParent,
  type TracedFailure,
  type TracedStep,
  type Tracer,
} from "../../src/step/tracing.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("test");
const contextManager = useOtelGlobals();

/** What the SDK says through the API's diagnostics (an operation on an ended span, a second end). */
const said: string[] = [];
const diagnostics: DiagLogger = {
  error: (message) => void said.push(`error ${message}`),
  warn: (message) => void said.push(`warn ${message}`),
  info: () => undefined,
  debug: () => undefined,
  verbose: () => undefined,
};

beforeEach(() => {
  diag.setLogger(diagnostics, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
});
afterEach(() => {
  diag.disable();
  said.length = 0;
  exporter.reset();
});

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const spanNamed = (name: string): ReadableSpan => {
  const found = spans().filter((span) => span.name === name);
  expect(found).toHaveLength(1);
  return found[0]!;
};

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN_ID = "00f067aa0ba902b7";

/** A run's tracing with the SDK's tracer (a RunTrace, never undefined here). */
function runTrace(recordContent = false, runId = "run-1"): RunTrace {
  const started = startRunTrace({ tracer, recordContent }, runId);
  expect(started).toBeInstanceOf(RunTrace);
  return started!;
}

// First in the file: the API is looked up once per module instance, by the first test that asks.
describe("otelApi", () => {
  test("finds the installed API once, with plan-refs' version from its package.json (the global tracer's scope)", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    const found = otelApi();
    expect(found?.version).toBe(version);
    expect(otelApi()).toBe(found);
    trace.setGlobalTracerProvider(provider);
    try {
      startRunTrace({ tracer: undefined, recordContent: false }, "run-1")?.end("ok", 0);
    } finally {
      trace.disable();
    }
    expect(spanNamed("invoke_workflow").instrumentationScope).toMatchObject({ name: "plan-refs", version });
  });
});

describe("readSpanRef", () => {
  const valid = { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 };

  test.each([
    ["flags 1", valid],
    ["flags 0", { ...valid, traceFlags: 0 }],
    ["flags 255", { ...valid, traceFlags: 255 }],
  ])("reads a span reference (%s)", (_name, value) => {
    expect(readSpanRef(value)).toStrictEqual(value);
  });

  test("keeps only the three fields", () => {
    expect(readSpanRef({ ...valid, traceState: "a=1", extra: true })).toStrictEqual(valid);
  });

  test.each([
    ["undefined", undefined],
    ["null", null],
    ["a string", `${TRACE_ID}-${SPAN_ID}`],
    ["an array with the fields", Object.assign([], valid)],
    ["a class instance with the fields", Object.assign(new (class Ref {})(), valid)],
    ["inherited fields", Object.create(valid) as unknown],
    ["a traceId getter", Object.defineProperty({ spanId: SPAN_ID, traceFlags: 1 }, "traceId", { get: () => TRACE_ID, enumerable: true })],
    ["no traceId", { spanId: SPAN_ID, traceFlags: 1 }],
    ["a traceId that is a number", { ...valid, traceId: 42 }],
    ["a traceId that is an array of the id", { ...valid, traceId: [TRACE_ID] }],
    ["a traceId in capitals", { ...valid, traceId: TRACE_ID.toUpperCase() }],
    ["a traceId of 31 digits", { ...valid, traceId: TRACE_ID.slice(1) }],
    ["a traceId of 33 digits", { ...valid, traceId: `${TRACE_ID}0` }],
    ["no spanId", { traceId: TRACE_ID, traceFlags: 1 }],
    ["a spanId that is a number", { ...valid, spanId: 7 }],
    ["a spanId that is an array of the id", { ...valid, spanId: [SPAN_ID] }],
    ["a spanId of 15 digits", { ...valid, spanId: SPAN_ID.slice(1) }],
    ["a spanId with a letter past f", { ...valid, spanId: "00f067aa0ba902bg" }],
    ["no traceFlags", { traceId: TRACE_ID, spanId: SPAN_ID }],
    ["traceFlags as a string", { ...valid, traceFlags: "1" }],
    ["traceFlags 1.5", { ...valid, traceFlags: 1.5 }],
    ["traceFlags NaN", { ...valid, traceFlags: Number.NaN }],
    ["traceFlags -1", { ...valid, traceFlags: -1 }],
    ["traceFlags 256", { ...valid, traceFlags: 256 }],
  ])("is undefined for %s", (_name, value) => {
    expect(readSpanRef(value)).toBeUndefined();
  });
});

describe("activeTraceCarrier", () => {
  const carrierIn = (spanContext: SpanContext): unknown =>
    context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), () => activeTraceCarrier());

  test("is undefined with no active span", () => {
    expect(activeTraceCarrier()).toBeUndefined();
  });

  test("is undefined when the active span's context is not valid (the API's no-op span)", () => {
    expect(carrierIn(INVALID_SPAN_CONTEXT)).toBeUndefined();
    expect(carrierIn({ traceId: TRACE_ID, spanId: "0000000000000000", traceFlags: 1 })).toBeUndefined();
  });

  test.each([
    ["flags 1, no tracestate", { traceFlags: 1 }, { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` }],
    ["flags 0", { traceFlags: 0 }, { traceparent: `00-${TRACE_ID}-${SPAN_ID}-00` }],
    ["flags 0x0a, two hex digits", { traceFlags: 0x0a }, { traceparent: `00-${TRACE_ID}-${SPAN_ID}-0a` }],
    ["flags past a byte, its low byte", { traceFlags: 0x1ff }, { traceparent: `00-${TRACE_ID}-${SPAN_ID}-ff` }],
    [
      "a tracestate",
      { traceFlags: 1, traceState: createTraceState("vendor=a1,other=b2") },
      { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`, tracestate: "vendor=a1,other=b2" },
    ],
    [
      "an empty tracestate (left out)",
      { traceFlags: 1, traceState: createTraceState("") },
      { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` },
    ],
  ])("writes the active span's context: %s", (_name, fields, carrier) => {
    expect(carrierIn({ traceId: TRACE_ID, spanId: SPAN_ID, ...fields })).toStrictEqual(carrier);
  });

  test("inside an SDK span: that span's ids", () => {
    const span = tracer.startSpan("parent");
    const carrier = context.with(trace.setSpan(context.active(), span), () => activeTraceCarrier());
    span.end();
    expect(carrier).toStrictEqual({ traceparent: `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01` });
  });
});

describe("withRemoteParent", () => {
  const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;
  /** The remote parent the body sees (the span context active inside it; its tracestate serialized when it has the field). */
  const parentSeen = (carrier: Readonly<Record<string, unknown>> | undefined): unknown => {
    let runs = 0;
    const seen = withRemoteParent(carrier, () => {
      runs++;
      const found = trace.getSpanContext(context.active());
      if (found === undefined) return undefined;
      return { ...found, ...("traceState" in found ? { traceState: found.traceState?.serialize() } : {}) };
    });
    expect(runs).toBe(1);
    return seen;
  };
  const remote = (traceFlags: number, traceState?: string): object => ({
    traceId: TRACE_ID,
    spanId: SPAN_ID,
    traceFlags,
    isRemote: true,
    ...(traceState === undefined ? {} : { traceState }),
  });

  test.each([
    ["a traceparent", { traceparent: TRACEPARENT }, remote(1)],
    ["flags 00", { traceparent: `00-${TRACE_ID}-${SPAN_ID}-00` }, remote(0)],
    ["flags 0a", { traceparent: `00-${TRACE_ID}-${SPAN_ID}-0a` }, remote(10)],
    ["a later version with more fields", { traceparent: `01-${TRACE_ID}-${SPAN_ID}-01-later` }, remote(1)],
    ["a tracestate", { traceparent: TRACEPARENT, tracestate: "vendor=a1" }, remote(1, "vendor=a1")],
    ["a tracestate that is not a string (left out)", { traceparent: TRACEPARENT, tracestate: 42 }, remote(1)],
    ["a tracestate that is an array (left out)", { traceparent: TRACEPARENT, tracestate: ["vendor=a1"] }, remote(1)],
    // The API parses at most 512 characters (an empty state past that), plan-refs carries at most 8192.
    ["a tracestate of exactly 8192 characters", { traceparent: TRACEPARENT, tracestate: `v=${"a".repeat(8190)}` }, remote(1, "")],
    ["a tracestate of 8193 characters (left out)", { traceparent: TRACEPARENT, tracestate: `v=${"a".repeat(8191)}` }, remote(1)],
  ])("the body runs under the remote parent: %s", (_name, carrier, parent) => {
    expect(parentSeen(carrier)).toStrictEqual(parent);
  });

  test.each([
    ["no carrier", undefined],
    ["no traceparent", { tracestate: "vendor=a1" }],
    ["a traceparent that is a number", { traceparent: 42 }],
    ["a traceparent that is an array of a valid one", { traceparent: [TRACEPARENT] }],
    ["an inherited traceparent", Object.create({ traceparent: TRACEPARENT }) as Record<string, unknown>],
    ["not a traceparent", { traceparent: "not a traceparent" }],
    ["version ff", { traceparent: `ff-${TRACE_ID}-${SPAN_ID}-01` }],
    ["a zero trace id", { traceparent: `00-${"0".repeat(32)}-${SPAN_ID}-01` }],
    ["a zero span id", { traceparent: `00-${TRACE_ID}-${"0".repeat(16)}-01` }],
    ["capitals", { traceparent: TRACEPARENT.toUpperCase() }],
    ["a field too short", { traceparent: `00-${TRACE_ID}-${SPAN_ID}-1` }],
    ["text glued after the flags", { traceparent: `${TRACEPARENT}x` }],
    [
      "a carrier whose tracestate cannot be read (a Proxy that throws)",
      new Proxy<Record<string, unknown>>(
        { traceparent: TRACEPARENT, tracestate: "vendor=a1" },
        {
          getOwnPropertyDescriptor: (target, key) => {
            if (key === "tracestate") throw new Error("trap");
            return Reflect.getOwnPropertyDescriptor(target, key);
          },
        },
      ),
    ],
  ])("the body runs as it is: %s", (_name, carrier) => {
    expect(parentSeen(carrier)).toBeUndefined();
  });

  test("the body's value and error pass through", () => {
    expect(withRemoteParent({ traceparent: TRACEPARENT }, () => 7)).toBe(7);
    expect(withRemoteParent({ traceparent: "no" }, () => 8)).toBe(8);
    expect(() =>
      withRemoteParent({ traceparent: TRACEPARENT }, () => {
        throw new Error("own");
      }),
    ).toThrow("own");
  });

  test("a run started inside continues the remote trace under the remote span", () => {
    withRemoteParent({ traceparent: TRACEPARENT }, () => startRunTrace({ tracer, recordContent: false }, "run-1")?.end("ok", 0));
    const run = spanNamed("invoke_workflow");
    expect(run.spanContext().traceId).toBe(TRACE_ID);
    expect(run.parentSpanContext).toMatchObject({ spanId: SPAN_ID, isRemote: true });
  });
});

describe("contentJson", () => {
  const deepObject = (levels: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = { a: value };
    return value;
  };
  const unreadable = new Proxy(
    {},
    {
      getPrototypeOf: () => {
        throw new Error("trap");
      },
    },
  );

  test.each([
    ["null", null, "null"],
    ["undefined", undefined, "null"],
    ["a string with a quote", 'a"b', '"a\\"b"'],
    ["a number", 1.5, "1.5"],
    ["-Infinity", Number.NEGATIVE_INFINITY, "null"],
    ["true", true, "true"],
    ["false", false, "false"],
    ["a BigInt", 10n, '"[BigInt]"'],
    ["a function", () => 1, '"[Function]"'],
    ["a class", class Thing {}, '"[Function]"'],
    ["a symbol", Symbol("s"), '"[symbol]"'],
    ["a function and a symbol in an object", { f: () => 1, s: Symbol("s"), n: null }, '{"f":"[Function]","s":"[symbol]","n":null}'],
    ["an empty object", {}, "{}"],
    ["an empty array", [], "[]"],
    ["an object without prototype", Object.assign(Object.create(null) as object, { a: 1 }), '{"a":1}'],
    ["an array subclass", new (class List extends Array {})(), '"[Object]"'],
    ["an array with holes", [1, , 3], "[1,null,3]"],
    ["a sparse array's length", Object.assign(new Array(3), { 1: "x" }), '[null,"x",null]'],
    [
      "an array element that is a getter (never run)",
      Object.defineProperty([1, 2], 1, {
        get: () => {
          throw new Error("ran");
        },
      }),
      "[1,null]",
    ],
    ["symbol keys and non-enumerable keys left out", Object.defineProperty({ [Symbol("k")]: 1, a: 2 }, "hidden", { value: 3 }), '{"a":2}'],
    ["objects nested past the depth bound", deepObject(40), `${'{"a":'.repeat(32)}"…"${"}".repeat(32)}`],
    ["objects nested to just under the bound", deepObject(31), `${'{"a":'.repeat(31)}1${"}".repeat(31)}`],
    ["a value whose Proxy trap throws", unreadable, '"[unreadable]"'],
  ])("%s", (_name, value, text) => {
    expect(contentJson(value)).toBe(text);
  });

  test.each([
    [
      "a text of exactly MAX_CONTENT_LENGTH characters is not cut",
      "a".repeat(MAX_CONTENT_LENGTH - 2),
      `"${"a".repeat(MAX_CONTENT_LENGTH - 2)}"`,
    ],
    ["one more character is cut, with …", "a".repeat(MAX_CONTENT_LENGTH - 1), `"${"a".repeat(MAX_CONTENT_LENGTH - 1)}…`],
    [
      "a string value longer than the bound is cut before it is quoted",
      "a".repeat(MAX_CONTENT_LENGTH * 3),
      `"${"a".repeat(MAX_CONTENT_LENGTH - 1)}…`,
    ],
    [
      "writing goes on after a piece that ends exactly at the bound (then the text is cut)",
      ["a".repeat(MAX_CONTENT_LENGTH - 3), 1],
      `["${"a".repeat(MAX_CONTENT_LENGTH - 3)}"…`,
    ],
  ])("the bound: %s", (_name, value, text) => {
    expect(contentJson(value)).toBe(text);
  });

  /** An array that records which of its elements were read. */
  const watched = (elements: unknown[]): { array: unknown[]; reads: string[] } => {
    const reads: string[] = [];
    const array = new Proxy(elements, {
      getOwnPropertyDescriptor: (target, key) => {
        if (typeof key === "string" && key !== "length") reads.push(key);
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
    });
    return { array, reads };
  };
  const long = "a".repeat(MAX_CONTENT_LENGTH * 2);
  const upToBound = "a".repeat(MAX_CONTENT_LENGTH - 5); // `[["` + it + `",` is exactly MAX_CONTENT_LENGTH characters

  test.each([
    ["an array past the bound", [[long], "next"]],
    ["an object past the bound", [{ k: long }, "next"]],
    ["an array whose [ passes the bound", [upToBound, [], "next"]],
    ["an object whose { passes the bound", [upToBound, {}, "next"]],
  ])("once the text is full nothing more is read: %s", (_name, elements) => {
    const { array, reads } = watched(elements);
    const text = contentJson([array]);
    expect(text).toHaveLength(MAX_CONTENT_LENGTH + 1);
    expect(text.endsWith("…")).toBe(true);
    expect(reads).toEqual(Object.keys(elements).slice(0, -1));
  });
});

describe("describeTry", () => {
  const failure: TracedFailure = { code: "tool-error", detail: 'the tool failed: "secret"' };
  const shaped: TracedFailure = { ...failure, detailWithoutValues: "the tool failed: a string of 6 characters" };

  test.each([
    ["a result, recorded", { a: 1 }, undefined, true, { "gen_ai.tool.call.result": '{"a":1}' }, { code: SpanStatusCode.UNSET }],
    ["no result, recorded as null", undefined, undefined, true, { "gen_ai.tool.call.result": "null" }, { code: SpanStatusCode.UNSET }],
    ["a result, not recorded", { a: 1 }, undefined, false, {}, { code: SpanStatusCode.UNSET }],
    [
      "a failure without a value",
      undefined,
      failure,
      true,
      { "error.type": "tool-error" },
      { code: SpanStatusCode.ERROR, message: failure.detail },
    ],
    [
      "a failure with a value (recorded)",
      5,
      failure,
      true,
      { "error.type": "tool-error", "gen_ai.tool.call.result": "5" },
      { code: SpanStatusCode.ERROR, message: failure.detail },
    ],
    [
      "a failure with a value, not recorded",
      5,
      failure,
      false,
      { "error.type": "tool-error" },
      { code: SpanStatusCode.ERROR, message: failure.detail },
    ],
    [
      "without recordContent, the detail without values",
      undefined,
      shaped,
      false,
      { "error.type": "tool-error" },
      { code: SpanStatusCode.ERROR, message: shaped.detailWithoutValues },
    ],
    [
      "with recordContent, the detail as it is",
      undefined,
      shaped,
      true,
      { "error.type": "tool-error" },
      { code: SpanStatusCode.ERROR, message: shaped.detail },
    ],
    [
      "a long detail, cut",
      undefined,
      { code: "x", detail: "d".repeat(MAX_CONTENT_LENGTH + 10) },
      false,
      { "error.type": "x" },
      { code: SpanStatusCode.ERROR, message: `${"d".repeat(MAX_CONTENT_LENGTH)}…` },
    ],
  ])("%s", (_name, value, failed, recordContent, attributes, status) => {
    const span = tracer.startSpan("try");
    describeTry(span, value, failed, recordContent);
    span.end();
    const ended = spanNamed("try");
    expect(ended.attributes).toStrictEqual(attributes);
    expect(ended.status).toStrictEqual(status);
  });
});

test("stepAttributes: the try's attributes, attempt 1 unless given; traceText cuts; guarded swallows", () => {
  expect(stepAttributes("run-1", { id: 3, tool: "geocode" })).toStrictEqual({
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "geocode",
    "gen_ai.tool.call.id": "run-1:3",
    "gen_ai.tool.type": "function",
    "plan_refs.step.id": 3,
    "plan_refs.step.attempt": 1,
  });
  expect(stepAttributes("run-1", { id: 3, tool: "geocode", attempt: 2 })["plan_refs.step.attempt"]).toBe(2);
  expect(traceText("x".repeat(MAX_CONTENT_LENGTH))).toBe("x".repeat(MAX_CONTENT_LENGTH));
  expect(traceText("x".repeat(MAX_CONTENT_LENGTH + 1))).toBe(`${"x".repeat(MAX_CONTENT_LENGTH)}…`);
  expect(() =>
    guarded(() => {
      throw new Error("broken span");
    }),
  ).not.toThrow();
});

describe("startRunTrace", () => {
  test("the run span: invoke_workflow, the run id, under the caller's active span", () => {
    const caller = tracer.startSpan("caller");
    context.with(trace.setSpan(context.active(), caller), () => runTrace(false, "run-9").end("ok", 0));
    caller.end();
    const run = spanNamed("invoke_workflow");
    expect(run.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_workflow", "plan_refs.run.id": "run-9" });
    expect(run.kind).toBe(0); // INTERNAL
    expect(run.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
  });

  test.each([
    ["tracer: false", { tracer: false as const, recordContent: false }],
    ["no SDK registered (the API's no-op tracer)", { tracer: undefined, recordContent: false }],
    [
      "a tracer that throws",
      {
        tracer: {
          startSpan: () => {
            throw new Error("broken tracer");
          },
        },
        recordContent: false,
      },
    ],
  ])("is undefined with %s", (_name, settings) => {
    expect(startRunTrace(settings, "run-1")).toBeUndefined();
    expect(spans()).toEqual([]);
  });

  test("recordContent is the setting's", () => {
    expect(runTrace(true).recordContent).toBe(true);
    expect(runTrace(false).recordContent).toBe(false);
  });
});

describe("RunTrace", () => {
  const stepOf = (fields: Partial<TracedStep> = {}): TracedStep => ({ id: 1, tool: "geocode", span: undefined, ...fields });

  test("within: the try's span is a child of the run span and the active span while the body runs; endStep ends it once and keeps where it is", () => {
    const run = runTrace(false, "run-2");
    const step = stepOf({ id: 4, attempt: 2 });
    let active: string | undefined;
    const args: unknown[] = [];
    run.within(
      step,
      (a: number, b: string) => {
        args.push(a, b);
        active = trace.getActiveSpan()?.spanContext().spanId;
      },
      1,
      "two",
    );
    expect(args).toEqual([1, "two"]);
    expect(active).toBe(step.span?.spanContext().spanId);
    const { traceId, spanId, traceFlags } = step.span!.spanContext();
    run.endStep(step, "done", undefined);
    expect(step.span).toBeUndefined();
    run.endStep(step, "again", { code: "x", detail: "x" });
    run.end("ok", 1);
    const span = spanNamed("execute_tool geocode");
    expect(span.parentSpanContext?.spanId).toBe(spanNamed("invoke_workflow").spanContext().spanId);
    expect(span.attributes).toStrictEqual(stepAttributes("run-2", step));
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(run.stepSpans).toEqual(new Map([[4, { traceId, spanId, traceFlags }]]));
    expect(said).toEqual([]);
  });

  test("within: a link to each earlier plan's step the step reads, in its dependencies' order; none without", () => {
    const run = runTrace();
    const one = { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 };
    const nine = { traceId: TRACE_ID, spanId: "1111111111111111", traceFlags: 0 };
    run.earlierSpans = new Map([
      [1, one],
      [9, nine],
    ]);
    const reads = stepOf({ id: 10, tool: "reads", dependencies: [9, 7, 1] });
    const none = stepOf({ id: 11, tool: "none", dependencies: [7] });
    const noDependencies = stepOf({ id: 12, tool: "free" });
    for (const step of [reads, none, noDependencies]) {
      run.within(step, () => undefined);
      run.endStep(step, undefined, undefined);
    }
    run.end("ok", 3);
    expect(spanNamed("execute_tool reads").links.map((link) => link.context)).toEqual([nine, one]);
    expect(spanNamed("execute_tool none").links).toEqual([]);
    expect(spanNamed("execute_tool free").links).toEqual([]);
  });

  test("within: a tracer that throws for the try's span runs the body once, untraced, in the caller's context", () => {
    const throwing: Tracer = {
      startSpan: (name, options, parent) => {
        if (name.startsWith("execute_tool")) throw new Error("broken tracer");
        return tracer.startSpan(name, options, parent as never);
      },
    };
    const run = startRunTrace({ tracer: throwing, recordContent: true }, "run-1")!;
    const caller = tracer.startSpan("caller");
    const step = stepOf();
    const seen: (string | undefined)[] = [];
    context.with(trace.setSpan(context.active(), caller), () =>
      run.within(step, (value: string) => void seen.push(value, trace.getActiveSpan()?.spanContext().spanId), "arg"),
    );
    caller.end();
    expect(seen).toEqual(["arg", caller.spanContext().spanId]);
    expect(step.span).toBeUndefined();
    run.arguments(step, { a: 1 });
    run.endStep(step, 1, undefined);
    expect(run.stepSpans.size).toBe(0);
  });

  test("arguments: recorded with recordContent only", () => {
    for (const recordContent of [true, false]) {
      const run = runTrace(recordContent);
      const step = stepOf({ tool: `record ${recordContent}` });
      run.within(step, () => undefined);
      run.arguments(step, { city: "Paris" });
      run.endStep(step, undefined, { code: "tool-error", detail: "failed" });
      run.end("failed", 1);
    }
    expect(spanNamed("execute_tool record true").attributes["gen_ai.tool.call.arguments"]).toBe('{"city":"Paris"}');
    expect(spanNamed("execute_tool record false").attributes["gen_ai.tool.call.arguments"]).toBeUndefined();
  });

  test.each([
    ["ok", "ok", undefined, { code: SpanStatusCode.UNSET }, {}],
    ["failed, no message", "failed", undefined, { code: SpanStatusCode.ERROR }, { "error.type": "failed" }],
    [
      "failed with a message",
      "failed",
      "the run failed",
      { code: SpanStatusCode.ERROR, message: "the run failed" },
      { "error.type": "failed" },
    ],
    [
      "a thrown code with a long message, cut",
      "invalid-options",
      "m".repeat(MAX_CONTENT_LENGTH + 5),
      { code: SpanStatusCode.ERROR, message: `${"m".repeat(MAX_CONTENT_LENGTH)}…` },
      { "error.type": "invalid-options" },
    ],
  ])("end: %s", (_name, status, message, spanStatus, error) => {
    runTrace(false, "run-3").end(status, 4, message);
    const run = spanNamed("invoke_workflow");
    expect(run.status).toStrictEqual(spanStatus);
    expect(run.attributes).toStrictEqual({
      "gen_ai.operation.name": "invoke_workflow",
      "plan_refs.run.id": "run-3",
      "plan_refs.run.status": status,
      "plan_refs.run.step_count": 4,
      ...error,
    });
    expect(said).toEqual([]);
  });

  test("end: the run span ends once; later ends, events and detached ends change nothing", () => {
    const run = runTrace();
    run.event("plan_refs.step.skipped", { id: 2, tool: "t" }, { "plan_refs.step.blocked_by": 1 });
    run.end("ok", 2);
    run.end("failed", 3, "late");
    run.endDetached(5);
    run.event("plan_refs.step.failed", { id: 3, tool: "t" }, {});
    const span = spanNamed("invoke_workflow");
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes["plan_refs.run.status"]).toBe("ok");
    expect(span.events.map((event) => [event.name, event.attributes])).toEqual([
      ["plan_refs.step.skipped", { "plan_refs.step.id": 2, "gen_ai.tool.name": "t", "plan_refs.step.blocked_by": 1 }],
    ]);
    expect(said).toEqual([]);
  });

  test("share: each holder ends; the run span ends with the last one's status", () => {
    const run = runTrace();
    expect(run.share()).toBe(run);
    run.share();
    run.end("failed", 1, "first");
    run.end("failed", 2, "second");
    expect(spans()).toEqual([]);
    run.end("ok", 3);
    run.end("failed", 4);
    const span = spanNamed("invoke_workflow");
    expect(span.status).toStrictEqual({ code: SpanStatusCode.UNSET });
    expect(span.attributes).toMatchObject({ "plan_refs.run.status": "ok", "plan_refs.run.step_count": 3 });
    expect(span.attributes["error.type"]).toBeUndefined();
    expect(said).toEqual([]);
  });

  test("endDetached: the run span ends with status running, not an error, once", () => {
    const run = runTrace(false, "run-4");
    run.endDetached(6);
    run.endDetached(7);
    run.end("failed", 8, "late");
    run.event("plan_refs.step.failed", { id: 3, tool: "t" }, {});
    const span = spanNamed("invoke_workflow");
    expect(span.status).toStrictEqual({ code: SpanStatusCode.UNSET });
    expect(span.attributes).toStrictEqual({
      "gen_ai.operation.name": "invoke_workflow",
      "plan_refs.run.id": "run-4",
      "plan_refs.run.status": "running",
      "plan_refs.run.step_count": 6,
    });
    expect(span.events).toEqual([]);
    expect(said).toEqual([]);
  });

  test("endDetached of a shared run span ends it at once", () => {
    const run = runTrace().share();
    run.endDetached(1);
    expect(spanNamed("invoke_workflow").attributes["plan_refs.run.status"]).toBe("running");
  });

  test("active: the body runs with the run span active (what it starts is under the run span), its value returned", () => {
    const run = runTrace();
    const value = run.active(() => {
      tracer.startSpan("submitted").end();
      return trace.getActiveSpan()?.spanContext().spanId;
    });
    run.end("ok", 0);
    const runSpan = spanNamed("invoke_workflow");
    expect(value).toBe(runSpan.spanContext().spanId);
    expect(spanNamed("submitted").parentSpanContext?.spanId).toBe(runSpan.spanContext().spanId);
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  test("active: the body's own error is thrown as it is, the body run once", () => {
    const run = runTrace();
    const own = new Error("own");
    let runs = 0;
    expect(() =>
      run.active(() => {
        runs++;
        throw own;
      }),
    ).toThrow(own);
    expect(runs).toBe(1);
  });

  test("active: a context manager that throws runs the body once, outside the run span", () => {
    const run = runTrace();
    const broken: ContextManager = {
      active: () => ROOT_CONTEXT,
      with: () => {
        throw new Error("broken context manager");
      },
      bind: (_context, target) => target,
      enable() {
        return this;
      },
      disable() {
        return this;
      },
    };
    context.disable();
    context.setGlobalContextManager(broken);
    let runs = 0;
    let value: string | undefined;
    try {
      value = run.active(() => (runs++, trace.getActiveSpan()?.spanContext().spanId ?? "outside"));
    } finally {
      context.disable();
      context.setGlobalContextManager(contextManager.enable());
    }
    expect([runs, value]).toEqual([1, "outside"]);
  });
});
