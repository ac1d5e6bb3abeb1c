/**
 * A worker's step span and its database operations (src/postgres/step-trace.ts `storedStepTrace`), recorded
 * by the real OpenTelemetry SDK (an in-memory exporter, the async-hooks context manager, registered
 * globally as a worker process registers it): the claim and settle spans are the step span's
 * children, a retried operation is one span with an event per failed try, and a settle that did not
 * store the outcome has error status. The worker processes' side is test/tracing/postgres.test.ts.
 */
import { context, propagation, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { PostgresError } from "../../src/postgres/errors.js";
import { STEP_FAILURES } from "../../src/step/attempt.js";
import { storedStepTrace, TracedTries, type SettleResult } from "../../src/postgres/step-trace.js";
import { inputMismatch } from "../../src/step/validate-input.js";

const exporter = new InMemorySpanExporter();
const PARENT = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" };
const step = { runId: "run-1", id: 3, tool: "geocode", attempt: 2 };

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});
afterAll(() => {
  context.disable();
  trace.disable();
  propagation.disable();
});
afterEach(() => exporter.reset());

const named = (name: string): ReadableSpan => {
  const found = exporter.getFinishedSpans().filter((span) => span.name === name);
  expect(found).toHaveLength(1);
  return found[0]!;
};

/** One try traced as a worker traces it: claimed, the tool run inside the step span, settled with `result`. */
function tracedTry(result: SettleResult, failedSettles = 0): { toolParent: string | undefined } {
  const claim = new TracedTries();
  const traced = storedStepTrace(PARENT, step, claim)!;
  let toolParent: string | undefined;
  traced.within(() => void (toolParent = trace.getActiveSpan()?.spanContext().spanId));
  traced.ended(undefined);
  const settle = new TracedTries();
  for (let i = 0; i < failedSettles; i++)
    settle.failed(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }));
  traced.settled(settle, result);
  return { toolParent };
}

test("the step span is the submitter's child and the tool's parent; claim and settle are its children, within its time", () => {
  const { toolParent } = tracedTry("stored");
  const stepSpan = named("execute_tool geocode");
  const claim = named("plan_refs.claim");
  const settle = named("plan_refs.settle");
  expect(stepSpan.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
  expect(stepSpan.spanContext().traceId).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
  expect(toolParent).toBe(stepSpan.spanContext().spanId);
  for (const operation of [claim, settle]) {
    expect(operation.parentSpanContext?.spanId).toBe(stepSpan.spanContext().spanId);
    expect(operation.attributes).toMatchObject({
      "plan_refs.run.id": "run-1",
      "plan_refs.step.id": 3,
      "plan_refs.step.attempt": 2,
      "plan_refs.tries": 1,
    });
    expect(operation.status.code).toBe(SpanStatusCode.UNSET);
  }
  expect(claim.startTime).toEqual(stepSpan.startTime);
  expect(settle.endTime).toEqual(stepSpan.endTime);
  expect(settle.attributes["plan_refs.settle.result"]).toBe("stored");
});

test("a settle retried through an outage: one span, an exception event per failed try, no error once stored", () => {
  tracedTry("stored", 3);
  const settle = named("plan_refs.settle");
  expect(settle.attributes["plan_refs.tries"]).toBe(4);
  expect(settle.events.map((event) => [event.name, event.attributes?.["exception.type"]])).toEqual(
    Array.from({ length: 3 }, () => ["exception", "ECONNREFUSED"]),
  );
  expect(settle.status.code).toBe(SpanStatusCode.UNSET);
});

test("an outage longer than the events kept: every try counted, the first 32 kept as events", () => {
  tracedTry("stored", 100);
  const settle = named("plan_refs.settle");
  expect(settle.attributes["plan_refs.tries"]).toBe(101);
  expect(settle.events).toHaveLength(32);
});

test.each<[string, SettleResult, string]>([
  ["lost to a later attempt", "lost", "step-lost"],
  [
    "given up as the worker stopped",
    { thrown: new PostgresError("database-unreachable", "cannot reach PostgreSQL") },
    "database-unreachable",
  ],
  ["failed with another error", { thrown: new TypeError("bad") }, "TypeError"],
])("a settle %s has error status and error.type; the step span still ends", (_name, result, type) => {
  tracedTry(result, 1);
  const settle = named("plan_refs.settle");
  expect(settle.status.code).toBe(SpanStatusCode.ERROR);
  expect(settle.attributes["error.type"]).toBe(type);
  expect(named("execute_tool geocode").ended).toBe(true);
});

test("a step run stopped by the settle (moot) or released (no settle span) is no error", () => {
  tracedTry("moot");
  expect(named("plan_refs.settle").status.code).toBe(SpanStatusCode.UNSET);
  exporter.reset();
  const traced = storedStepTrace(PARENT, step, new TracedTries())!;
  traced.ended({ code: "aborted", detail: "the worker is stopping" });
  traced.settled(undefined, "moot");
  expect(
    exporter
      .getFinishedSpans()
      .map((span) => span.name)
      .sort(),
  ).toEqual(["execute_tool geocode", "plan_refs.claim"]);
  expect(named("execute_tool geocode").attributes["error.type"]).toBe("aborted");
});

test("nothing stored, nothing traced", () => {
  expect(storedStepTrace(undefined, step, new TracedTries())).toBeUndefined();
  expect(storedStepTrace({ traceparent: "not one" }, step, new TracedTries())).toBeUndefined();
});

test("a worker records no content: an invalid-input failure's status gives the argument's shape, never its value", () => {
  const mismatch = inputMismatch({ geocode: { input: { type: "object", properties: { token: { type: "number" } } } } }, "geocode", {
    token: "sk-SECRET-0123456789",
  })!;
  expect(mismatch.detail).toContain('"sk-SECRET-0123456789"');
  const traced = storedStepTrace(PARENT, step, new TracedTries())!;
  traced.ended(STEP_FAILURES.invalidInput(mismatch));
  traced.settled(undefined, "stored");
  expect(named("execute_tool geocode").status).toEqual({
    code: SpanStatusCode.ERROR,
    message: "its arguments do not match the input schema: /token must be a number (got a string of 20 characters)",
  });
});
