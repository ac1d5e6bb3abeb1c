/**
 * The executors' options, read and checked in one place: `runPlan`, `submitPlan` and the PostgreSQL
 * workers (`startWorker`) read every duration, count, signal and callback with these readers, under one
 * read policy and with one set of messages, so that a value one of them refuses the others refuse too.
 *
 * The read policy: an options object is the caller's own code, not data from a planner, so each option
 * is read once, as a property read (a getter runs once, here), when the entry point starts; what the
 * options carry (the tools object, a catalog) is data, read by own data properties only
 * (`src/shared/own-data.ts`). A bad value is refused with code `invalid-options`, built by the entry
 * point's own error class (`RefError` for `runPlan` and `submitPlan`, `PostgresError` for the workers).
 */
import type { ToolCatalog } from "../plan/plan.js";
import type { ResolveOptions } from "../shared/options.js";
import type { ToolFunction } from "./attempt.js";
import type { StepError } from "./step-error.js";
import { asRefError, RefError } from "../shared/errors.js";
import { layeredOptions, OPTION_NAMES, type OptionName } from "../shared/options.js";
import { ownData } from "../shared/own-data.js";

/**
 * The longest finite `timeoutMs`: 2^31 − 1 ms (about 24.8 days), the most a timer can wait (Node and
 * browsers fire a longer timer after 1 ms). Longer finite values are refused (`invalid-options`);
 * `Infinity` means no limit.
 *
 * @example
 * await runPlan(plan, tools, { timeoutMs: Math.min(hours * 3_600_000, MAX_TIMEOUT_MS) })
 */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** Tools by name. */
export type ToolFunctions = Readonly<Record<string, ToolFunction>>;

/** Progress of a run, as it happens. Times are milliseconds since the run started. */
export type RunEvent =
  | { readonly type: "step-start"; readonly stepId: number; readonly tool: string; readonly startMs: number }
  | { readonly type: "step-done"; readonly stepId: number; readonly tool: string; readonly startMs: number; readonly endMs: number; readonly durationMs: number }
  | { readonly type: "step-failed"; readonly stepId: number; readonly tool: string; readonly error: StepError; readonly startMs: number; readonly endMs: number; readonly durationMs: number }
  | { readonly type: "step-skipped"; readonly stepId: number; readonly tool: string; readonly blockedBy: number; readonly atMs: number };

/**
 * Options of `runPlan`. Each is read once, when the run starts. The language options (`syntax`,
 * `templates`, `strict`, `deep` and the limits) layer over the plan's own `options` as everywhere
 * (`layerOptions`) and reach the linter, the argument snapshots and the resolver.
 */
export interface RunOptions extends ResolveOptions {
  /** Most tools running at once (default 8). */
  readonly concurrency?: number;
  /**
   * A step running longer than this fails with code `timeout` and its signal is aborted. Default and
   * `Infinity`: no limit. At most `MAX_TIMEOUT_MS` (2^31 − 1) when finite, else `invalid-options`.
   */
  readonly timeoutMs?: number;
  /** Stop at the first failure: no new step starts and running steps are aborted (default `false`). */
  readonly failFast?: boolean;
  /** Abort the run: no new step starts, running tools see the abort, the report says `aborted`. */
  readonly signal?: AbortSignal;
  /** The tool catalog (else the plan's inline `tools`): used by the linter and by `validateOutputs`. */
  readonly catalog?: ToolCatalog;
  /** Fail a step whose result does not match its tool's output schema (default `false`). */
  readonly validateOutputs?: boolean;
  /** Fail a step whose resolved arguments do not match its tool's input schema, without calling it (`invalid-input`; default `false`). */
  readonly validateInputs?: boolean;
  /** Called for every step event. What it throws or rejects with is ignored. */
  readonly onEvent?: (event: RunEvent) => void;
}

/** Builds the error an entry point throws for an option it refuses (its code is always `invalid-options`). */
export type RefuseOption = (message: string) => Error;

/** `runPlan`'s and `submitPlan`'s refusal: a `RefError` with code `invalid-options`. */
export const refuseWithRefError: RefuseOption = (message) => new RefError("invalid-options", message);

/** The one set of messages for an option that is refused. */
export const OPTION_MESSAGES = {
  positiveInteger: (name: string) => `option ${name} must be a positive integer`,
  duration: (name: string, infinity: boolean) => (infinity ? `option ${name} must be a positive number of milliseconds (or Infinity for no limit)` : `option ${name} must be a positive number of milliseconds`),
  tooLong: (name: string, infinity: boolean) => `option ${name} must be at most ${MAX_TIMEOUT_MS} ms (about 24.8 days)${infinity ? ", or Infinity for no limit" : ""}`,
  signal: (name: string) => `option ${name} must be an AbortSignal`,
  callback: (name: string) => `option ${name} must be a function`,
  tools: (name: string) => `option ${name} must be an object of tool functions`,
} as const;

/**
 * One option, read once under the read policy (a property read; a getter runs here). A getter or a
 * Proxy trap that throws is a `RefError` with code `access` that names the option.
 *
 * @example
 * readOption({ timeoutMs: 5 }, "timeoutMs") // 5
 */
export function readOption(options: object, name: string): unknown {
  try {
    return (options as Record<string, unknown>)[name];
  } catch (error) {
    throw asRefError(error, `option ${name}`);
  }
}

/**
 * A duration in milliseconds: a positive number, at most `MAX_TIMEOUT_MS` (a timer waits no longer);
 * `Infinity` only where it means "no limit" (`infinity`), and then read as `undefined`. Absent: `fallback`.
 *
 * @example
 * readDuration(Infinity, "timeoutMs", true, undefined) // undefined (no limit)
 * readDuration(2 ** 31, "timeoutMs", true, undefined)  // throws invalid-options: at most 2147483647 ms
 */
export function readDuration<F extends number | undefined>(value: unknown, name: string, infinity: boolean, fallback: F, refuse: RefuseOption = refuseWithRefError): number | F {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0)) throw refuse(OPTION_MESSAGES.duration(name, infinity));
  if (value === Infinity && infinity) return undefined as F;
  if (value > MAX_TIMEOUT_MS) throw refuse(OPTION_MESSAGES.tooLong(name, infinity));
  return value;
}

/**
 * A count: a positive integer (absent: `fallback`).
 *
 * @example
 * readPositiveInteger(undefined, "concurrency", 8) // 8
 */
export function readPositiveInteger(value: unknown, name: string, fallback: number, refuse: RefuseOption = refuseWithRefError): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) throw refuse(OPTION_MESSAGES.positiveInteger(name));
  return value;
}

/**
 * An `AbortSignal`, or anything that listens like one (a signal from another realm); absent: `undefined`.
 *
 * @example
 * readSignal(new AbortController().signal, "signal") // the signal
 */
export function readSignal(value: unknown, name: string, refuse: RefuseOption = refuseWithRefError): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null) throw refuse(OPTION_MESSAGES.signal(name));
  const target = value as { addEventListener?: unknown; removeEventListener?: unknown };
  if (typeof target.addEventListener !== "function" || typeof target.removeEventListener !== "function") throw refuse(OPTION_MESSAGES.signal(name));
  return value as AbortSignal;
}

/**
 * A callback (`onEvent`); absent: `undefined`.
 *
 * @example
 * readCallback(console.log, "onEvent") // console.log
 */
export function readCallback<F extends (...args: never[]) => unknown>(value: unknown, name: string, refuse: RefuseOption = refuseWithRefError): F | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "function") throw refuse(OPTION_MESSAGES.callback(name));
  return value as F;
}

/** A flag: on only when it is `true` (anything else is off, as before). */
function readFlag(value: unknown): boolean {
  return value === true;
}

/** The caller's language options (the names set), each read once and checked now, before a plan is read. */
function readLanguage(options: object): Partial<Record<OptionName, unknown>> {
  const language: Partial<Record<OptionName, unknown>> = {};
  for (const name of OPTION_NAMES) {
    const value = readOption(options, name);
    if (value !== undefined) language[name] = value;
  }
  layeredOptions(undefined, language); // a bad language option is refused now, before the plan is read
  return language;
}

/** What a run keeps of its options, in the process (`runPlan`) or in the database (`submitPlan`). */
export interface RunOptionValues {
  /** `undefined`: no limit (absent, or `Infinity`). */
  readonly timeoutMs: number | undefined;
  readonly failFast: boolean;
  readonly validateOutputs: boolean;
  readonly validateInputs: boolean;
  readonly catalog: ToolCatalog | undefined;
  /** The caller's language options as read once (the names set, checked); layered over the plan's when it is read. */
  readonly language: Readonly<Partial<Record<OptionName, unknown>>>;
}

/**
 * The options of a run, as `runPlan` and `submitPlan` read them (same values accepted, same codes).
 *
 * @example
 * readRunOptions({ timeoutMs: 60_000, failFast: true }).timeoutMs // 60000
 */
export function readRunOptions(options: object): RunOptionValues {
  const timeoutMs = readDuration(readOption(options, "timeoutMs"), "timeoutMs", true, undefined);
  const failFast = readFlag(readOption(options, "failFast"));
  const catalog = readOption(options, "catalog") as ToolCatalog | undefined;
  const validateOutputs = readFlag(readOption(options, "validateOutputs"));
  const validateInputs = readFlag(readOption(options, "validateInputs"));
  return { timeoutMs, failFast, validateOutputs, validateInputs, catalog, language: readLanguage(options) };
}

/** `runPlan`'s options, read once and checked. */
export interface RunSettings extends RunOptionValues {
  readonly concurrency: number;
  readonly signal: AbortSignal | undefined;
  readonly onEvent: ((event: RunEvent) => unknown) | undefined;
}

/** The default `concurrency` of `runPlan` and of a worker. */
export const DEFAULT_CONCURRENCY = 8;

/**
 * `runPlan`'s options: the run's, and what belongs to the process (concurrency, signal, listener).
 *
 * @example
 * readRunSettings({ concurrency: 2 }).concurrency // 2
 */
export function readRunSettings(options: object): RunSettings {
  // The order the options were always read in (a getter sees the same sequence).
  const concurrency = readOption(options, "concurrency");
  const run = readRunOptions(options);
  const signal = readOption(options, "signal");
  const onEvent = readOption(options, "onEvent");
  return {
    ...run,
    concurrency: readPositiveInteger(concurrency ?? undefined, "concurrency", DEFAULT_CONCURRENCY),
    signal: readSignal(signal, "signal"),
    onEvent: readCallback<(event: RunEvent) => unknown>(onEvent, "onEvent"),
  };
}

/**
 * The default `recoveryMs`: a worker silent for 30 s is taken for dead.
 *
 * @example
 * await startWorker({ tools, recoveryMs: DEFAULT_RECOVERY_MS / 3 }) // steps of a dead worker resume after 10 s
 */
export const DEFAULT_RECOVERY_MS = 30_000;

/** The default `graceMs`: running steps may go on for 5 s when a worker stops. */
export const DEFAULT_GRACE_MS = 5_000;

/** How long after `graceMs` a stopping worker kills its runner if stopping has not finished. */
const FORCE_STOP_MARGIN_MS = 5_000;

/** A worker's options, read once and checked. */
export interface WorkerSettings<F, E> {
  /** The tools by name (own data properties that are functions). */
  readonly tools: Map<string, F>;
  readonly concurrency: number;
  readonly recoveryMs: number;
  /** `undefined`: no limit (absent, or `Infinity`). */
  readonly timeoutMs: number | undefined;
  readonly graceMs: number;
  /** When a stopping worker kills its runner: `graceMs` and a margin, never past what a timer can wait. */
  readonly forceStopMs: number;
  readonly signal: AbortSignal | undefined;
  readonly onEvent: ((event: E) => void) | undefined;
}

/**
 * `startWorker`'s options, with the same readers (and so the same accepted values) as `runPlan`'s;
 * `refuse` builds the worker's error class.
 *
 * @example
 * readWorkerSettings({ tools: { echo: (args) => args }, recoveryMs: 10_000 }, (message) => new PostgresError("invalid-options", `startWorker: ${message}`))
 */
export function readWorkerSettings<F, E>(options: object, refuse: RefuseOption): WorkerSettings<F, E> {
  const tools = readOption(options, "tools");
  if (typeof tools !== "object" || tools === null) throw refuse(OPTION_MESSAGES.tools("tools"));
  const map = new Map<string, F>();
  for (const name of Object.keys(tools)) {
    const fn = ownData(tools, name);
    if (typeof fn === "function") map.set(name, fn as F);
  }
  const graceMs = readDuration(readOption(options, "graceMs"), "graceMs", false, DEFAULT_GRACE_MS, refuse);
  return {
    tools: map,
    concurrency: readPositiveInteger(readOption(options, "concurrency"), "concurrency", DEFAULT_CONCURRENCY, refuse),
    recoveryMs: readDuration(readOption(options, "recoveryMs"), "recoveryMs", false, DEFAULT_RECOVERY_MS, refuse),
    timeoutMs: readDuration(readOption(options, "timeoutMs"), "timeoutMs", true, undefined, refuse),
    graceMs,
    forceStopMs: Math.min(graceMs + FORCE_STOP_MARGIN_MS, MAX_TIMEOUT_MS),
    signal: readSignal(readOption(options, "signal"), "signal", refuse),
    onEvent: readCallback<(event: E) => void>(readOption(options, "onEvent"), "onEvent", refuse),
  };
}
