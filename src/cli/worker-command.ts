/**
 * `plan-refs worker --tools tools.mjs [--database URL] [--concurrency N] [--tool-concurrency TOOL=N]…`: run plan
 * steps from PostgreSQL with a module's tools until SIGTERM or SIGINT, one line per event.
 */
import { cutText, printable } from "../shared/text.js";
import { redactConnectionString } from "../shared/redact.js";
import { boundedSetting, type WorkerLimit } from "../postgres/worker-settings.js";
import { asCliError, databaseOptions, loadPostgres } from "./db-command.js";
import { FlagError, namedNumbers, parseFlags } from "./flags.js";
import { CliError } from "./input.js";
import type { CommandIo } from "./io.js";
import { loadTools } from "./load-tools.js";
import { retryingText } from "./progress.js";
import { commandHint, flagWords } from "./hint.js";
import { TRACE_FILE_FLAG, TRACE_FILE_HELP, withCliTracing } from "./tracing.js";

export const workerUsage =
  "usage: plan-refs worker --tools <tools.mjs> [--database URL] [--concurrency N] [--recovery-ms N] [--grace-ms N] [--tool-concurrency TOOL=N]... [--validate-inputs] [--trace-file FILE]";

export const workerHelp = `${workerUsage}

Run plan steps submitted to PostgreSQL (plan-refs run --database, or submitPlan) with the tools a
module exports, until SIGTERM or SIGINT. Start as many workers as you like, on as many machines: each
step runs on one of them. One line per event on stderr. On SIGTERM or SIGINT the worker takes no new
step, lets running ones finish (up to --grace-ms), releases the rest to other workers, and exits 0.

options:
  --tools MODULE      the JavaScript module whose exported functions implement the tools (required)
  --database URL      the PostgreSQL connection string (default: the DATABASE_URL environment variable)
  --concurrency N     most steps running at once in this worker (default 8, 1 to 256, and at most
                      what the database's max_connections leaves: N + 13 connections)
  --recovery-ms N     this worker is taken for dead when silent this long (its heartbeat publishes
                      it; default 30000, 1000 to 2147483647), and its steps run elsewhere
  --grace-ms N        on SIGTERM/SIGINT, how long running steps may go on (default 5000, 1 to
                      2147478647); the rest are released, at once and without spending a try
  --tool-concurrency TOOL=N
                      at most N calls of TOOL at once in this worker, on top of --concurrency
                      (1 to 256; repeatable, one tool each): the worker takes no step of a tool at
                      its limit (it stays queued, for another worker) and runs other tools' steps
  --validate-inputs   fail a step whose resolved arguments do not match its input schema in the
                      run's stored catalog, without calling the tool (as runs submitted with
                      --validate-inputs ask anyway)
${TRACE_FILE_HELP.replaceAll("\n                        ", "\n                      ").replace("  --trace-file FILE     ", "  --trace-file FILE   ")}
  -h, --help          show this help

exit codes:
  0    stopped by SIGTERM or SIGINT
  1    the worker failed while running (the database went away for good)
  2    usage errors, a tools module that cannot be loaded, PostgreSQL cannot be reached

example:
  plan-refs worker --tools examples/trip/tools.mjs --database postgres://localhost/agents
`;

/** A numeric flag within the worker's bounds (`WORKER_LIMITS`, shared with startWorker). */
function boundedFlag(text: string | undefined, flag: string, setting: WorkerLimit): number | undefined {
  if (text === undefined) return undefined;
  const value = /^[0-9]{1,16}$/.test(text) ? Number(text) : text;
  try {
    return boundedSetting(value, setting, flag);
  } catch (error) {
    throw new FlagError((error as Error).message);
  }
}

export async function workerCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    tools: { type: "string" },
    database: { type: "string" },
    concurrency: { type: "string" },
    "recovery-ms": { type: "string" },
    "grace-ms": { type: "string" },
    "tool-concurrency": { type: "string", multiple: true },
    "validate-inputs": { type: "boolean" },
    ...TRACE_FILE_FLAG,
  });
  if (positionals.length > 0)
    throw new CliError(`unexpected argument "${printable(cutText(redactConnectionString(positionals[0]!), 40))}"\n${workerUsage}`, "usage");
  if (values.tools === undefined) throw new CliError(`missing --tools <module>\n${workerUsage}`, "usage");
  const concurrency = boundedFlag(values.concurrency, "--concurrency", "concurrency");
  const recoveryMs = boundedFlag(values["recovery-ms"], "--recovery-ms", "recoveryMs");
  const graceMs = boundedFlag(values["grace-ms"], "--grace-ms", "graceMs");
  const toolConcurrency = namedNumbers(values["tool-concurrency"], "--tool-concurrency", (text, label) =>
    boundedFlag(text, label, "concurrency"),
  );
  return withCliTracing(io, values["trace-file"], [{ path: values.tools, role: "the tools module" }], () =>
    serve(io, values.tools!, values, { concurrency, recoveryMs, graceMs, toolConcurrency }),
  );
}

/** The worker's settings read from its flags. */
interface WorkerFlags {
  readonly concurrency: number | undefined;
  readonly recoveryMs: number | undefined;
  readonly graceMs: number | undefined;
  readonly toolConcurrency: Record<string, number> | undefined;
}

/** Load the tools, start the worker, and take steps until a signal or a failure ends it. */
async function serve(
  io: CommandIo,
  toolsPath: string,
  values: { readonly database?: string | undefined; readonly "validate-inputs"?: boolean | undefined },
  { concurrency, recoveryMs, graceMs, toolConcurrency }: WorkerFlags,
): Promise<number> {
  const { tools } = await loadTools(toolsPath, io);
  const postgres = await loadPostgres();
  // The hints this worker prints name its database, as it was given.
  const where = flagWords(values, ["database"]);
  let worker: Awaited<ReturnType<typeof postgres.startWorker>>;
  try {
    worker = await postgres.startWorker({
      ...databaseOptions(values.database),
      tools,
      ...(concurrency === undefined ? {} : { concurrency }),
      ...(recoveryMs === undefined ? {} : { recoveryMs }),
      ...(graceMs === undefined ? {} : { graceMs }),
      ...(toolConcurrency === undefined ? {} : { toolConcurrency }),
      validateInputs: values["validate-inputs"] === true,
      onEvent: (event) => io.stderr(`${describe(event, where)}\n`),
    });
  } catch (error) {
    throw await asCliError(error);
  }
  io.stderr(`plan-refs: worker ${printable(worker.id)} taking steps (SIGTERM or Ctrl-C stops it)\n`);
  const stopped = new Promise<void>((resolve) => {
    if (io.signal === undefined) return;
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  const outcome = await Promise.race([
    stopped.then(() => "signal" as const),
    worker.promise.then(
      () => "ended" as const,
      (error: unknown) => error,
    ),
  ]);
  if (outcome === "signal") {
    io.stderr("plan-refs: stopping: running steps finish, the rest go to other workers\n");
    await worker.stop();
    io.stderr("plan-refs: worker stopped\n");
    return 0;
  }
  await worker.stop();
  if (outcome === "ended") return 0;
  io.stderr(
    `plan-refs: the worker failed: ${printable(cutText(redactConnectionString(String((outcome as Error)?.message ?? outcome)), 300))}\n`,
  );
  return 1;
}

function describe(event: import("../postgres/index.js").WorkerEvent, where: readonly string[]): string {
  if (event.type === "workers-recovered")
    return `workers ${event.workerIds.map((id) => printable(cutText(id, 60))).join(", ")} went silent: their steps are released`;
  const head = `run ${printable(cutText(event.runId, 60))} step ${event.stepId} (${printable(cutText(event.tool, 60))})`;
  if (event.type === "step-awaiting-approval")
    return `${head} waits for approval, its tool not called (${commandHint(["approve", event.runId, String(event.stepId), ...where])})`;
  const attempt = event.attempt > 1 ? ` (attempt ${event.attempt})` : "";
  switch (event.type) {
    case "step-start":
      return `${head} started${attempt}`;
    case "step-done":
      return `${head} done in ${Math.round(event.durationMs)} ms`;
    case "step-failed":
      return `${head} failed after ${Math.round(event.durationMs)} ms: ${printable(cutText(event.error.message, 200))}`;
    case "step-retry":
      return `${head} ${retryingText(event.delayMs, event.attempt + 1, event.attempts)}: ${printable(cutText(event.error.message, 200))}`;
    case "step-released":
      return `${head} released to another worker`;
    case "step-lost":
      return `${head} ended after another worker took it over: this attempt's outcome was not stored`;
  }
}
