/**
 * The errors of `plan-refs/postgres`. Everything that goes wrong before or around a run (no database,
 * a run id that does not exist, a peer dependency missing) is a `PostgresError` with a stable code and
 * a one-line message that is safe to print; what goes wrong inside a step is that step's `StepError`.
 */
import { CodedError } from "../shared/errors.js";
import { redactConnectionString } from "../shared/redact.js";

/**
 * What users run to get the optional peers of `plan-refs/postgres`.
 *
 * @example
 * console.error(`plan-refs/postgres needs its peers: ${POSTGRES_INSTALL}`)
 */
export const POSTGRES_INSTALL = "npm install pg graphile-worker";

/** Why a `plan-refs/postgres` call failed. */
export type PostgresErrorCode =
  /** `pg` or `graphile-worker` is not installed. */
  | "missing-dependency"
  /** No connection string (neither given nor in `DATABASE_URL`), or one that cannot be read. */
  | "invalid-connection"
  /** PostgreSQL could not be reached (the message names the host and port). */
  | "database-unreachable"
  /** The plan-refs tables are not there, or (at a worker's start) older than its code: run `migrate` (or `plan-refs db migrate`) first. */
  | "not-migrated"
  /** This plan-refs is older than the database's schema allows (the message names both versions): a worker older than the schema's compatibility window, or `migrate` of an older release over a newer schema. Upgrade plan-refs on this machine. */
  | "worker-too-old"
  /** No run with this id. */
  | "unknown-run"
  /** An option of the wrong type or out of range. */
  | "invalid-options"
  /** `redriveRun` on a run that is running, succeeded or is invalid: nothing changed. */
  | "not-redrivable"
  /** `approveStep` or `denyStep` names a step the run does not have. */
  | "unknown-step"
  /** `approveStep` or `denyStep` on a step that does not wait for approval (also one approved or denied already), or of a run that was stopped: nothing changed. */
  | "not-awaiting-approval"
  /** `waitForRun` gave up: its `timeoutMs` passed or its signal was aborted. */
  | "wait-timeout"
  | "wait-aborted"
  /** The database answered with an error. */
  | "database-error"
  /** The installed graphile-worker, or the database's graphile-worker schema, is outside the versions plan-refs is tested with (the message names the version found, the range supported and what to install). */
  | "unsupported-graphile-worker"
  /** A development database's folder (`plan-refs db start --data`) that cannot hold it: the server's user cannot enter it, it is not a folder, or it holds other files. */
  | "data-unreachable"
  /** A development database whose server already runs on that folder. */
  | "already-running"
  /** A development database's server that could not be made or did not start (the message has its own words, and a port in use is said so). */
  | "server-failed";

/**
 * A `plan-refs/postgres` call failed: the message is one line, safe to print (a password of a
 * connection string in it, a driver's text or a run id that was one, is `***`; `cause` is the driver's
 * error as it was).
 *
 * @example
 * try { await getRun("nope") } catch (e) { if (e instanceof PostgresError && e.code === "unknown-run") console.error(e.message) }
 */
export class PostgresError extends CodedError<PostgresErrorCode> {
  override name = "PostgresError";

  constructor(code: PostgresErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, redactConnectionString(message), options);
  }
}
