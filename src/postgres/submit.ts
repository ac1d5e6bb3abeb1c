/**
 * `submitPlan`: reads and lints a plan exactly as `runPlan` does, stores it with a run row, and
 * enqueues the steps that depend on nothing, all in one statement (one round trip).
 */
import { readPlan, type LocatedStep } from "../plan/plan.js";
import {
  readOption,
  readRetryOptions,
  readRunId,
  readRunOptions,
  readSerialTools,
  type NO_TIME_LIMIT,
  type RetryOptionValues,
  type RunOptionValues,
  type RunRuleOptions,
} from "../step/settings.js";
import type { ResolvedRetryPolicy } from "../step/retry.js";
import { runStatus } from "../step/schedule.js";
import { preparePlan } from "../step/prepare.js";
import { activeTraceCarrier, type TraceCarrier } from "../step/tracing.js";
import { planText, sha256Hex, stepText } from "../step/plan-hash.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { asRefError, describeThrown, RefError } from "../shared/errors.js";
import { layeredOptions, type NormalizedOptions, type OptionName } from "../shared/options.js";
import { hasLoneSurrogate, quoted, safeText } from "../shared/text.js";
import { ownData } from "../shared/own-data.js";
import { databaseError, poolFor, readConnection, retryingConflicts, type Connection, type ConnectionOptions } from "./db.js";
import { storeRun, type NewStep } from "./sql/store-run.js";
import { RUNNING_RUN } from "./stored-states.js";

/** What a stored run keeps of `RunOptions`: the options that mean something to a run in the database. */
export type SubmitRunOptions = Pick<
  RunRuleOptions,
  "failFast" | "timeoutMs" | "catalog" | "validateOutputs" | "validateInputs" | "retry" | "retryByTool" | "approvalTools" | OptionName
> & {
  /**
   * Tools that run one call at a time across all workers (a rate-limited API): their steps wait in the
   * tool's queue (graphile-worker's named job queues), shared by every run that names the tool.
   */
  readonly serialTools?: readonly string[];
};

/** Options of `submitPlan`. */
export interface SubmitOptions extends ConnectionOptions {
  /** The run's options (the plan's own `options` give the language options, these override them). */
  readonly options?: SubmitRunOptions;
  /** The run's id (default: a random UUID). Submitting again with the same id changes nothing and returns it. */
  readonly runId?: string;
}

/** The options a run keeps in the database (JSON). */
export interface StoredRunOptions {
  readonly failFast: boolean;
  /** The run's own limit of each try (`tryTimeoutMs` reads it): `"none"` for no limit (`Infinity`); `null`: it gave none, the worker's `timeoutMs` applies. */
  readonly timeoutMs: number | typeof NO_TIME_LIMIT | null;
  readonly validateOutputs: boolean;
  /** Absent in runs stored before input checks existed: `false`. */
  readonly validateInputs?: boolean;
  /** The retry policy of every tool without its own, defaults filled in (absent: no retry). Workers reschedule a failed try by it. */
  readonly retry?: ResolvedRetryPolicy;
  /** Policies by tool name, each replacing `retry` for its tool. */
  readonly retryByTool?: Readonly<Record<string, ResolvedRetryPolicy>>;
  /** Tools whose steps run one at a time across all workers (absent: none). Every job of a step is queued by it (`addStepJob`). */
  readonly serialTools?: readonly string[];
  /** The tools whose every step waits for a person's approval when its turn comes (absent: none): `approveStep` or `denyStep` decides. */
  readonly approvalTools?: readonly string[];
  /** The submitter's W3C trace context, when it submitted inside a span: each step's span on a worker is its child. */
  readonly trace?: TraceCarrier;
  /** Every language option (runs stored before `strict` and the limits were kept have only `syntax`, `templates`, `deep`: the rest default). */
  readonly language: Pick<NormalizedOptions, "syntax" | "templates" | "deep"> & Partial<NormalizedOptions>;
}

/** The trace context to store, if any (absent from the JSON otherwise). */
function traceOf(trace: TraceCarrier | undefined): { trace?: TraceCarrier } {
  return trace === undefined ? {} : { trace };
}

/** What `submitPlan` reads of its options: runPlan's, and the serial tools. */
type StoredSettings = RunOptionValues & RetryOptionValues & { readonly serialTools: ReadonlySet<string> | undefined };

/** Read the run options once, with runPlan's own readers (same values accepted, same codes). */
function readStoredOptions(options: unknown): StoredSettings {
  if (options === undefined) return { ...readRunOptions({}), retry: undefined, retryByTool: undefined, serialTools: undefined };
  if (typeof options !== "object" || options === null) throw new RefError("invalid-options", "submitPlan: options must be an object");
  const serialTools = readSerialTools(readOption(options, "serialTools"), "serialTools");
  for (const tool of serialTools ?? []) {
    // The rule reads the names in the database, which holds neither (as a step's tool name).
    if (tool.includes("\u0000") || hasLoneSurrogate(tool))
      throw new RefError(
        "invalid-options",
        `option serialTools: the tool name ${quoted(tool, 60)} contains a NUL character or a lone surrogate, which PostgreSQL cannot store`,
      );
  }
  return { ...readRunOptions(options), ...readRetryOptions(options), serialTools };
}

/**
 * Submit a plan to run on PostgreSQL workers, and get its run id. The plan is read and linted exactly
 * as `runPlan` reads and lints it: with lint errors the run is stored with status `invalid` and its
 * diagnostics, and nothing is enqueued. Otherwise the plan and a run row are stored and the steps that
 * depend on nothing are enqueued, in one transaction. The run is durable: it completes once a worker
 * runs (`startWorker`), whenever that is. A given `runId` makes submitting idempotent.
 *
 * @example
 * const runId = await submitPlan({ steps: [{ id: 1, tool: "geocode", args: { city: "Lisbon" } }] }, { connectionString })
 * const report = await waitForRun(runId, { connectionString })
 */
export async function submitPlan(plan: unknown, options: SubmitOptions = {}): Promise<string> {
  const connection = readConnection(options, "submitPlan");
  const runId = readRunId(ownData(options, "runId"), "runId", (message) => new RefError("invalid-options", `submitPlan: ${message}`));
  const settings = readStoredOptions(ownData(options, "options"));
  const prepared = prepare(plan, settings);
  const planHash = await sha256Hex(prepared.hashText);
  const pool = await poolFor(connection);
  try {
    // One statement, its own transaction: a try PostgreSQL rolled back stored nothing, and the run id keeps a second from storing twice.
    await retryingConflicts(() => store(pool, connection, runId, prepared, planHash));
  } catch (error) {
    throw databaseError(error, connection);
  }
  return runId;
}

interface Prepared {
  readonly stored: StoredRunOptions;
  readonly catalog: string | null;
  readonly diagnostics: Diagnostic[];
  readonly steps: NewStep[];
  /** The text of the plan's hash, from the snapshots (as runPlan's). */
  readonly hashText: string;
  /** The JSON of the plan's output (its snapshot), or null. */
  readonly output: string | null;
}

/**
 * PostgreSQL's text holds neither a NUL character nor a lone surrogate (half of a UTF-16 pair): a tool
 * name with one would be refused by the database, or stored as U+FFFD and then not found on any
 * worker. Such a step is a lint error at its tool name, and the run is stored invalid.
 */
function unstorableTools(steps: readonly LocatedStep[]): Diagnostic[] {
  const found: Diagnostic[] = [];
  for (const step of steps) {
    const what = step.tool.includes("\u0000")
      ? "a NUL character"
      : hasLoneSurrogate(step.tool)
        ? "a lone surrogate (half of a UTF-16 pair)"
        : undefined;
    if (what === undefined) continue;
    found.push({
      code: "invalid-plan",
      severity: "error",
      message: `step ${step.id}: the tool name ${quoted(step.tool, 60)} contains ${what}, which PostgreSQL cannot store: rename the tool`,
      step: step.id,
      pointer: `${step.pointer}/tool`,
    });
  }
  return found;
}

/** Read, snapshot and lint the plan with runPlan's own preparation (`preparePlan`). */
function prepare(plan: unknown, settings: StoredSettings): Prepared {
  try {
    const read = readPlan(plan);
    const catalog = settings.catalog ?? read.plan.tools;
    const language = layeredOptions(read.plan.options, settings.language);
    // The same preparation as runPlan's: snapshots, the linter on them, each step's dependencies from the linter's scan.
    const prepared = preparePlan(plan, read, language, catalog);
    const steps: NewStep[] = [];
    read.steps.forEach((step, i) => {
      const unreadable = prepared.unreadable.get(i);
      if (unreadable !== undefined) throw unreadable; // arguments that cannot be read (a Proxy trap): nothing is stored
      const dependencies = prepared.dependencies[i]!;
      let args: string | undefined;
      try {
        args = JSON.stringify(step.args); // the snapshot
      } catch (error) {
        throw new RefError(
          "invalid-args",
          `step ${step.id}: its arguments cannot be stored as JSON: ${safeText(describeThrown(error), 200)}`,
        );
      }
      steps.push({ id: step.id, tool: step.tool, args: args ?? "{}", dependencies: [...dependencies] });
    });
    if (prepared.output instanceof RefError) throw prepared.output; // an output that cannot be read: nothing is stored
    let output: string | null = null;
    try {
      output = prepared.output === undefined ? null : (JSON.stringify(prepared.output) ?? null);
    } catch (error) {
      throw new RefError("invalid-args", `the plan's output cannot be stored as JSON: ${safeText(describeThrown(error), 200)}`);
    }
    const diagnostics = [...prepared.diagnostics, ...unstorableTools(read.steps)];
    let catalogText: string | null = null;
    if ((settings.validateOutputs || settings.validateInputs) && catalog !== undefined) {
      try {
        catalogText = JSON.stringify(catalog) ?? null;
      } catch (error) {
        throw new RefError("invalid-options", `option catalog cannot be stored as JSON: ${safeText(describeThrown(error), 200)}`);
      }
    }
    return {
      stored: {
        failFast: settings.failFast,
        timeoutMs: settings.timeoutMs ?? null,
        validateOutputs: settings.validateOutputs,
        validateInputs: settings.validateInputs,
        ...(settings.retry === undefined ? {} : { retry: settings.retry }),
        // Own properties (fromEntries defines them): a tool named __proto__ is a name like any other.
        ...(settings.retryByTool === undefined ? {} : { retryByTool: Object.fromEntries(settings.retryByTool) }),
        ...(settings.serialTools === undefined || settings.serialTools.size === 0 ? {} : { serialTools: [...settings.serialTools] }),
        ...(settings.approvalTools === undefined || settings.approvalTools.size === 0
          ? {}
          : { approvalTools: [...settings.approvalTools] }),
        language: { ...language },
        ...traceOf(activeTraceCarrier()),
      },
      catalog: catalogText,
      diagnostics,
      steps,
      hashText: planText(
        read.plan.options,
        read.steps.map((step, i) => stepText(step, prepared.ownDataOnly[i] === 1)),
      ),
      output,
    };
  } catch (error) {
    throw asRefError(error, "the plan or options of submitPlan");
  }
}

/** Store the run as prepared (`storeRun`): invalid, or with no steps, it is over at once. */
async function store(
  client: import("./peers.js").PgQueryable,
  connection: Connection,
  runId: string,
  prepared: Prepared,
  planHash: string,
): Promise<void> {
  const invalid = prepared.diagnostics.some((diagnostic) => diagnostic.severity === "error");
  const settled = invalid || prepared.steps.length === 0;
  await storeRun(client, connection, {
    runId,
    status: invalid ? "invalid" : settled ? runStatus(undefined, 0, prepared.diagnostics) : RUNNING_RUN,
    options: JSON.stringify(prepared.stored),
    catalog: prepared.catalog,
    diagnostics: JSON.stringify(prepared.diagnostics),
    stepsTotal: invalid ? 0 : prepared.steps.length,
    settled,
    steps: settled ? [] : prepared.steps,
    planHash,
    output: prepared.output,
  });
}
