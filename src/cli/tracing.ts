/**
 * Exporting the spans of `plan-refs run` and `plan-refs worker` the standard way: when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or `OTEL_TRACES_EXPORTER` is
 * set, the command registers an OpenTelemetry SDK for its process (the command line is an application;
 * the library registers nothing) and exports over OTLP/HTTP, configured by the standard `OTEL_*`
 * variables that the exporter reads itself (`OTEL_TRACES_EXPORTER=console` writes each span as one JSON
 * line on stderr instead: stdout keeps the command's own output, a report a script may read).
 * The SDK packages are not plan-refs' dependencies: when they are missing, one line says what to
 * install and the command runs untraced. With none of the variables set nothing is loaded or printed.
 */
import { cutText, printable } from "../shared/text.js";

/** What the command line loads to export spans, and what it asks to install when they are missing. */
export const TRACING_PACKAGES = ["@opentelemetry/api", "@opentelemetry/sdk-trace-base", "@opentelemetry/context-async-hooks", "@opentelemetry/exporter-trace-otlp-http"] as const;

/** The exporters `OTEL_TRACES_EXPORTER` may name here (a comma-separated list, as the specification has it). */
const EXPORTERS = ["otlp", "console", "none"] as const;

/** How long the command waits, at its end, for the last spans to be sent (the exporter has its own timeout too). */
const SHUTDOWN_MS = 15_000;

/** A command's tracing, set up: `shutdown` sends what is left (bounded in time) and never throws. */
export interface CliTracing {
  shutdown(): Promise<void>;
}

interface SdkModules {
  readonly api: { context: { setGlobalContextManager(manager: unknown): unknown; disable(): void }; trace: { setGlobalTracerProvider(provider: unknown): unknown; disable(): void } };
  readonly base: {
    BasicTracerProvider: new (config: { spanProcessors: unknown[] }) => { shutdown(): Promise<void> };
    BatchSpanProcessor: new (exporter: unknown) => unknown;
    SimpleSpanProcessor: new (exporter: unknown) => unknown;
  };
  readonly hooks: { AsyncLocalStorageContextManager: new () => { enable(): unknown } };
  readonly otlp: { OTLPTraceExporter: new () => unknown };
}

/**
 * Set up span export for a command from its environment, or `undefined` when there is nothing to do
 * (no variable set, `OTEL_TRACES_EXPORTER=none`, packages missing: then `warn` gets one line).
 *
 * @example
 * const tracing = await startCliTracing(process.env, (line) => process.stderr.write(line)); // … await tracing?.shutdown()
 */
export async function startCliTracing(env: Readonly<Record<string, string | undefined>>, warn: (line: string) => void): Promise<CliTracing | undefined> {
  const endpoint = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const named = nonEmpty(env.OTEL_TRACES_EXPORTER);
  if (endpoint === undefined && named === undefined) return undefined;
  const exporters = (named ?? "otlp").split(",").map((name) => name.trim().toLowerCase());
  const unknown = exporters.find((name) => !(EXPORTERS as readonly string[]).includes(name));
  if (unknown !== undefined) {
    warn(`plan-refs: OTEL_TRACES_EXPORTER ${JSON.stringify(cutText(unknown, 40))} is not one plan-refs can export to (${EXPORTERS.join(", ")}); no spans are exported\n`);
    return undefined;
  }
  if (exporters.includes("none")) return undefined;
  const modules = await loadSdk();
  if (modules === undefined) {
    const variable = named !== undefined ? "OTEL_TRACES_EXPORTER" : "OTEL_EXPORTER_OTLP_ENDPOINT";
    warn(`plan-refs: ${variable} is set, but the OpenTelemetry SDK is not installed; to export spans: npm install ${TRACING_PACKAGES.join(" ")}\n`);
    return undefined;
  }
  const { api, base, hooks, otlp } = modules;
  const processors = exporters.map((name) => (name === "console" ? new base.SimpleSpanProcessor(stderrExporter(warn)) : new base.BatchSpanProcessor(new otlp.OTLPTraceExporter())));
  const provider = new base.BasicTracerProvider({ spanProcessors: processors });
  api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  api.trace.setGlobalTracerProvider(provider);
  return {
    async shutdown() {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([provider.shutdown(), new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_MS)))]);
      } catch {
        // An exporter that fails at the end: the command's outcome stands.
      } finally {
        clearTimeout(timer);
        api.trace.disable();
        api.context.disable();
      }
    },
  };
}

/** What the console exporter writes of a span (the SDK's `ReadableSpan` fits). */
interface FinishedSpan {
  readonly name: string;
  spanContext(): { traceId: string; spanId: string };
  readonly parentSpanContext?: { spanId: string } | undefined;
  readonly status: { code: number; message?: string };
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly events: readonly { name: string; attributes?: Readonly<Record<string, unknown>> }[];
  readonly duration: readonly [number, number];
}

/** An exporter that writes each span as one line of JSON (escaped for a terminal) with `write`. */
function stderrExporter(write: (line: string) => void): { export(spans: FinishedSpan[], done: (result: { code: number }) => void): void; shutdown(): Promise<void> } {
  return {
    export(spans, done) {
      for (const span of spans) {
        const { traceId, spanId } = span.spanContext();
        const line = { name: span.name, traceId, spanId, parentSpanId: span.parentSpanContext?.spanId, durationMs: span.duration[0] * 1e3 + span.duration[1] / 1e6, status: span.status, attributes: span.attributes, events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })) };
        write(`${printable(JSON.stringify(line))}\n`);
      }
      done({ code: 0 });
    },
    shutdown: () => Promise.resolve(),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/** The SDK's packages, or `undefined` when one of them cannot be loaded. */
async function loadSdk(): Promise<SdkModules | undefined> {
  try {
    // Names in variables: these are optional packages, looked up when the command runs.
    const [api, base, hooks, otlp] = await Promise.all(TRACING_PACKAGES.map((name) => import(name) as Promise<unknown>));
    return { api, base, hooks, otlp } as unknown as SdkModules;
  } catch {
    return undefined;
  }
}
