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
 *
 * What is here is what both executors read; `runPlan`'s own options (its process: concurrency, signal,
 * listener, tracer, session) are in src/run/run-options.ts, a worker's in src/postgres/worker-settings.ts.
 */
import type { ToolCatalog } from "../plan/plan.js";
import type { ResolveOptions } from "../shared/options.js";
import { asRefError, RefError } from "../shared/errors.js";
import { quoted, safeText } from "../shared/text.js";
import { layeredOptions, OPTION_NAMES, type OptionName } from "../shared/options.js";
import { isPlainArray, isPlainObject, MISSING, ownDataEntries, ownElements, readOwnData } from "../shared/own-data.js";
import {
  RETRY_DEFAULTS,
  RETRYABLE_CODES,
  resolveRetryPolicy,
  type ResolvedRetryPolicy,
  type RetryableCode,
  type RetryPolicy,
} from "./retry.js";

/**
 * The longest finite `timeoutMs`: 2^31 − 1 ms (about 24.8 days), the most a timer can wait (Node and
 * browsers fire a longer timer after 1 ms). Longer finite values are refused (`invalid-options`);
 * `Infinity` means no limit.
 *
 * @example
 * await runPlan(plan, tools, { timeoutMs: Math.min(hours * 3_600_000, MAX_TIMEOUT_MS) })
 */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The options of a run that both executors read with the same rules: `runPlan` applies them in the
 * process and `submitPlan` stores them with the run for the workers. `RunOptions` (`runPlan`) adds
 * what belongs to the process running the plan.
 */
export interface RunRuleOptions extends ResolveOptions {
  /**
   * A step running longer than this fails with code `timeout` and its signal is aborted. Default and
   * `Infinity`: no limit. At most `MAX_TIMEOUT_MS` (2^31 − 1) when finite, else `invalid-options`.
   */
  readonly timeoutMs?: number;
  /** Stop at the first failure: no new step starts and running steps are aborted (default `false`). */
  readonly failFast?: boolean;
  /** The tool catalog (else the plan's inline `tools`): used by the linter and by `validateOutputs`. */
  readonly catalog?: ToolCatalog;
  /** Fail a step whose result does not match its tool's output schema (default `false`). */
  readonly validateOutputs?: boolean;
  /** Fail a step whose resolved arguments do not match its tool's input schema, without calling it (`invalid-input`; default `false`). */
  readonly validateInputs?: boolean;
  /** How a failed step is tried again (default: it is not). `timeoutMs` applies to each try. */
  readonly retry?: RetryPolicy;
  /** A tool's own policy, replacing `retry` for that tool. */
  readonly retryByTool?: Readonly<Record<string, RetryPolicy>>;
  /** The run's id, in the report and in every idempotency key (`runId:stepId`); default a random UUID. */
  readonly runId?: string;
  /** The tools whose every step waits for approval, as data (`--approve-tool NAME`); with `needsApproval`, either asks. */
  readonly approvalTools?: readonly string[];
}

/** Builds the error an entry point throws for an option it refuses (its code is always `invalid-options`). */
export type RefuseOption = (message: string) => Error;

/** `runPlan`'s and `submitPlan`'s refusal: a `RefError` with code `invalid-options`. */
export const refuseWithRefError: RefuseOption = (message) => new RefError("invalid-options", message);

/** The one set of messages for an option that is refused. */
export const OPTION_MESSAGES = {
  positiveInteger: (name: string) => `option ${name} must be a positive integer`,
  duration: (name: string, infinity: boolean) =>
    infinity
      ? `option ${name} must be a positive number of milliseconds (or Infinity for no limit)`
      : `option ${name} must be a positive number of milliseconds`,
  tooLong: (name: string, infinity: boolean) =>
    `option ${name} must be at most ${MAX_TIMEOUT_MS} ms (about 24.8 days)${infinity ? ", or Infinity for no limit" : ""}`,
  signal: (name: string) => `option ${name} must be an AbortSignal`,
  callback: (name: string) => `option ${name} must be a function`,
  tools: (name: string) => `option ${name} must be an object of tool functions`,
  object: (name: string, what: string) => `option ${name} must be ${what}`,
  milliseconds: (name: string) => `option ${name} must be a number of milliseconds from 0 to ${MAX_TIMEOUT_MS}`,
  factor: (name: string) => `option ${name} must be a finite number of at least 1`,
  choice: (name: string, allowed: readonly string[]) =>
    `option ${name} must be one of ${allowed.map((value) => JSON.stringify(value)).join(", ")}`,
  codes: (name: string, allowed: readonly string[]) =>
    `option ${name} must be an array of step error codes among ${allowed.map((value) => JSON.stringify(value)).join(", ")}`,
  runId: (name: string) => `option ${name} must be 1 to ${MAX_RUN_ID_LENGTH} printable ASCII characters without spaces`,
  between: (label: string, bounds: SettingBounds, value: unknown) =>
    `${label} must be an integer from ${bounds.min} to ${bounds.max}, not ${shownValue(value)}`,
  names: (name: string) => `option ${name} must be an array of tool names (strings)`,
  limits: (name: string) => `option ${name} must be an object of call limits by tool name (positive integers)`,
} as const;

/** A refused value as a message shows it: a number as written, a string quoted and cut short, else its type. */
function shownValue(value: unknown): string {
  return typeof value === "number" ? String(value) : typeof value === "string" ? quoted(value, 20) : typeof value;
}

/** The longest `runId` accepted (it is part of every idempotency key). */
export const MAX_RUN_ID_LENGTH = 200;

/**
 * A run id, the one rule of `runPlan` and `submitPlan`: 1 to `MAX_RUN_ID_LENGTH` printable ASCII
 * characters without spaces (it is a database key, part of every idempotency key and of the lines
 * the command line prints, where a control character or a look-alike would mislead).
 */
export const RUN_ID_PATTERN = new RegExp(`^[\\x21-\\x7e]{1,${MAX_RUN_ID_LENGTH}}$`);

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
export function readDuration<F extends number | undefined>(
  value: unknown,
  name: string,
  infinity: boolean,
  fallback: F,
  refuse: RefuseOption = refuseWithRefError,
): number | F {
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
  if (typeof target.addEventListener !== "function" || typeof target.removeEventListener !== "function")
    throw refuse(OPTION_MESSAGES.signal(name));
  return value as AbortSignal;
}

/**
 * A callback (`onEvent`); absent: `undefined`.
 *
 * @example
 * readCallback(console.log, "onEvent") // console.log
 */
export function readCallback<F extends (...args: never[]) => unknown>(
  value: unknown,
  name: string,
  refuse: RefuseOption = refuseWithRefError,
): F | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "function") throw refuse(OPTION_MESSAGES.callback(name));
  return value as F;
}

/** A wait in milliseconds that may be 0 (a backoff's delays): a number from 0 to `MAX_TIMEOUT_MS`; absent: `undefined`. */
function readDelay(value: unknown, name: string, refuse: RefuseOption): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !(value >= 0) || value > MAX_TIMEOUT_MS) throw refuse(OPTION_MESSAGES.milliseconds(name));
  return value;
}

/**
 * A retry policy (own data properties only, each field checked; `invalid-options` names the field),
 * with its defaults filled in; absent: `undefined`.
 *
 * @example
 * readRetryPolicy({ attempts: 3, jitter: "none" }, "retry")?.initialDelayMs // 1000
 * readRetryPolicy({ attempts: 3, retryOn: ["aborted"] }, "retry") // throws invalid-options: option retry.retryOn must be …
 */
export function readRetryPolicy(value: unknown, name: string, refuse: RefuseOption = refuseWithRefError): ResolvedRetryPolicy | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value))
    throw refuse(
      OPTION_MESSAGES.object(
        name,
        "a retry policy: an object with attempts, and optionally initialDelayMs, factor, maxDelayMs, jitter, retryOn",
      ),
    );
  const field = (key: string): unknown => {
    const read = readOwnData(value, key);
    return read === MISSING ? undefined : read;
  };
  const attempts = readPositiveInteger(field("attempts"), `${name}.attempts`, RETRY_DEFAULTS.attempts, refuse);
  const initialDelayMs = readDelay(field("initialDelayMs"), `${name}.initialDelayMs`, refuse);
  const maxDelayMs = readDelay(field("maxDelayMs"), `${name}.maxDelayMs`, refuse);
  const factor = field("factor");
  if (factor !== undefined && (typeof factor !== "number" || !(factor >= 1) || factor === Infinity))
    throw refuse(OPTION_MESSAGES.factor(`${name}.factor`));
  const jitter = field("jitter");
  if (jitter !== undefined && jitter !== "full" && jitter !== "none")
    throw refuse(OPTION_MESSAGES.choice(`${name}.jitter`, ["full", "none"]));
  const retryOn = field("retryOn");
  if (
    retryOn !== undefined &&
    (!isPlainArray(retryOn) ||
      retryOn.length > RETRYABLE_CODES.length ||
      !ownElements(retryOn).every(([code]) => (RETRYABLE_CODES as readonly unknown[]).includes(code)))
  ) {
    throw refuse(OPTION_MESSAGES.codes(`${name}.retryOn`, RETRYABLE_CODES));
  }
  return resolveRetryPolicy({
    attempts,
    ...(initialDelayMs === undefined ? {} : { initialDelayMs }),
    ...(maxDelayMs === undefined ? {} : { maxDelayMs }),
    ...(factor === undefined ? {} : { factor: factor }),
    ...(jitter === undefined ? {} : { jitter: jitter }),
    ...(retryOn === undefined ? {} : { retryOn: ownElements(retryOn).map(([code]) => code as RetryableCode) }),
  });
}

/**
 * Policies by tool name (own data properties only), each read as `readRetryPolicy`.
 *
 * @example
 * readRetryByTool({ geocode: { attempts: 5 } }, "retryByTool")?.get("geocode")?.attempts // 5
 */
export function readRetryByTool(
  value: unknown,
  name: string,
  refuse: RefuseOption = refuseWithRefError,
): Map<string, ResolvedRetryPolicy> | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw refuse(OPTION_MESSAGES.object(name, "an object of retry policies by tool name"));
  const policies = new Map<string, ResolvedRetryPolicy>();
  for (const [tool, policy] of ownDataEntries(value)) policies.set(tool, readRetryPolicy(policy, `${name}.${tool}`, refuse)!);
  return policies;
}

/**
 * Limits of calls at once by tool name (`toolConcurrency`): own data properties of a plain object, each
 * a positive integer (within `bounds` when given: a worker's, the same as its `concurrency`);
 * `invalid-options` names the field (`toolConcurrency.geocode`). Absent: `undefined`.
 *
 * @example
 * readToolConcurrency({ geocode: 2 }, "toolConcurrency")?.get("geocode") // 2
 * readToolConcurrency({ geocode: 0 }, "toolConcurrency") // throws invalid-options: option toolConcurrency.geocode must be a positive integer
 */
export function readToolConcurrency(
  value: unknown,
  name: string,
  refuse: RefuseOption = refuseWithRefError,
  bounds?: SettingBounds,
): ReadonlyMap<string, number> | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw refuse(OPTION_MESSAGES.limits(name));
  const limits = new Map<string, number>();
  for (const [tool, limit] of ownDataEntries(value)) {
    const field = `${name}.${safeText(tool, 40)}`;
    if (limit === undefined)
      throw refuse(
        bounds === undefined ? OPTION_MESSAGES.positiveInteger(field) : OPTION_MESSAGES.between(`option ${field}`, bounds, limit),
      );
    limits.set(tool, bounds === undefined ? readPositiveInteger(limit, field, 1, refuse) : readBounded(limit, field, bounds, 1, refuse));
  }
  return limits;
}

/**
 * Tools that run one call at a time across all workers (`serialTools`): own elements of a plain array,
 * each a string. Absent: `undefined`.
 *
 * @example
 * readSerialTools(["geocode"], "serialTools")?.has("geocode") // true
 * readSerialTools("geocode", "serialTools") // throws invalid-options: option serialTools must be an array of tool names (strings)
 */
export function readSerialTools(value: unknown, name: string, refuse: RefuseOption = refuseWithRefError): ReadonlySet<string> | undefined {
  return readToolNames(value, name, refuse);
}

/**
 * A run's id (`RUN_ID_PATTERN`; absent: a random UUID).
 *
 * @example
 * readRunId("trip-1", "runId") // "trip-1"
 * readRunId("trip 1", "runId") // throws invalid-options: option runId must be 1 to 200 printable ASCII characters without spaces
 */
export function readRunId(value: unknown, name: string, refuse: RefuseOption = refuseWithRefError): string {
  if (value === undefined) return globalThis.crypto.randomUUID();
  if (typeof value !== "string" || !RUN_ID_PATTERN.test(value)) throw refuse(OPTION_MESSAGES.runId(name));
  return value;
}

/**
 * A flag: on only when it is `true` (anything else is off, as before).
 *
 * @example
 * readFlag("yes") // false
 */
export function readFlag(value: unknown): boolean {
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

/**
 * A run's own `timeoutMs` as both executors keep it (in the process, and as JSON in the database): a
 * number of milliseconds; `NO_TIME_LIMIT` when the run asked for none (`Infinity`, which JSON cannot
 * hold); `undefined` (stored as `null`) when it gave none. `tryTimeoutMs` reads it.
 */
export type RunTimeout = number | typeof NO_TIME_LIMIT | undefined;

/** A run's `timeoutMs: Infinity`, as kept and stored: no limit, whatever the executor's default. */
export const NO_TIME_LIMIT = "none";

/**
 * A run's `timeoutMs`, read once: `Infinity` is `NO_TIME_LIMIT`, absent is `undefined`.
 *
 * @example
 * readRunTimeout(Infinity) // "none"
 * readRunTimeout(5_000)    // 5000
 */
export function readRunTimeout(value: unknown, refuse: RefuseOption = refuseWithRefError): RunTimeout {
  return value === Infinity ? NO_TIME_LIMIT : readDuration(value, "timeoutMs", true, undefined, refuse);
}

/**
 * The limit of each try of a run's step, the one rule of both executors: the run's own `timeoutMs`;
 * none when it asked for none (`Infinity`); else the executor's default (`runPlan`: none; a worker:
 * its own `timeoutMs`). `undefined`: no limit. Anything else stored (a run written by hand) is no
 * value of the run's: the default.
 *
 * @example
 * tryTimeoutMs(NO_TIME_LIMIT, 60_000) // undefined: the run asked for no limit
 * tryTimeoutMs(null, 60_000)          // 60000: the run gave none, the worker's default
 */
export function tryTimeoutMs(run: unknown, fallback: number | undefined): number | undefined {
  if (run === NO_TIME_LIMIT) return undefined;
  return typeof run === "number" && run > 0 && run <= MAX_TIMEOUT_MS ? run : fallback;
}

/** What a run keeps of its options, in the process (`runPlan`) or in the database (`submitPlan`). */
export interface RunOptionValues {
  /** The run's own limit of each try (`tryTimeoutMs` applies it). */
  readonly timeoutMs: RunTimeout;
  readonly failFast: boolean;
  readonly validateOutputs: boolean;
  readonly validateInputs: boolean;
  readonly catalog: ToolCatalog | undefined;
  /** The caller's language options as read once (the names set, checked); layered over the plan's when it is read. */
  readonly language: Readonly<Partial<Record<OptionName, unknown>>>;
  /** `undefined`: no tool waits for approval by name. */
  readonly approvalTools: ReadonlySet<string> | undefined;
}

/**
 * The options of a run, as `runPlan` and `submitPlan` read them (same values accepted, same codes).
 *
 * @example
 * readRunOptions({ timeoutMs: 60_000, failFast: true }).timeoutMs // 60000
 */
export function readRunOptions(options: object): RunOptionValues {
  const timeoutMs = readRunTimeout(readOption(options, "timeoutMs"));
  const failFast = readFlag(readOption(options, "failFast"));
  const catalog = readOption(options, "catalog") as ToolCatalog | undefined;
  const validateOutputs = readFlag(readOption(options, "validateOutputs"));
  const validateInputs = readFlag(readOption(options, "validateInputs"));
  const approvalTools = readToolNames(readOption(options, "approvalTools"), "approvalTools", refuseWithRefError);
  return { timeoutMs, failFast, validateOutputs, validateInputs, catalog, language: readLanguage(options), approvalTools };
}

/** A run's retry policies, as `runPlan` and `submitPlan` read them. */
export interface RetryOptionValues {
  /** The policy of every tool without its own (`undefined`: no retry). */
  readonly retry: ResolvedRetryPolicy | undefined;
  /** Policies by tool name, each replacing `retry` for its tool. */
  readonly retryByTool: ReadonlyMap<string, ResolvedRetryPolicy> | undefined;
}

/**
 * The retry policy of a tool in a run: its own (`retryByTool`), else the run's (`retry`); `undefined`:
 * a failed try fails its step. Both executors look a policy up with this.
 *
 * @example
 * retryPolicyOf(readRetryOptions({ retry: { attempts: 2 }, retryByTool: { geocode: { attempts: 5 } } }), "geocode")?.attempts // 5
 */
export function retryPolicyOf(values: RetryOptionValues, tool: string): ResolvedRetryPolicy | undefined {
  return values.retryByTool?.get(tool) ?? values.retry;
}

/**
 * The options `retry` and `retryByTool`, read once and checked (what `runPlan` applies in the process
 * and `submitPlan` stores with the run for the workers).
 *
 * @example
 * readRetryOptions({ retry: { attempts: 3 } }).retry?.attempts // 3
 */
export function readRetryOptions(options: object): RetryOptionValues {
  return {
    retry: readRetryPolicy(readOption(options, "retry"), "retry"),
    retryByTool: readRetryByTool(readOption(options, "retryByTool"), "retryByTool"),
  };
}

/** The default `concurrency` of `runPlan` and of a worker. */
export const DEFAULT_CONCURRENCY = 8;

/** A list of tool names (own elements of a plain array, each a string); absent: `undefined`. */
function readToolNames(value: unknown, name: string, refuse: RefuseOption): Set<string> | undefined {
  if (value === undefined) return undefined;
  if (!isPlainArray(value)) throw refuse(OPTION_MESSAGES.names(name));
  const names = new Set<string>();
  for (const [item] of ownElements(value)) {
    if (typeof item !== "string") throw refuse(OPTION_MESSAGES.names(name));
    names.add(item);
  }
  return names;
}

/** The range of an integer setting (both ends included). */
export interface SettingBounds {
  readonly min: number;
  readonly max: number;
}

/**
 * An integer within `bounds` (absent: `fallback`), refused with one line naming the range and the
 * value given. `label` is what the message names: `option recoveryMs` by default, a flag on the command line.
 *
 * @example
 * readBounded(2 ** 31, "recoveryMs", { min: 1_000, max: MAX_TIMEOUT_MS }, 30_000) // throws invalid-options: option recoveryMs must be an integer from 1000 to 2147483647, not 2147483648
 */
export function readBounded(
  value: unknown,
  name: string,
  bounds: SettingBounds,
  fallback: number,
  refuse: RefuseOption = refuseWithRefError,
  label = `option ${name}`,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < bounds.min || value > bounds.max)
    throw refuse(OPTION_MESSAGES.between(label, bounds, value));
  return value;
}
