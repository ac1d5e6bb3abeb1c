/**
 * Workload 11: what tracing costs a run. With no SDK registered (@opentelemetry/api installed): runPlan
 * on 10,000 no-op steps against the same run with tracing skipped (`tracer: false`), measured in
 * interleaved pairs, the target ≤ 1.02× on the median of the pairs' ratios. With an SDK registered:
 * runPlan with the SDK's tracer (a span per run and per step, a processor that hands every span to an
 * exporter that drops it) against the same run with tracing skipped, both under the async-hooks
 * context manager that an SDK setup registers; reported: the difference per step (no target).
 */
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { runPlan, type ToolFunctions } from "../../src/index.js";
import { otelApi } from "../../src/step/tracing.js";
import { formatTime, measure, pairedRatio, pairedTarget, row, type Workload } from "../harness.js";

const STEPS = 10_000;
/** Pairs of the no-SDK ratio (each: a collection, then 3 runs of each task: one untimed, two timed). */
const PAIRS = 41;
const place = { city: "Paris", country: "FR" };
const tools: ToolFunctions = { geocode: () => place, weather: () => "sunny" };
const plan = {
  steps: Array.from({ length: STEPS }, (_, i) =>
    i === 0 ? { id: 0, tool: "geocode", args: { query: "Paris" } } : { id: i, tool: "weather", args: { city: "$0.city", days: i % 7 } },
  ),
};

/** Spans handed to the exporter (counted only to check that the runs are traced). */
let exported = 0;
/** An exporter that drops every span at once. */
const dropAll: SpanExporter = {
  export: (spans: ReadableSpan[], done) => {
    exported += spans.length;
    done({ code: 0 });
  },
  shutdown: () => Promise.resolve(),
};

const names = {
  untraced: "runPlan, tracing skipped (tracer: false)",
  traced: "runPlan with the SDK's tracer (SimpleSpanProcessor, an exporter that drops every span)",
  content: "the same with recordContent: true",
} as const;

const workload: Workload = {
  id: "11",
  title: "tracing with an SDK registered: 10,000 no-op steps",
  async run() {
    // First with nothing registered: no SDK, no context manager (what an application that has the API through another package sees).
    if (otelApi() === null)
      throw new Error("workload 11: @opentelemetry/api is not found (npm ci installs it): the no-SDK ratio would measure nothing");
    const noSdk = await pairedRatio(
      () => runPlan(plan, tools),
      () => runPlan(plan, tools, { tracer: false }),
      { pairs: PAIRS, calls: 2, warmup: 5 },
    );
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(dropAll)] }).getTracer("bench");
    const check = await runPlan(plan, tools, { tracer });
    if (check.status !== "ok" || check.results.size !== STEPS || exported !== STEPS + 1)
      throw new Error(`workload 11: runPlan ${check.status}, ${exported} spans`);
    const rows = await measure(
      {
        [names.untraced]: () => runPlan(plan, tools, { tracer: false }),
        [names.traced]: () => runPlan(plan, tools, { tracer }),
        [names.content]: () => runPlan(plan, tools, { tracer, recordContent: true }),
      },
      { batch: 1, time: 200, rounds: 3, iterations: 3, warmupIterations: 2, async: true },
    );
    const perStep = (name: string): string => formatTime((row(rows, name).medianNs - row(rows, names.untraced).medianNs) / STEPS);
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows,
      baselines: [names.untraced],
      targets: [
        pairedTarget(
          "runPlan (@opentelemetry/api installed, no SDK registered) ÷ runPlan with tracing skipped (10,000 no-op steps; median of interleaved pairs)",
          noSdk,
          "max",
          1.02,
        ),
      ],
      notes: [
        `No SDK registered: the median of ${noSdk.pairs} pairs' ratios is ${noSdk.median.toFixed(3)}× (the middle half of the pairs between ${noSdk.low.toFixed(3)}× and ${noSdk.high.toFixed(3)}×). Each pair is a forced collection, an untimed run of each, then 2 runs of one right beside 2 of the other, which one first alternating, timed in this process's CPU time (a shared machine's load is not counted); a ratio of medians of separately timed rows (as workload 5 measured it) moved between 0.93× and 1.16× from run to run, as machine load drifted between the rows. Untraced, runPlan asks the API for its tracer, starts the run span (the API's non-recording span), sees it carries no trace and drops tracing: each step costs one branch.`,
        `Overhead per step with the SDK: ${perStep(names.traced)} (spans only), ${perStep(names.content)} (with recordContent). A step's span is started with six attributes, made the active context while the tool runs (context.with under AsyncLocalStorage) and ended; the SDK's own work (ids, the span object, the processor) is most of it.`,
        "The async-hooks context manager is registered for every row (an SDK setup registers it for the whole process), so the tracer: false row pays what it costs every promise, as the traced rows do.",
      ],
    };
  },
};

export default workload;
