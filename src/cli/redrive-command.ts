/**
 * `plan-refs redrive RUN_ID [--database URL]`: a run on PostgreSQL that failed or was aborted goes on
 * from where it stopped (`redriveRun`): its failed, aborted and skipped steps are queued again, the
 * steps that succeeded keep their results and are not called again.
 */
import { printable } from "../shared/text.js";
import { databaseOptions, onDatabase, oneRunId } from "./db-command.js";
import { parseFlags } from "./flags.js";
import type { CommandIo } from "./io.js";
import { commandHint } from "./hint.js";
import { databaseHint } from "./database-hint.js";

export const redriveUsage = "usage: plan-refs redrive <run-id> [--database URL]";

export const redriveHelp = `${redriveUsage}

Go on with a run submitted to PostgreSQL that failed or was aborted, under the same run id: its
failed, aborted and skipped steps run again on the workers (plan-refs worker), under the run's own
options; the steps that succeeded keep their results and are not called again. A run that is still
running (also one redriven a moment ago), that succeeded or that is invalid is refused, and nothing
changes. Follow the run with plan-refs status RUN_ID.

options:
  --database URL   the PostgreSQL connection string (default: the DATABASE_URL environment variable)
  -h, --help       show this help

exit codes:
  0    the run's steps are queued again: it is running
  2    usage errors, no such run, a run that cannot be redriven, PostgreSQL cannot be reached

example:
  plan-refs redrive 3f1c… --database postgres://localhost/agents
`;

export async function redriveCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { database: { type: "string" } });
  const runId = oneRunId(positionals, redriveUsage);
  const redrive = await onDatabase((postgres) => postgres.redriveRun(runId, databaseOptions(values.database)));
  const id = printable(runId);
  const steps = `${redrive.steps} step${redrive.steps === 1 ? "" : "s"}`;
  const database = databaseHint(values.database, io.env);
  io.stdout(
    `run ${id}: ${steps} to run again (${redrive.queued} queued now, ${redrive.steps - redrive.queued} waiting for them); ${commandHint(["status", runId, ...database.words])} to follow it${database.note}\n`,
  );
  return 0;
}
