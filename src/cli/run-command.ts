/**
 * `plan-refs run plan.json --tools ./tools.mjs [--mcp "COMMAND"]… [--mcp-url URL]… [--catalog tools.json]
 *  [--results out.json] [--timeline FILE.svg|FILE.mmd] [--concurrency N] [--timeout MS] [--fail-fast] [--validate-outputs] [--validate-inputs]
 *  [--approve-tool NAME]… [--resume previous.json [--approve STEP]… [--deny STEP=REASON]…]`: run a plan
 * with the tools a module exports by name and those of MCP servers, or resume a run of it. Progress goes to stderr, the results to stdout as JSON (or to --results).
 */
import { lintPlanText } from "../lint/index.js";
import { readPlan, type ToolCatalog } from "../plan/plan.js";
import { readOwnData } from "../shared/own-data.js";
import { reportFromJSON, reportToJSON, STEP_ID_KEY } from "../run/report-json.js";
import { resumePlan } from "../run/resume.js";
import { runPlan, type RunOptions, type RunReport } from "../run/run-plan.js";
import { RefError } from "../shared/errors.js";
import { readTextInput } from "./input.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { LineIndex } from "../shared/positions.js";
import { locateDiagnostics, printDiagnostics, unknownTools, type PrintedDiagnostic } from "./diagnostics.js";
import { FlagError, parseFlags, positiveInteger, wholeNumber } from "./flags.js";
import { ATTEMPTS_FLAG_NAME, ATTEMPTS_FLAGS, attemptsFlag, RETRY_ALIAS_HELP } from "./attempts-flag.js";
import type { RetryPolicy } from "../step/retry.js";
import { CliError } from "./input.js";
import { CATALOG_FLAGS, commandCatalog, interruptedExitCode, NO_CATALOG_HELP, readJsonInput, type CommandIo } from "./io.js";
import { loadTools } from "./load-tools.js";
import { MCP_HELP, MCP_OPTIONS, withMcpServers } from "./mcp-flags.js";
import { combineCatalogs, type McpServers } from "../mcp/index.js";
import type { ToolFunctions } from "../run/run-plan.js";
import { liveProgress, lineProgress } from "./progress.js";
import { checkResultsTarget, writeResults, type GuardedFile, type ResultsTarget } from "./results-file.js";
import { cutText, printable, quoted } from "../shared/text.js";
import { runOnDatabase } from "./db-command.js";
import { commandHint } from "./hint.js";
import { databaseHint, type DatabaseHint } from "./database-hint.js";
import { runToMermaid, runToSvg } from "../draw/index.js";
import { TRACE_FILE_FLAG, TRACE_FILE_HELP, withCliTracing } from "./tracing.js";

export const runUsage =
  'usage: plan-refs run <plan.json|-> (--tools <tools.mjs> | --mcp "COMMAND" | --mcp-url URL | --database URL [--detach])… [--mcp-timeout MS] [--catalog tools.json | --no-catalog] [--results out.json] [--timeline FILE.svg|FILE.mmd] [--concurrency N] [--timeout MS] [--attempts N [--retry-delay MS] [--retry-max-delay MS]] [--fail-fast] [--validate-outputs] [--validate-inputs] [--trace-file FILE] [--serial-tool NAME]… [--approve-tool NAME]… [--resume previous.json [--approve STEP]… [--deny STEP=REASON]…]';

export const runHelp = `${runUsage}

Run a plan: each step's tool is called with its arguments resolved against the results so far, in
dependency order, independent steps at the same time. The plan is linted first; with lint errors
nothing runs. Progress goes to stderr; the report (status, results, errors, skipped, timings, and the
plan's resolved "output" when it has one) is written as JSON to stdout, or to --results.

options:
  --tools MODULE        the JavaScript module (.mjs/.js; .ts where Node strips types) whose exported
                        functions implement the tools (--tools, --mcp or --mcp-url is required)
${MCP_HELP}
                        The servers' tools are called with tools/call; the plan is linted against
                        their schemas first (a --catalog entry replaces a server's). The servers are
                        stopped when the run ends, also on an error or a signal
  --catalog FILE.json   the tool catalog (JSON): lint against its schemas, and --validate-outputs
                        (default: the tools.json beside the plan, if there is one and the plan
                        has no "tools" of its own)
${NO_CATALOG_HELP}
  --results FILE        write the report to FILE instead of stdout (a regular file or a new one;
                        a symbolic link is written through; written whole or not at all)
  --timeline FILE       after the run, also when a step failed or a signal interrupted it, write
                        its timeline (a bar per step, coloured by outcome, the critical path):
                        SVG for a name ending in .svg, a Mermaid Gantt chart for .mmd (same rules
                        as --results; not with --detach)
  --concurrency N       most tools running at once (default 8); not with --database, where each
                        worker's own plan-refs worker --concurrency decides
  --timeout MS          fail a step that runs longer than MS milliseconds (default: no limit)
  --attempts N          try a step whose tool fails or times out up to N times in all, the first
                        try included (default 1: no retry; 3 is a first try and two retries);
                        waits grow ×2 with full jitter; a tool's error with retryable: false is
                        not retried, one with retryAfterMs waits that long; with --database the
                        run keeps the policy and the workers wait in PostgreSQL
${RETRY_ALIAS_HELP}
  --serial-tool NAME    with --database: every step of tool NAME waits for the tool's other calls,
                        on any worker, of any run that names it (a rate-limited API); repeatable
  --retry-delay MS      the wait before the second try (default 1000); needs --attempts
  --retry-max-delay MS  no wait is longer (default 30000); needs --attempts
  --fail-fast           stop at the first failure (default: independent steps go on)
  --validate-outputs    fail a step whose result does not match its catalog output schema
  --validate-inputs     fail a step whose resolved arguments do not match its catalog input schema (the tool is not called)
  --approve-tool NAME   every step of tool NAME waits for a person's approval when its turn comes: it
                        is not called, what does not depend on it goes on, and the run ends
                        "suspended" (exit 3) with the step, its tool and its resolved arguments
                        under "pending" in the report; repeatable. With --database the run
                        waits in PostgreSQL: plan-refs approve RUN_ID STEP [--deny REASON] decides
  --resume FILE         resume the run whose report (--results) FILE is: steps with a result there are
                        not called again (their results are used), the others run; a report of
                        another plan is refused (plan-mismatch). --results may name the same FILE:
                        it is read first and replaced at the end
  --approve STEP        with --resume: the waiting step STEP runs, without asking again; repeatable
  --deny STEP=REASON    with --resume: the waiting step STEP fails ("denied", with REASON) and what
                        depends on it is skipped; repeatable. A waiting step neither approved nor
                        denied waits again
  --database URL        submit the plan to PostgreSQL instead: workers (plan-refs worker) run its
                        steps; progress and the report are shown as for a run here (needs the
                        optional packages pg and graphile-worker; plan-refs db migrate first)
  --detach              with --database: print the run id and exit 0 (plan-refs status RUN_ID later)
${TRACE_FILE_HELP}
  -h, --help            show this help

exit codes:
  0    every step succeeded
  1    a step failed (its error is in the report), or --results could not be written at the end
       (the report is then printed on stdout)
  2    usage, file or lint errors, or a --resume report that is not of this plan: nothing was run
  3    suspended: steps wait for approval (stderr names them; resume with --resume and --approve,
       or with --database decide with plan-refs approve)
  130, 143, 129   interrupted by SIGINT (Ctrl-C), SIGTERM or SIGHUP: the results so far are written

example:
  plan-refs run examples/trip/plan.json --tools examples/trip/tools.mjs --catalog examples/trip/tools.json --results trip.json
  plan-refs run examples/mcp/plan.json --mcp "node examples/mcp/server.mjs"
  plan-refs run examples/trip/plan.json --tools examples/trip/tools.mjs --approve-tool sights --results trip.json
  plan-refs run examples/trip/plan.json --tools examples/trip/tools.mjs --resume trip.json --approve 3 --results trip.json
`;

/** The policy of --attempts (or --retry), --retry-delay and --retry-max-delay (`undefined` without --attempts). */
function retryPolicy(attempts: number | undefined, delay: string | undefined, maxDelay: string | undefined): RetryPolicy | undefined {
  if (attempts === undefined) {
    if (delay !== undefined || maxDelay !== undefined)
      throw new FlagError(`--${delay !== undefined ? "retry-delay" : "retry-max-delay"} needs ${ATTEMPTS_FLAG_NAME} N`);
    return undefined;
  }
  const initialDelayMs = wholeNumber(delay, "--retry-delay");
  const maxDelayMs = wholeNumber(maxDelay, "--retry-max-delay");
  return { attempts, ...(initialDelayMs === undefined ? {} : { initialDelayMs }), ...(maxDelayMs === undefined ? {} : { maxDelayMs }) };
}

export async function runCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    tools: { type: "string" },
    ...CATALOG_FLAGS,
    results: { type: "string" },
    timeline: { type: "string" },
    concurrency: { type: "string" },
    timeout: { type: "string" },
    ...ATTEMPTS_FLAGS,
    "retry-delay": { type: "string" },
    "retry-max-delay": { type: "string" },
    "fail-fast": { type: "boolean" },
    "validate-outputs": { type: "boolean" },
    "validate-inputs": { type: "boolean" },
    database: { type: "string" },
    detach: { type: "boolean" },
    "approve-tool": { type: "string", multiple: true },
    "serial-tool": { type: "string", multiple: true },
    resume: { type: "string" },
    approve: { type: "string", multiple: true },
    deny: { type: "string", multiple: true },
    ...MCP_OPTIONS,
    ...TRACE_FILE_FLAG,
  });
  const [planPath, ...extra] = positionals;
  if (planPath === undefined || extra.length > 0) throw new CliError(`expected exactly one plan file\n${runUsage}`, "usage");
  const mcp = values.mcp !== undefined || values["mcp-url"] !== undefined;
  if (values.detach === true && values.database === undefined) throw new CliError(`--detach needs --database URL\n${runUsage}`, "usage");
  if (values.tools === undefined && !mcp && values.database === undefined)
    throw new CliError(`missing --tools <module> (or --mcp, --mcp-url, --database)\n${runUsage}`, "usage");
  if (values.database !== undefined && values.concurrency !== undefined) {
    throw new CliError(
      `--concurrency is each worker's own setting with --database: start the workers with plan-refs worker --concurrency N; nothing was submitted\n${runUsage}`,
      "usage",
    );
  }
  if (values["serial-tool"] !== undefined && values.database === undefined) {
    throw new FlagError(
      "--serial-tool needs --database URL (it holds a tool to one call at a time across the workers; here, --concurrency 1 runs one step at a time)",
    );
  }
  const concurrency = positiveInteger(values.concurrency, "--concurrency");
  const timeoutMs = positiveInteger(values.timeout, "--timeout");
  const retry = retryPolicy(attemptsFlag(values), values["retry-delay"], values["retry-max-delay"]);
  const approval = approvalFlags(values["approve-tool"], values.resume, values.approve, values.deny, values.database !== undefined);
  if (planPath === "-" && values.catalog === "-") throw new CliError("only one of the plan and --catalog can be read from stdin", "usage");

  const planName = planPath === "-" ? "<stdin>" : printable(planPath);
  const { value: planValue, text: planText } = readJsonInput(planPath, io);
  const { catalog, path: catalogPath } = commandCatalog(values, planPath, planText, io);
  // Checked before anything runs: a bad target is found now, not after every tool has run.
  const guarded: GuardedFile[] = [
    ...(planPath === "-" ? [] : [{ path: planPath, role: "the plan" }]),
    ...(values.tools === undefined ? [] : [{ path: values.tools, role: "the tools module" }]),
    ...(catalogPath === undefined ? [] : [{ path: catalogPath, role: "the tool catalog" }]),
  ];
  const target: ResultsTarget | undefined = values.results === undefined ? undefined : checkResultsTarget(values.results, io.cwd, guarded);
  const timeline =
    values.timeline === undefined ? undefined : timelineTarget(values.timeline, io.cwd, guarded, values.detach === true, target);
  // Read before anything runs, and before --results (which may be the same file) is replaced.
  const previous = values.resume === undefined ? undefined : readPrevious(values.resume, io);
  const outputs = [
    ...(target === undefined ? [] : [{ target, role: "the --results file" }]),
    ...(timeline === undefined ? [] : [{ target: timeline.target, role: "the --timeline file" }]),
  ];
  const traceGuarded = values.resume === undefined ? guarded : [...guarded, { path: values.resume, role: "the --resume report" }];
  return withCliTracing(
    io,
    values["trace-file"],
    traceGuarded,
    async () => {
      const module = values.tools === undefined ? undefined : await loadTools(values.tools, io);
      return withMcpServers(values, io, (servers) =>
        runWith(io, {
          planName,
          planValue,
          planText,
          catalog,
          target,
          timeline,
          guarded,
          concurrency,
          timeoutMs,
          retry,
          approval,
          previous,
          failFast: values["fail-fast"] === true,
          validateOutputs: values["validate-outputs"] === true,
          validateInputs: values["validate-inputs"] === true,
          module,
          modulePath: values.tools,
          servers,
          database: values.database,
          detach: values.detach === true,
          serialTools: values["serial-tool"],
        }),
      );
    },
    outputs,
  );
}

interface RunSetup {
  planName: string;
  planValue: unknown;
  planText: string;
  catalog: ToolCatalog | undefined;
  target: ResultsTarget | undefined;
  /** `--timeline FILE`: where the run's timeline goes, and as what. */
  timeline: { target: ResultsTarget; format: "svg" | "mermaid" } | undefined;
  guarded: GuardedFile[];
  concurrency: number | undefined;
  timeoutMs: number | undefined;
  retry: RetryPolicy | undefined;
  approval: ApprovalFlags;
  /** `--resume FILE`: the previous report, and the file's name as given. */
  previous: { report: RunReport; given: string } | undefined;
  failFast: boolean;
  validateOutputs: boolean;
  validateInputs: boolean;
  module: { tools: ToolFunctions; names: string[] } | undefined;
  modulePath: string | undefined;
  servers: McpServers | undefined;
  /** `--database URL`: the plan runs on PostgreSQL workers. */
  database: string | undefined;
  detach: boolean;
  /** `--serial-tool NAME`…: with `--database`, tools that run one call at a time across the workers. */
  serialTools: string[] | undefined;
}

async function runWith(io: CommandIo, setup: RunSetup): Promise<number> {
  const { planName, planValue, planText, target, guarded, concurrency, timeoutMs, module, servers } = setup;
  let tools: ToolFunctions = module?.tools ?? {};
  let catalog = setup.catalog;
  if (servers !== undefined) {
    // Every tool in one catalog (a module's too, with an empty entry): the linter reports unknown tools.
    catalog = combineCatalogs(
      servers,
      module === undefined ? undefined : { names: module.names, label: `--tools ${printable(setup.modulePath!)}` },
      catalog,
    );
    // No --timeout: no limit for MCP calls either (not the SDK's default of 60 s).
    tools = Object.assign(Object.create(null) as object, tools, servers.tools({ timeoutMs: timeoutMs ?? Infinity }));
  }

  const lines = new LineIndex(planText);
  const diagnostics = lintPlanText(planText, catalog === undefined ? {} : { tools: catalog });
  const unknown = servers === undefined && module !== undefined ? unknownTools(planValue, module.names, setup.modulePath!) : [];
  const errors = [...diagnostics.filter((diagnostic) => diagnostic.severity === "error"), ...locateDiagnostics(planText, unknown)];
  if (errors.length > 0) return nothingRun(io, errors, planName, lines);

  const progress = io.stderrIsTTY
    ? liveProgress(io.stderr, stepCount(planValue), { rows: process.stderr.rows, columns: process.stderr.columns })
    : lineProgress(io.stderr);
  // A tool whose promise never settles holds no handle of its own: keep the process alive until the
  // run ends or a signal aborts it, rather than letting Node exit with nothing written.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  let report: RunReport;
  try {
    if (setup.database !== undefined) {
      const remote = await runOnDatabase(io, {
        planValue,
        database: setup.database,
        detach: setup.detach,
        options: {
          failFast: setup.failFast,
          validateOutputs: setup.validateOutputs,
          validateInputs: setup.validateInputs,
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
          ...(catalog === undefined ? {} : { catalog }),
          ...(setup.retry === undefined ? {} : { retry: setup.retry }),
          ...(setup.serialTools === undefined ? {} : { serialTools: setup.serialTools }),
          ...(setup.approval.tools.length === 0 ? {} : { approvalTools: setup.approval.tools }),
        },
        onEvent: progress.onEvent,
      });
      if (remote === undefined) return 0;
      report = remote;
    } else {
      const options: RunOptions = {
        ...(catalog === undefined ? {} : { catalog }),
        ...(concurrency === undefined ? {} : { concurrency }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(setup.retry === undefined ? {} : { retry: setup.retry }),
        ...(setup.approval.tools.length === 0 ? {} : { approvalTools: setup.approval.tools }),
        failFast: setup.failFast,
        validateOutputs: setup.validateOutputs,
        validateInputs: setup.validateInputs,
        onEvent: progress.onEvent,
        ...(io.signal === undefined ? {} : { signal: io.signal }),
      };
      const previous = setup.previous;
      report =
        previous === undefined
          ? await runPlan(planValue, tools, options)
          : await resumeRun(planValue, previous, tools, { ...options, approve: setup.approval.approve, deny: setup.approval.deny });
    }
  } finally {
    clearInterval(keepAlive);
    progress.finish();
  }

  if (report.status === "invalid") {
    // Only problems the text lint could not see reach here.
    return nothingRun(
      io,
      locateDiagnostics(
        planText,
        report.diagnostics.filter((diagnostic) => diagnostic.severity === "error"),
      ),
      planName,
      lines,
    );
  }
  const json = reportToJSON(report);
  for (const [id, value] of report.results) {
    if (value === undefined) io.stderr(`plan-refs: step ${id}'s tool returned undefined, which JSON cannot hold; it is written as null\n`);
  }
  for (const [id, error] of Object.entries(json.errors)) {
    if (error.code === "unserializable")
      io.stderr(`plan-refs: step ${id}: ${printable(error.message.replace(/^step \d+: /, ""))}; reported as error "unserializable"\n`);
  }
  // The run's status is the steps': an output that could not be resolved is told, not an exit code.
  if (json.outputError !== undefined)
    io.stderr(`plan-refs: ${printable(json.outputError.message)}; the report has "outputError" instead of "output"\n`);
  const placed = placedErrors(report, planValue);
  if (placed.length > 0) printDiagnostics(io, locateDiagnostics(planText, placed), planName, lines);
  const output = `${JSON.stringify(json, null, 2)}\n`;
  let code = json.status === "ok" ? 0 : json.status === "aborted" ? interruptedExitCode(io.signal) : json.status === "suspended" ? 3 : 1;
  if (target === undefined) {
    io.stdout(output);
  } else {
    const failure = writeResults(target, output, guarded);
    if (failure !== undefined) {
      io.stdout(output);
      io.stderr(
        `plan-refs: --results ${printable(target.given)}: cannot write the results (${printable(failure)}); they are printed on stdout instead\n`,
      );
      if (code === 0) code = 1;
    }
  }
  if (setup.timeline !== undefined) {
    const { target: where, format } = setup.timeline;
    const picture = format === "svg" ? runToSvg(report, { plan: planValue }) : runToMermaid(report, { plan: planValue });
    const failure = writeResults(where, picture.endsWith("\n") ? picture : `${picture}\n`, guarded);
    if (failure !== undefined) {
      io.stderr(`plan-refs: --timeline ${printable(where.given)}: cannot write the timeline (${printable(failure)})\n`);
      if (code === 0) code = 1;
    }
  }
  io.stderr(summary(report, json));
  if (json.status === "suspended")
    io.stderr(
      setup.database === undefined ? waitingLine(report, target?.given) : waitingOnDatabase(report, databaseHint(setup.database, io.env)),
    );
  return code;
}

/** What a suspended run says on stderr: the steps that wait, with their tools, and how to go on. */
function waitingLine(report: RunReport, results: string | undefined): string {
  const steps = [...(report.pending ?? [])].map(([id, step]) => `${id} (${printable(cutText(step.tool, 60))})`);
  const first = [...(report.pending?.keys() ?? [])][0];
  return `plan-refs: waiting for approval: step${steps.length === 1 ? "" : "s"} ${steps.join(", ")}; their resolved arguments are under "pending" in the report. Resume with --resume ${results === undefined ? "REPORT.json" : printable(results)} --approve ${first} (or --deny ${first}=REASON)\n`;
}

/** What a suspended run on PostgreSQL says on stderr: the steps that wait, and the command that decides. */
function waitingOnDatabase(report: RunReport, database: DatabaseHint): string {
  const where = database.words;
  const steps = [...(report.pending ?? [])].map(([step, { tool }]) => `${step} (${printable(cutText(tool, 60))})`);
  const first = [...(report.pending?.keys() ?? [])][0];
  return `plan-refs: waiting for approval: step${steps.length === 1 ? "" : "s"} ${steps.join(", ")}; their resolved arguments are under "pending" in the report (and in ${commandHint(["status", report.runId, ...where])}). Decide with ${commandHint(["approve", report.runId, String(first), ...where])} (or --deny REASON)${database.note}\n`;
}

/** What --approve-tool, --approve and --deny ask for. */
interface ApprovalFlags {
  readonly tools: string[];
  readonly approve: number[];
  readonly deny: Record<number, string>;
}

function approvalFlags(
  tools: string[] | undefined,
  resume: string | undefined,
  approve: string[] | undefined,
  deny: string[] | undefined,
  database: boolean,
): ApprovalFlags {
  if (database && resume !== undefined) {
    throw new CliError(
      `--resume is for a run here: a run on PostgreSQL goes on with plan-refs redrive RUN_ID or plan-refs approve RUN_ID STEP; nothing was submitted\n${runUsage}`,
      "usage",
    );
  }
  if (resume === undefined && (approve !== undefined || deny !== undefined))
    throw new FlagError(`--${approve !== undefined ? "approve" : "deny"} needs --resume FILE (the report of the run whose steps wait)`);
  const reasons: Record<number, string> = {};
  for (const given of deny ?? []) {
    const at = given.indexOf("=");
    if (at < 1 || at === given.length - 1 || !STEP_ID_KEY.test(given.slice(0, at)))
      throw new FlagError(`--deny must be STEP=REASON (--deny 4="too expensive"), not ${quoted(given, 60)}`);
    reasons[Number(given.slice(0, at))] = given.slice(at + 1);
  }
  return { tools: tools ?? [], approve: (approve ?? []).map((id) => stepIdFlag(id, "--approve")), deny: reasons };
}

function stepIdFlag(text: string, flag: string): number {
  if (!STEP_ID_KEY.test(text) || !Number.isSafeInteger(Number(text)))
    throw new FlagError(`${flag} must be a step id (a whole number), not ${quoted(text, 20)}`);
  return Number(text);
}

/** `--resume FILE`: the report it holds, read now; one that is not a report is a file error. */
function readPrevious(given: string, io: CommandIo): { report: RunReport; given: string } {
  try {
    return { report: reportFromJSON(readTextInput(given, io)), given };
  } catch (error) {
    if (error instanceof RefError) throw new CliError(`--resume ${given}: ${error.message}; nothing was run`, error.code);
    throw error;
  }
}

/** `resumePlan`, with what it refuses before anything runs (another plan, an invalid run, a step not in the plan) as a CLI error. */
async function resumeRun(
  plan: unknown,
  previous: { report: RunReport; given: string },
  tools: ToolFunctions,
  options: Parameters<typeof resumePlan>[3],
): Promise<RunReport> {
  try {
    return await resumePlan(plan, previous.report, tools, options);
  } catch (error) {
    if (
      error instanceof RefError &&
      (error.code === "plan-mismatch" ||
        error.code === "not-awaiting-approval" ||
        error.code === "invalid-report" ||
        error.code === "invalid-options")
    ) {
      throw new CliError(`--resume ${previous.given}: ${error.message.replace(/; nothing was run$/, "")}; nothing was run`, error.code);
    }
    throw error;
  }
}

/** `--timeline FILE`: `.svg` or `.mmd`, a safe target as for --results (and not the --results file). */
function timelineTarget(
  given: string,
  cwd: string,
  guarded: readonly GuardedFile[],
  detach: boolean,
  results: ResultsTarget | undefined,
): { target: ResultsTarget; format: "svg" | "mermaid" } {
  if (detach) throw new CliError(`--timeline needs the run to end here, not --detach\n${runUsage}`, "usage");
  const name = given.toLowerCase();
  const format = name.endsWith(".svg") ? "svg" : name.endsWith(".mmd") ? "mermaid" : undefined;
  if (format === undefined)
    throw new CliError(`--timeline ${given}: the name must end in .svg (SVG) or .mmd (Mermaid); nothing was run`, "usage");
  const target = checkResultsTarget(given, cwd, guarded, "--timeline");
  if (results !== undefined && results.path === target.path)
    throw new CliError(`--timeline ${given}: is the --results file; write the timeline to another file; nothing was run`, "results-target");
  return { target, format };
}

function nothingRun(io: CommandIo, errors: readonly Diagnostic[], planName: string, lines: LineIndex): number {
  printDiagnostics(io, errors, planName, lines);
  io.stderr(`plan-refs: ${planName} has ${errors.length} error${errors.length > 1 ? "s" : ""}; nothing was run\n`);
  return 2;
}

/**
 * Step errors that know where in the step's arguments they happened (`unresolved-args`: the argument
 * and the characters of the placeholder), as diagnostics for the linter's printer.
 */
function placedErrors(report: RunReport, plan: unknown): PrintedDiagnostic[] {
  const out: PrintedDiagnostic[] = [];
  const pointers = new Map(readPlan(plan).steps.map((step) => [step.id, step.pointer] as const));
  for (const [id, error] of report.errors) {
    // Own data only, as everywhere: a StepError is plan-refs's own, but its fields are read the same way.
    const arg = readOwnData(error, "arg");
    const at = pointers.get(id);
    if (typeof arg !== "string" || at === undefined) continue;
    const span = readOwnData(error, "span") as { start?: unknown; end?: unknown } | undefined;
    out.push({
      code: error.code,
      severity: "error",
      step: id,
      pointer: `${at}/args${arg}`,
      message: error.message,
      ...(typeof span === "object" && span !== null && typeof span.start === "number" && typeof span.end === "number"
        ? { span: { start: span.start, end: span.end } }
        : {}),
    });
  }
  return out;
}

function stepCount(plan: unknown): number {
  return readPlan(plan).steps.length;
}

function summary(report: RunReport, json: ReturnType<typeof reportToJSON>): string {
  const results = Object.keys(json.results).length;
  const failed = Object.keys(json.errors).length;
  return `plan-refs: ${json.status}: ${results} result${results === 1 ? "" : "s"}, ${failed} failed, ${report.skipped.length} skipped in ${Math.round(report.timings.totalMs)} ms\n`;
}
