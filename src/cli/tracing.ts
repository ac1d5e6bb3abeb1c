/**
 * Exporting the spans of `plan-refs run` and `plan-refs worker` the standard way: when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or `OTEL_TRACES_EXPORTER` is
 * set, the command registers an OpenTelemetry SDK for its process (the command line is an application;
 * the library registers nothing) and exports over OTLP/HTTP, configured by the standard `OTEL_*`
 * variables that the exporter reads itself (`OTEL_TRACES_EXPORTER=console` writes each span as one JSON
 * line on stderr instead: stdout keeps the command's own output, a report a script may read).
 * `--trace-file FILE` (on `run`, `worker` and `mcp serve`) writes the same JSON lines to a file, and
 * nothing else there, with or without the variables (besides the exporters they ask for).
 * The SDK packages are not plan-refs' dependencies: when they are missing, one line says what to
 * install and the command runs untraced (with `--trace-file`, a usage error before anything runs). With
 * none of the variables set and no file, nothing is loaded or printed.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { ownData } from "../shared/own-data.js";
import { cutText, printable } from "../shared/text.js";
import { CliError } from "./input.js";
import type { CommandIo } from "./io.js";
import { checkResultsTarget, type GuardedFile, type ResultsTarget } from "./results-file.js";

/** What the command line loads to export spans, and what it asks to install when they are missing. */
export const TRACING_PACKAGES = [
  "@opentelemetry/api",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/context-async-hooks",
  "@opentelemetry/exporter-trace-otlp-http",
] as const;

/** The exporters `OTEL_TRACES_EXPORTER` may name here (a comma-separated list, as the specification has it). */
const EXPORTERS = ["otlp", "console", "none"] as const;

/** How long the command waits, at its end, for the last spans to be sent (the exporter has its own timeout too). */
const SHUTDOWN_MS = 15_000;

/** A command's tracing, set up: `shutdown` sends what is left (bounded in time) and never throws. */
export interface CliTracing {
  shutdown(): Promise<void>;
}

interface SdkModules {
  readonly api: {
    context: { setGlobalContextManager(manager: unknown): unknown; disable(): void };
    trace: { setGlobalTracerProvider(provider: unknown): unknown; disable(): void };
  };
  readonly base: {
    BasicTracerProvider: new (config: { spanProcessors: unknown[] }) => { shutdown(): Promise<void> };
    BatchSpanProcessor: new (exporter: unknown) => unknown;
    SimpleSpanProcessor: new (exporter: unknown) => unknown;
  };
  readonly hooks: { AsyncLocalStorageContextManager: new () => { enable(): unknown } };
  readonly otlp: { OTLPTraceExporter: new () => unknown };
}

/** Where `--trace-file` writes: the file as given, and how to open it (emptied) once the SDK is there. */
export interface TraceFile {
  readonly given: string;
  open(): number;
}

/**
 * Set up span export for a command from its environment and its `--trace-file`, or `undefined` when
 * there is nothing to do (no variable set or `OTEL_TRACES_EXPORTER=none`, and no file; the packages
 * missing: then `warn` gets one line, or, for a trace file, a `CliError` before anything runs).
 *
 * @example
 * const tracing = await startCliTracing(process.env, (line) => process.stderr.write(line)); // … await tracing?.shutdown()
 */
export async function startCliTracing(
  env: Readonly<Record<string, string | undefined>>,
  warn: (line: string) => void,
  traceFile?: TraceFile,
): Promise<CliTracing | undefined> {
  const endpoint = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const named = nonEmpty(env.OTEL_TRACES_EXPORTER);
  let exporters =
    endpoint === undefined && named === undefined ? [] : (named ?? "otlp").split(",").map((name) => name.trim().toLowerCase());
  const unknown = exporters.find((name) => !(EXPORTERS as readonly string[]).includes(name));
  if (unknown !== undefined) {
    warn(
      `plan-refs: OTEL_TRACES_EXPORTER ${JSON.stringify(cutText(unknown, 40))} is not one plan-refs can export to (${EXPORTERS.join(", ")}); no spans are exported${traceFile === undefined ? "" : " but to --trace-file"}\n`,
    );
    exporters = [];
  }
  if (exporters.includes("none")) exporters = [];
  if (exporters.length === 0 && traceFile === undefined) return undefined;
  const modules = await loadSdk();
  if (modules === undefined) {
    if (traceFile !== undefined)
      throw new CliError(
        `--trace-file ${printable(traceFile.given)}: writing spans needs the OpenTelemetry SDK, which is not installed: npm install ${TRACING_PACKAGES.join(" ")}; nothing was run`,
        "missing-sdk",
      );
    const variable = named !== undefined ? "OTEL_TRACES_EXPORTER" : "OTEL_EXPORTER_OTLP_ENDPOINT";
    warn(
      `plan-refs: ${variable} is set, but the OpenTelemetry SDK is not installed; to export spans: npm install ${TRACING_PACKAGES.join(" ")}\n`,
    );
    return undefined;
  }
  const file = traceFile === undefined ? undefined : fileExporter(traceFile, warn);
  const { api, base, hooks, otlp } = modules;
  const processors = exporters.map((name) =>
    name === "console"
      ? new base.SimpleSpanProcessor(lineExporter((line) => warn(printable(line.slice(0, -1)) + "\n")))
      : new base.BatchSpanProcessor(new otlp.OTLPTraceExporter()),
  );
  // Each span is written as it ends: what ran before a crash or a second signal is in the file.
  if (file !== undefined) processors.push(new base.SimpleSpanProcessor(file));
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

/** A time as the SDK keeps it: seconds and nanoseconds. */
type HrTime = readonly [number, number];

/** What the exporters write of a span (the SDK's `ReadableSpan` fits). */
interface FinishedSpan {
  readonly name: string;
  readonly kind: number;
  spanContext(): { traceId: string; spanId: string };
  readonly parentSpanContext?: { spanId: string } | undefined;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly status: { code: number; message?: string };
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly events: readonly { name: string; time: HrTime; attributes?: Readonly<Record<string, unknown>> }[];
  readonly links: readonly { context: { traceId: string; spanId: string }; attributes?: Readonly<Record<string, unknown>> }[];
  readonly duration: HrTime;
}

/** The API's `SpanKind` values by number, and `SpanStatusCode`'s. */
const SPAN_KINDS = ["INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"] as const;
const STATUS_CODES = ["UNSET", "OK", "ERROR"] as const;

/** A time as nanoseconds since the epoch, a decimal string (OTLP's JSON writes 64-bit integers so). */
function unixNano([seconds, nanos]: HrTime): string {
  return (BigInt(seconds) * 1_000_000_000n + BigInt(nanos)).toString();
}

/**
 * One finished span as the JSON object both span writers write (`OTEL_TRACES_EXPORTER=console` on
 * stderr, `--trace-file`): its ids, kind, times (nanoseconds since the epoch, as OTLP's JSON has them,
 * and the duration in milliseconds), status, attributes, events and links.
 */
function spanRecord(span: FinishedSpan): Record<string, unknown> {
  const { traceId, spanId } = span.spanContext();
  return {
    name: span.name,
    traceId,
    spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    kind: SPAN_KINDS[span.kind] ?? String(span.kind),
    startTimeUnixNano: unixNano(span.startTime),
    endTimeUnixNano: unixNano(span.endTime),
    durationMs: span.duration[0] * 1e3 + span.duration[1] / 1e6,
    status: {
      code: STATUS_CODES[span.status.code] ?? String(span.status.code),
      ...(span.status.message === undefined ? {} : { message: span.status.message }),
    },
    attributes: span.attributes,
    events: span.events.map((event) => ({ name: event.name, timeUnixNano: unixNano(event.time), attributes: event.attributes ?? {} })),
    links: span.links.map((link) => ({ traceId: link.context.traceId, spanId: link.context.spanId, attributes: link.attributes ?? {} })),
  };
}

/** An exporter that writes each span as one line of JSON with `write` (which may escape it for a terminal). */
function lineExporter(
  write: (line: string) => void,
  onShutdown: () => void = () => undefined,
): { export(spans: FinishedSpan[], done: (result: { code: number }) => void): void; shutdown(): Promise<void> } {
  return {
    export(spans, done) {
      for (const span of spans) write(`${JSON.stringify(spanRecord(span))}\n`);
      done({ code: 0 });
    },
    shutdown: () => Promise.resolve(onShutdown()),
  };
}

/** The `--trace-file` exporter: one line a span, written as it ends; a failed write is said once and the rest dropped. */
function fileExporter(traceFile: TraceFile, warn: (line: string) => void): ReturnType<typeof lineExporter> {
  const fd = traceFile.open();
  let failed = false;
  const write = (line: string): void => {
    if (failed) return;
    try {
      writeSync(fd, line);
    } catch (error) {
      failed = true;
      warn(
        `plan-refs: --trace-file ${printable(traceFile.given)}: cannot write (${printable(systemCode(error))}); the spans after this one are not written\n`,
      );
    }
  };
  let closed = false;
  return lineExporter(write, () => {
    if (closed) return;
    closed = true;
    closeSync(fd);
  });
}

/** The `--trace-file` flag of the commands that run plans (`run`, `worker`, `mcp serve`). */
export const TRACE_FILE_FLAG = { "trace-file": { type: "string" } } as const;

/** Its help lines, one home for the three commands. */
export const TRACE_FILE_HELP = `  --trace-file FILE     write each finished span to FILE, one JSON object a line and nothing else:
                        name, traceId, spanId, parentSpanId, kind, startTimeUnixNano,
                        endTimeUnixNano, durationMs, status, attributes, events, links. FILE is
                        emptied first (or made); progress stays on stderr. Needs the OpenTelemetry
                        SDK packages (${TRACING_PACKAGES.join(", ")})`;

/**
 * Run a command's work with its spans exported as its environment (`OTEL_*`) and `--trace-file` ask,
 * the exporters shut down (the last spans sent, the file closed) when it ends. The file is checked as
 * every file the command line writes (`guarded`: the command's inputs, which it may not replace;
 * `outputs`: the files it writes, which it may not be) and opened, emptied, before anything runs.
 *
 * @example
 * return withCliTracing(io, values["trace-file"], [{ path: "plan.json", role: "the plan" }], () => runIt())
 */
export async function withCliTracing<T>(
  io: CommandIo,
  traceFile: string | undefined,
  guarded: readonly GuardedFile[],
  body: () => Promise<T>,
  outputs: readonly { readonly target: ResultsTarget; readonly role: string }[] = [],
): Promise<T> {
  const target = traceFile === undefined ? undefined : checkResultsTarget(traceFile, io.cwd, guarded, "--trace-file");
  // Files the command writes later may not exist yet: the same path is refused by name.
  const clash = target === undefined ? undefined : outputs.find((output) => output.target.path === target.path);
  if (target !== undefined && clash !== undefined)
    throw new CliError(
      `--trace-file ${printable(target.given)}: is ${clash.role}; write the spans to another file; nothing was run`,
      "results-target",
    );
  const file: TraceFile | undefined =
    target === undefined
      ? undefined
      : {
          given: target.given,
          open: () => {
            try {
              return openSync(target.path, "w");
            } catch (error) {
              throw new CliError(
                `--trace-file ${printable(target.given)}: cannot open it for writing (${printable(systemCode(error))}); nothing was run`,
                "write-failed",
              );
            }
          },
        };
  const tracing = await startCliTracing(io.env, io.stderr, file);
  try {
    return await body();
  } finally {
    await tracing?.shutdown();
  }
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

/** The system's code of a failed file operation (`ENOSPC`, `EACCES`…), or "error" when it gave none. */
function systemCode(error: unknown): string {
  const code = ownData(error, "code");
  return typeof code === "string" ? code : "error";
}
