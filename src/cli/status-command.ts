/**
 * `plan-refs status RUN_ID [--database URL] [--format text|json]`: a run submitted to PostgreSQL, as
 * it stands.
 */
import { reportToJSON } from "../run/report-json.js";
import { cutText, printable, quoted } from "../shared/text.js";
import { databaseOptions, onDatabase, oneRunId } from "./db-command.js";
import { parseFlags } from "./flags.js";
import type { CommandIo } from "./io.js";
import { retryingText } from "./progress.js";
import { commandHint } from "./hint.js";
import { databaseHint } from "./database-hint.js";

export const statusUsage = "usage: plan-refs status <run-id> [--database URL] [--format text|json]";

export const statusHelp = `${statusUsage}

Show a run submitted to PostgreSQL (plan-refs run --database … --detach, or submitPlan): its status
(running, suspended, ok, failed, aborted, invalid), its steps' counts and the steps that wait for
approval with their resolved arguments (decide with plan-refs approve RUN_ID STEP), or with --format
json the report as plan-refs run writes it (waiting steps under "pending"), with "runId" and the
status "running" while it runs.

options:
  --database URL   the PostgreSQL connection string (default: the DATABASE_URL environment variable)
  --format F       text (default) or json
  -h, --help       show this help

exit codes:
  0    the run is running or ok
  1    the run failed, was aborted, or is invalid
  3    the run is suspended: steps wait for approval
  2    usage errors, no such run, PostgreSQL cannot be reached

example:
  plan-refs status 3f1c… --database postgres://localhost/agents --format json
`;

export async function statusCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { database: { type: "string" }, format: { type: "string", choices: ["text", "json"] } });
  const runId = oneRunId(positionals, statusUsage);
  const format = values.format ?? "text";
  const snapshot = await onDatabase((postgres) => postgres.getRun(runId, databaseOptions(values.database)));
  if (format === "json") {
    const json = reportToJSON({ ...snapshot, status: snapshot.status === "running" ? "ok" : snapshot.status });
    io.stdout(`${JSON.stringify({ ...json, status: snapshot.status === "running" ? "running" : json.status }, null, 2)}\n`);
  } else {
    const counts = { waiting: 0, ready: 0, running: 0, retrying: 0, done: 0, failed: 0, skipped: 0, "awaiting-approval": 0 };
    for (const step of snapshot.steps.values()) counts[step.state]++;
    io.stdout(
      `run ${printable(snapshot.runId)}: ${snapshot.status}: ${counts.done} done, ${counts.failed} failed, ${counts.skipped} skipped, ${counts.running} running, ${counts.retrying > 0 ? `${counts.retrying} retrying, ` : ""}${counts.waiting + counts.ready} waiting${counts["awaiting-approval"] > 0 ? `, ${counts["awaiting-approval"]} waiting for approval` : ""} (${Math.round(snapshot.timings.totalMs)} ms)\n`,
    );
    const database = databaseHint(values.database, io.env);
    // In plan order (the report lists errors as the steps ended).
    for (const [id, step] of snapshot.steps) {
      const error = snapshot.errors.get(id);
      if (error !== undefined) io.stdout(`  step ${id}: ${printable(cutText(error.message, 300))}\n`);
      if (step.state === "retrying") {
        // As the live view of plan-refs run says it, counted from the database's now.
        io.stdout(
          `  step ${id} ${retryingText(step.retryInMs ?? 0, step.attempt + 1, step.attempts ?? step.attempt + 1)}: ${printable(cutText(step.lastError?.message ?? "", 300))}\n`,
        );
      }
      const pending = snapshot.pending?.get(id);
      // What a person approves: every resolved argument, escaped (a terminal sees no control character).
      if (pending !== undefined)
        io.stdout(
          `  step ${id} waits for approval: ${quoted(pending.tool, 60)} with ${printable(JSON.stringify(pending.args))} (${commandHint(["approve", snapshot.runId, String(id), ...database.words])} [--deny REASON]${database.note})\n`,
        );
      if (step.noWorkerHasTool === true) io.stdout(`  step ${id} waits: no running worker has its tool ${quoted(step.tool, 60)}\n`);
    }
  }
  return snapshot.status === "running" || snapshot.status === "ok" ? 0 : snapshot.status === "suspended" ? 3 : 1;
}
