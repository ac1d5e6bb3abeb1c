/**
 * Workload 10: what tracing costs a run when an OpenTelemetry SDK is registered: runPlan on 10,000
 * no-op steps with the SDK's tracer (a span per run and per step, a processor that hands every span to
 * an exporter that drops it) against the same run with tracing skipped, both under the async-hooks
 * context manager that an SDK setup registers. Reported: the difference per step (no target).
 */
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { runPlan, type ToolFunctions } from "../../src/index.js";
import { formatTime, measure, row, type Workload } from "../harness.js";

const STEPS = 10_000;
const place = { city: "Paris", country: "FR" };
const tools: ToolFunctions = { geocode: () => place, weather: () => "sunny" };
const plan = { steps: Array.from({ length: STEPS }, (_, i) => (i === 0 ? { id: 0, tool: "geocode", args: { query: "Paris" } } : { id: i, tool: "weather", args: { city: "$0.city", days: i % 7 } })) };

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
  id: "10",
  title: "tracing with an SDK registered: 10,000 no-op steps",
  async run() {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(dropAll)] }).getTracer("bench");
    const check = await runPlan(plan, tools, { tracer });
    if (check.status !== "ok" || check.results.size !== STEPS || exported !== STEPS + 1) throw new Error(`workload 10: runPlan ${check.status}, ${exported} spans`);
    const rows = await measure(
      {
        [names.untraced]: () => runPlan(plan, tools, { tracer: false }),
        [names.traced]: () => runPlan(plan, tools, { tracer }),
        [names.content]: () => runPlan(plan, tools, { tracer, recordContent: true }),
      },
      { batch: 1, time: 200, rounds: 5, iterations: 3, warmupIterations: 2, async: true },
    );
    const perStep = (name: string): string => formatTime((row(rows, name).medianNs - row(rows, names.untraced).medianNs) / STEPS);
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows,
      baselines: [names.untraced],
      targets: [],
      notes: [
        `Overhead per step with the SDK: ${perStep(names.traced)} (spans only), ${perStep(names.content)} (with recordContent). A step's span is started with six attributes, made the active context while the tool runs (context.with under AsyncLocalStorage) and ended; the SDK's own work (ids, the span object, the processor) is most of it.`,
        "The async-hooks context manager is registered for every row (an SDK setup registers it for the whole process), so the tracer: false row pays what it costs every promise, as the traced rows do.",
      ],
    };
  },
};

export default workload;
