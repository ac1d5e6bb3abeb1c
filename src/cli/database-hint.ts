/**
 * The `--database` of a command a message tells the reader to run next (`plan-refs status …`,
 * `plan-refs approve …`): the same database, never its password on the screen.
 */
import { REDACTED, redactConnectionString } from "../shared/redact.js";
import type { VariableWord } from "./hint.js";
import type { CliEnv } from "./io.js";

/** The words a hint takes for `--database`, and what its message adds when the hint is not whole. */
export interface DatabaseHint {
  readonly words: readonly (string | VariableWord)[];
  /** `""`, or a clause (`; …`) saying that `***` stands for the password left out. */
  readonly note: string;
}

/** What a message adds after a hint whose URL lost its password. */
const PASSWORD_NOTE = `; ${REDACTED} stands for the password of --database, which is not printed`;

/**
 * `--database` as a command to paste should give it: nothing when it was not given (the command
 * reads `DATABASE_URL` again); `--database "$DATABASE_URL"` when it is that variable's value (what was
 * typed, most likely, and the shell fills the password in); the URL itself when it holds no password;
 * else the URL with its password `***` and a note saying so (the command does not run as pasted, but
 * the reader sees which database, and a password in a terminal's scrollback or a CI log is worse).
 *
 * @example
 * databaseHint("postgres://app:s3cret@db/agents", {}) // { words: ["--database", "postgres://app:***@db/agents"], note: "; *** stands for …" }
 * databaseHint("postgres://app:s3cret@db/agents", { DATABASE_URL: "postgres://app:s3cret@db/agents" }).words // ["--database", { variable: "DATABASE_URL" }]
 */
export function databaseHint(database: string | undefined, env: CliEnv): DatabaseHint {
  if (database === undefined) return { words: [], note: "" };
  if (database === env.DATABASE_URL) return { words: ["--database", { variable: "DATABASE_URL" }], note: "" };
  const shown = redactConnectionString(database);
  return { words: ["--database", shown], note: shown === database ? "" : PASSWORD_NOTE };
}
