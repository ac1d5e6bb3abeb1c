/**
 * runPlan's spans, recorded by the real OpenTelemetry SDK (an in-memory exporter, the async-hooks
 * context manager): a run span, a span per step try under it, the step span active while its tool
 * runs, errors, retries, skipped steps as events, and content only with `recordContent`.
 */
import { context, INVALID_SPAN_CONTEXT, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, test } from "vitest";
import { useOtelGlobals } from "../helpers/otel-globals.js";
import { RefError, runPlan, type ToolFunctions } from "../../src/index.js";
import { createPlanSession } from "../../src/run/session.js";
import { activeTraceCarrier, contentJson, MAX_CONTENT_LENGTH, withRemoteParent } from "../../src/step/tracing.js";

const exporter = new InMemorySpanExporter();
/** Span starts and ends in the order they happened (the spans' times are too coarse to order them). */
const order: string[] = [];
const orderLog: SpanProcessor = {
  onStart: (span) => void order.push(`start ${span.name}`),
  onEnd: (span) => void order.push(`end ${span.name}`),
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter), orderLog] });
const tracer = provider.getTracer("test");
useOtelGlobals();

afterEach(() => {
  exporter.reset();
  order.length = 0;
});

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const named = (name: string): ReadableSpan[] => spans().filter((span) => span.name === name);
const only = (name: string): ReadableSpan => {
  const found = named(name);
  expect(found).toHaveLength(1);
  return found[0]!;
};
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const tick = (ms = 1): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const diamond = {
  steps: [
    { id: 1, tool: "geocode", args: { city: "Paris" } },
    { id: 2, tool: "holidays", args: { country: "FR" } },
    { id: 3, tool: "plan", args: { at: "$1", off: "$2" } },
  ],
};
const diamondTools: ToolFunctions = {
  geocode: async () => (await tick(), { lat: 48.85 }),
  holidays: async () => (await tick(), ["2026-12-25"]),
  plan: ({ at, off }) => ({ at, off }),
};

describe("a run's spans", () => {
  test("one run span; a span per step as its children; the dependent starts after both it depends on ended", async () => {
    const report = await runPlan(diamond, diamondTools, { tracer, runId: "run-7" });
    expect(report.status).toBe("ok");
    const run = only("invoke_workflow");
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_workflow",
      "plan_refs.run.id": "run-7",
      "plan_refs.run.status": "ok",
      "plan_refs.run.step_count": 3,
    });
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
    const [geocode, holidays, plan] = ["geocode", "holidays", "plan"].map((tool) => only(`execute_tool ${tool}`));
    for (const step of [geocode!, holidays!, plan!]) {
      expect(parentOf(step)).toBe(run.spanContext().spanId);
      expect(step.spanContext().traceId).toBe(run.spanContext().traceId);
      expect(step.kind).toBe(0); // INTERNAL
    }
    expect(plan!.attributes).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "plan",
      "gen_ai.tool.call.id": "run-7:3",
      "gen_ai.tool.type": "function",
      "plan_refs.step.id": 3,
      "plan_refs.step.attempt": 1,
    });
    expect(order.indexOf("start execute_tool plan")).toBeGreaterThan(order.indexOf("end execute_tool geocode"));
    expect(order.indexOf("start execute_tool plan")).toBeGreaterThan(order.indexOf("end execute_tool holidays"));
    expect(order.at(-1)).toBe("end invoke_workflow");
  });

  test("the run span is a child of the caller's active span", async () => {
    await tracer.startActiveSpan("caller", async (caller) => {
      await runPlan(diamond, diamondTools, { tracer });
      caller.end();
    });
    expect(parentOf(only("invoke_workflow"))).toBe(only("caller").spanContext().spanId);
  });

  test("a failing step's span has error status and error.type (the StepError code); the run span too", async () => {
    const report = await runPlan(diamond, { ...diamondTools, holidays: () => Promise.reject(new Error("no calendar")) }, { tracer });
    expect(report.status).toBe("failed");
    const failed = only("execute_tool holidays");
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: "the tool failed: no calendar" });
    expect(failed.attributes["error.type"]).toBe("tool-error");
    expect(only("execute_tool geocode").status.code).toBe(SpanStatusCode.UNSET);
    const run = only("invoke_workflow");
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(run.attributes).toMatchObject({ "error.type": "failed", "plan_refs.run.status": "failed" });
    // Skipped steps are events on the run span, not spans.
    expect(named("execute_tool plan")).toEqual([]);
    expect(run.events.map((event) => [event.name, event.attributes])).toEqual([
      ["plan_refs.step.skipped", { "plan_refs.step.id": 3, "gen_ai.tool.name": "plan", "plan_refs.step.blocked_by": 2 }],
    ]);
  });

  test("a timeout ends the try's span with error.type timeout", async () => {
    await runPlan({ steps: [{ id: 1, tool: "slow", args: {} }] }, { slow: () => new Promise(() => undefined) }, { tracer, timeoutMs: 5 });
    expect(only("execute_tool slow").attributes["error.type"]).toBe("timeout");
  });

  test("a step that fails before it can run (a streamed step with no such tool) is an event on the run span", async () => {
    async function* planner(): AsyncGenerator<unknown> {
      yield { id: 1, tool: "nowhere", args: {} };
    }
    await runPlan(planner(), {}, { tracer });
    expect(named("execute_tool nowhere")).toEqual([]);
    expect(only("invoke_workflow").events.map((event) => [event.name, event.attributes])).toEqual([
      ["plan_refs.step.failed", { "plan_refs.step.id": 1, "gen_ai.tool.name": "nowhere", "error.type": "unknown-tool" }],
    ]);
  });

  test("a tool name the planner chose is cut at MAX_CONTENT_LENGTH wherever it reaches a span: the step span's name and attribute, the run span's events", async () => {
    const long = `t${"o".repeat(200_000)}`;
    async function* planner(): AsyncGenerator<unknown> {
      yield { id: 1, tool: long, args: {} };
      yield { id: 2, tool: `${long}!`, args: {} };
    }
    await runPlan(planner(), { [long]: () => "ran" }, { tracer });
    const step = spans().find((span) => span.name.startsWith("execute_tool "))!;
    expect(step.name).toBe(`execute_tool ${long.slice(0, MAX_CONTENT_LENGTH)}…`);
    expect(step.attributes["gen_ai.tool.name"]).toBe(`${long.slice(0, MAX_CONTENT_LENGTH)}…`);
    const [failed] = only("invoke_workflow").events;
    expect([failed!.name, failed!.attributes!["error.type"]]).toEqual(["plan_refs.step.failed", "unknown-tool"]);
    expect(failed!.attributes!["gen_ai.tool.name"]).toBe(`${long.slice(0, MAX_CONTENT_LENGTH)}…`);
    for (const span of spans()) {
      expect(span.name.length).toBeLessThanOrEqual(MAX_CONTENT_LENGTH + 20);
      for (const value of [
        ...Object.values(span.attributes),
        ...span.events.flatMap((event) => Object.values(event.attributes ?? {})),
        span.status.message ?? "",
      ]) {
        if (typeof value === "string") expect(value.length).toBeLessThanOrEqual(MAX_CONTENT_LENGTH + 1);
      }
    }
  });

  test("a retry is a new attempt span", async () => {
    let calls = 0;
    const report = await runPlan(
      { steps: [{ id: 1, tool: "flaky", args: {} }] },
      { flaky: () => (++calls === 1 ? Promise.reject(new Error("down")) : "up") },
      { tracer, retry: { attempts: 2, initialDelayMs: 0, jitter: "none" } },
    );
    expect(report.status).toBe("ok");
    const tries = named("execute_tool flaky").sort(
      (a, b) => Number(a.attributes["plan_refs.step.attempt"]) - Number(b.attributes["plan_refs.step.attempt"]),
    );
    expect(
      tries.map((span) => [span.attributes["plan_refs.step.attempt"], span.status.code, span.attributes["gen_ai.tool.call.id"]]),
    ).toEqual([
      [1, SpanStatusCode.ERROR, `${report.runId}:1`],
      [2, SpanStatusCode.UNSET, `${report.runId}:1`],
    ]);
  });

  test("a tool that starts its own span finds it parented to its step's span, also after an await", async () => {
    const inner = trace.getTracer("inner-tool", "1.0.0");
    const tools: ToolFunctions = {
      fetch_page: async () => {
        inner.startSpan("before await").end();
        await tick();
        return inner.startActiveSpan("after await", (span) => (span.end(), "page"));
      },
    };
    // The tool's tracer is the global one: the same provider, registered for this test only.
    trace.setGlobalTracerProvider(provider);
    try {
      await runPlan({ steps: [{ id: 1, tool: "fetch_page", args: {} }] }, tools, { tracer });
    } finally {
      trace.disable();
    }
    const step = only("execute_tool fetch_page");
    expect(parentOf(only("before await"))).toBe(step.spanContext().spanId);
    expect(parentOf(only("after await"))).toBe(step.spanContext().spanId);
  });

  test("an invalid plan is a run span with status invalid and no step span", async () => {
    const report = await runPlan({ steps: [{ id: 1, tool: "a", args: { x: "$9" } }] }, { a: () => 1 }, { tracer });
    expect(report.status).toBe("invalid");
    expect(spans().map((span) => span.name)).toEqual(["invoke_workflow"]);
    expect(only("invoke_workflow").attributes).toMatchObject({ "error.type": "invalid" });
  });
});

describe("a session's runs", () => {
  const tools: ToolFunctions = { search: () => ({ hits: [1, 2, 3] }), count: ({ of }) => (of as unknown[]).length, shout: () => "!" };

  test("a reference to an earlier plan's step is a link from the reading step's span to that step's span (no value on it)", async () => {
    const session = createPlanSession();
    await runPlan(
      {
        steps: [
          { id: 1, tool: "search", args: {} },
          { id: 2, tool: "shout", args: {} },
        ],
      },
      tools,
      { tracer, session },
    );
    const searched = only("execute_tool search");
    exporter.reset();
    const report = await runPlan(
      {
        steps: [
          { id: 3, tool: "count", args: { of: "$1.hits" } },
          { id: 4, tool: "shout", args: {} },
        ],
      },
      tools,
      { tracer, session },
    );
    expect(report.results.get(3)).toBe(3);
    const counted = only("execute_tool count");
    expect(counted.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([
      [searched.spanContext().traceId, searched.spanContext().spanId],
    ]);
    expect(counted.links[0]!.attributes ?? {}).toEqual({});
    // A step that reads no earlier result has no link; the session keeps where spans are, never in its values.
    expect(only("execute_tool shout").links).toEqual([]);
    expect(session.get(1)?.value).toEqual({ hits: [1, 2, 3] });
  });

  test("the span references survive save() and restore (a turn in a new request links to the earlier turn's span)", async () => {
    const first = createPlanSession();
    await runPlan({ steps: [{ id: 1, tool: "search", args: {} }] }, tools, { tracer, session: first });
    const searched = only("execute_tool search");
    exporter.reset();
    const saved = JSON.parse(JSON.stringify(first.save())) as unknown;
    const next = createPlanSession({ restore: saved });
    await runPlan({ steps: [{ id: 2, tool: "count", args: { of: "$1.hits" } }] }, tools, { tracer, session: next });
    expect(only("execute_tool count").links.map((link) => link.context.spanId)).toEqual([searched.spanContext().spanId]);
    // A span reference that is not one is dropped on restore (it only ever makes a link).
    const forged = createPlanSession({
      restore: {
        version: 1,
        nextStepId: 2,
        plans: 1,
        forgotten: [],
        results: [{ id: 1, tool: "search", value: { hits: [] }, at: 0, plan: 1, span: { traceId: "x", spanId: "y", traceFlags: 1 } }],
      },
    });
    expect(forged.spans().size).toBe(0);
  });
});

describe("which tracer", () => {
  test("by default, the API's global tracer (plan-refs and its version) once an SDK is registered", async () => {
    trace.setGlobalTracerProvider(provider);
    try {
      await runPlan(diamond, diamondTools);
    } finally {
      trace.disable();
    }
    const run = only("invoke_workflow");
    expect(run.instrumentationScope.name).toBe("plan-refs");
    expect(run.instrumentationScope.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(named("execute_tool plan")).toHaveLength(1);
  });

  test("with no SDK registered nothing is recorded, and the results are those of an untraced run", async () => {
    const traced = await runPlan(diamond, diamondTools);
    const untraced = await runPlan(diamond, diamondTools, { tracer: false });
    expect(spans()).toEqual([]);
    expect(traced.results).toEqual(untraced.results);
  });

  // The untraced path must cost each step nothing: the API's no-op tracer would make a span object per
  // step, so the run asks for its run span only, sees it carries no trace, and starts no other.
  test("with no SDK registered a run starts one span (its run span) whatever its number of steps, by default as with the API's tracer given", async () => {
    // What the API's no-op tracer gives: a span that records nothing and carries no trace.
    let started = 0;
    const counting = { startSpan: () => (started++, trace.wrapSpanContext(INVALID_SPAN_CONTEXT)) };
    const plan = { steps: Array.from({ length: 50 }, (_, i) => ({ id: i, tool: "echo", args: i === 0 ? {} : { from: "$0" } })) };
    const echo: ToolFunctions = { echo: () => "x" };
    expect((await runPlan(plan, echo, { tracer: counting as never })).results.size).toBe(50);
    expect(started).toBe(1);
    started = 0;
    trace.setGlobalTracerProvider({ getTracer: () => counting as never });
    try {
      expect((await runPlan(plan, echo)).results.size).toBe(50);
    } finally {
      trace.disable();
    }
    expect(started).toBe(1);
    expect(spans()).toEqual([]);
  });

  test("tracer: false records nothing, even with an SDK registered", async () => {
    trace.setGlobalTracerProvider(provider);
    try {
      await runPlan(diamond, diamondTools, { tracer: false });
    } finally {
      trace.disable();
    }
    expect(spans()).toEqual([]);
  });

  test("a tracer option that is not a tracer is refused (invalid-options)", async () => {
    const refused = await runPlan(diamond, diamondTools, { tracer: {} as never }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RefError);
    expect(refused).toMatchObject({
      code: "invalid-options",
      message: expect.stringContaining("option tracer must be an OpenTelemetry tracer"),
    });
  });

  test("a tracer that throws leaves the run untraced, never failed", async () => {
    const broken = {
      startSpan: () => {
        throw new Error("broken tracer");
      },
    };
    const report = await runPlan(diamond, diamondTools, { tracer: broken });
    expect(report.status).toBe("ok");
  });

  test("spans whose every method throws (but spanContext) never fail a run, also a failing or skipped step", async () => {
    const fail = (): never => {
      throw new Error("broken span");
    };
    let steps = 0;
    const span = (real: ReturnType<typeof tracer.startSpan>) => ({
      spanContext: () => real.spanContext(),
      setAttribute: fail,
      setStatus: fail,
      addEvent: fail,
      end: fail,
    });
    const brokenSpans = {
      startSpan: (name: string, options?: object, parent?: unknown) =>
        name === "invoke_workflow"
          ? span(tracer.startSpan(name, options, parent as never))
          : ++steps % 2 === 0
            ? fail()
            : span(tracer.startSpan(name)),
    };
    const report = await runPlan(
      diamond,
      { ...diamondTools, holidays: () => Promise.reject(new Error("no calendar")) },
      { tracer: brokenSpans, recordContent: true },
    );
    expect(report.status).toBe("failed");
    expect(report.results.get(1)).toEqual({ lat: 48.85 });
    expect(report.skipped).toEqual([3]);
  });
});

describe("content", () => {
  const tools: ToolFunctions = { echo: (args) => ({ echoed: args }), big: () => "x".repeat(MAX_CONTENT_LENGTH * 2) };
  const plan = {
    steps: [
      { id: 1, tool: "echo", args: { city: "Paris", n: 2 } },
      { id: 2, tool: "big", args: {} },
    ],
  };

  test("arguments and results are absent without recordContent", async () => {
    await runPlan(plan, tools, { tracer });
    for (const span of named("execute_tool echo").concat(named("execute_tool big"))) {
      expect(span.attributes["gen_ai.tool.call.arguments"]).toBeUndefined();
      expect(span.attributes["gen_ai.tool.call.result"]).toBeUndefined();
    }
  });

  test("with recordContent: the resolved arguments and the result as JSON, cut at MAX_CONTENT_LENGTH", async () => {
    await runPlan(plan, tools, { tracer, recordContent: true });
    const echo = only("execute_tool echo");
    expect(echo.attributes["gen_ai.tool.call.arguments"]).toBe('{"city":"Paris","n":2}');
    expect(echo.attributes["gen_ai.tool.call.result"]).toBe('{"echoed":{"city":"Paris","n":2}}');
    const big = only("execute_tool big").attributes["gen_ai.tool.call.result"] as string;
    expect(big).toHaveLength(MAX_CONTENT_LENGTH + 1);
    expect(big.startsWith('"xxx')).toBe(true);
    expect(big.endsWith("…")).toBe(true);
  });

  test.each([
    [
      "a getter never runs",
      Object.defineProperty({ a: 1 }, "b", {
        get: () => {
          throw new Error("ran");
        },
        enumerable: true,
      }),
      '{"a":1}',
    ],
    ["a BigInt", { n: 1n }, '{"n":"[BigInt]"}'],
    [
      "a cycle",
      (() => {
        const a: Record<string, unknown> = { x: 1 };
        a.self = a;
        return a;
      })(),
      '{"x":1,"self":"[Cycle]"}',
    ],
    ["a class instance (toJSON not called)", { at: new Date(0), m: new Map([[1, 2]]) }, '{"at":"[Object]","m":"[Object]"}'],
    ["undefined and non-finite numbers", [undefined, NaN, Infinity, -0], "[null,null,null,0]"],
    [
      "a shared value twice (not a cycle)",
      (() => {
        const shared = { k: true };
        return [shared, shared];
      })(),
      '[{"k":true},{"k":true}]',
    ],
    ["nesting past the depth bound", JSON.parse(`${"[".repeat(40)}${"]".repeat(40)}`) as unknown, `${"[".repeat(32)}"…"${"]".repeat(32)}`],
  ])("contentJson: %s", (_name, value, text) => {
    expect(contentJson(value)).toBe(text);
  });

  describe("a message that quotes an argument value (validateInputs)", () => {
    const SECRET = "sk-SECRET-0123456789";
    const catalog = { read: {}, call: { input: { type: "object", properties: { token: { type: "number" }, opts: { type: "string" } } } } };
    // Step 1's result is not known to the linter, so only the run sees the values.
    const secretPlan = {
      steps: [
        { id: 1, tool: "read", args: {} },
        { id: 2, tool: "call", args: { token: "$1.token", opts: "$1.opts" } },
      ],
    };
    const secretTools: ToolFunctions = { read: () => ({ token: SECRET, opts: { a: 1, b: 2, c: SECRET } }), call: () => "called" };
    const texts = (span: ReadableSpan): string[] =>
      [
        span.name,
        span.status.message ?? "",
        ...Object.values(span.attributes),
        ...span.events.flatMap((event) => [event.name, ...Object.values(event.attributes ?? {})]),
      ].map(String);

    test("without recordContent the span's status gives the value's shape; the report keeps the value", async () => {
      const report = await runPlan(secretPlan, secretTools, { tracer, catalog, validateInputs: true });
      expect(report.errors.get(2)?.message).toBe(
        `step 2 (call): its arguments do not match the input schema: /token must be a number (got "${SECRET}"); /opts must be a string (got {"a":1,"b":2,"c":"${SECRET}"})`,
      );
      const step = only("execute_tool call");
      expect(step.status).toEqual({
        code: SpanStatusCode.ERROR,
        message:
          "its arguments do not match the input schema: /token must be a number (got a string of 20 characters); /opts must be a string (got an object with 3 keys)",
      });
      for (const span of spans()) for (const text of texts(span)) expect(text).not.toContain("SECRET");
    });

    test("with recordContent the span's status quotes the value, as the report does", async () => {
      await runPlan(secretPlan, secretTools, { tracer, catalog, validateInputs: true, recordContent: true });
      expect(only("execute_tool call").status.message).toContain(`(got "${SECRET}")`);
    });
  });

  test("contentJson stops writing once past the bound (a million elements)", () => {
    const text = contentJson(new Array(1_000_000).fill(12345));
    expect(text).toHaveLength(MAX_CONTENT_LENGTH + 1);
  });
});

describe("W3C trace context fields", () => {
  test("activeTraceCarrier writes the active span's context; withRemoteParent continues it", async () => {
    expect(activeTraceCarrier()).toBeUndefined();
    const span = tracer.startSpan("parent");
    const carrier = context.with(trace.setSpan(context.active(), span), () => activeTraceCarrier());
    span.end();
    expect(carrier).toEqual({ traceparent: `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01` });
    await withRemoteParent({ ...carrier, tracestate: "vendor=a1" }, () => runPlan(diamond, diamondTools, { tracer }));
    const run = only("invoke_workflow");
    expect(run.spanContext().traceId).toBe(span.spanContext().traceId);
    expect(parentOf(run)).toBe(span.spanContext().spanId);
    expect(run.spanContext().traceState?.serialize()).toBe("vendor=a1");
  });

  test.each([
    ["not a traceparent"],
    ["00-00000000000000000000000000000000-00f067aa0ba902b7-01"],
    ["ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"],
    [42],
  ])("withRemoteParent ignores %s", async (traceparent) => {
    await withRemoteParent({ traceparent }, () => runPlan(diamond, diamondTools, { tracer }));
    expect(parentOf(only("invoke_workflow"))).toBeUndefined();
  });
});
