/**
 * `plan-refs approve RUN_ID STEP [--deny REASON] [--database URL]`: a person's decision on a step of a
 * run on PostgreSQL that waits for approval (`approveStep`, `denyStep`): approved, it is queued and
 * runs on a worker; denied, it fails "denied" with the reason and what depends on it is skipped.
 */
import { STEP_ID_KEY } from "../run/report-json.js";
import { printable, quoted } from "../shared/text.js";
import { databaseOptions, onDatabase } from "./db-command.js";
import { FlagError, parseFlags } from "./flags.js";
import { CliError } from "./input.js";
import type { CommandIo } from "./io.js";
import { commandHint } from "./hint.js";
import { databaseHint } from "./database-hint.js";

export const approveUsage = "usage: plan-refs approve <run-id> <step> [--deny REASON] [--database URL]";

export const approveHelp = `${approveUsage}

Decide on a step of a run on PostgreSQL that waits for approval (plan-refs run --database …
--approve-tool NAME, or submitPlan with approvalTools; plan-refs status RUN_ID lists the waiting
steps with their resolved arguments): approved, the step is queued and runs on a worker without
asking again, and a suspended run goes on; with --deny it fails ("denied", with REASON), its tool
never called, and the steps that depend on it are skipped. A step that does not wait for approval
(also one decided a moment ago: approving twice runs it once) is refused, and nothing changes.

options:
  --deny REASON    deny the step instead, with REASON (what the report's error says)
  --database URL   the PostgreSQL connection string (default: the DATABASE_URL environment variable)
  -h, --help       show this help

exit codes:
  0    the decision is stored: the step is queued (approved) or failed (denied)
  2    usage errors, no such run or step, a step that does not wait for approval, PostgreSQL cannot be reached

example:
  plan-refs approve 3f1c… 2 --database postgres://localhost/agents
  plan-refs approve 3f1c… 4 --deny "too expensive"
`;

export async function approveCommand(argv: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { database: { type: "string" }, deny: { type: "string" } });
  const [runId, step, ...extra] = positionals;
  if (runId === undefined || runId === "" || step === undefined || extra.length > 0)
    throw new CliError(`expected a run id and a step id\n${approveUsage}`, "usage");
  if (!STEP_ID_KEY.test(step) || !Number.isSafeInteger(Number(step)))
    throw new FlagError(`the step must be a step id (a whole number), not ${quoted(step, 20)}`);
  const stepId = Number(step);
  const reason = values.deny;
  const connection = databaseOptions(values.database);
  await onDatabase((postgres) =>
    reason === undefined ? postgres.approveStep(runId, stepId, connection) : postgres.denyStep(runId, stepId, reason, connection),
  );
  const id = printable(runId);
  const database = databaseHint(values.database, io.env);
  io.stdout(
    reason === undefined
      ? `run ${id}: step ${stepId} approved: it is queued to run; ${commandHint(["status", runId, ...database.words])} to follow it${database.note}\n`
      : `run ${id}: step ${stepId} denied (${quoted(reason, 200)}): it failed "denied", what depends on it is skipped\n`,
  );
  return 0;
}
