/**
 * Connections: the connection string (`DATABASE_URL` by default), one pool per connection string (it
 * lets the process exit when idle), the schema name, and database errors turned into `PostgresError`s.
 */
import { describeThrown } from "../shared/errors.js";
import { cutText, quoted, safeText } from "../shared/text.js";
import { ownData } from "../shared/own-data.js";
import { CONNECTION_STRING_SHAPE } from "../shared/redact.js";
import { PostgresError } from "./errors.js";
import { loadPg, type PgClient, type PgPool, type PgPoolClient } from "./peers.js";

/** Where the database is: what every `plan-refs/postgres` function takes. */
export interface ConnectionOptions {
  /** A PostgreSQL connection string (`postgres://user:password@host:5432/db`); default: the `DATABASE_URL` environment variable. */
  readonly connectionString?: string;
  /** The schema of plan-refs' tables (default `plan_refs`). graphile-worker keeps its own schema, `graphile_worker`. */
  readonly schema?: string;
}

/**
 * The default schema of plan-refs' tables.
 *
 * @example
 * await migrate({ schema: DEFAULT_SCHEMA }) // the same as migrate()
 */
export const DEFAULT_SCHEMA = "plan_refs";

/** A schema name plan-refs accepts: a plain lower-case SQL identifier (so it never needs quoting tricks). */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Connection string and schema, read once from own data (a getter never runs). */
export interface Connection {
  readonly connectionString: string;
  /** The schema, already a safe identifier. */
  readonly schema: string;
  /** `host:port` for messages. */
  readonly where: string;
}

/**
 * What is wrong with a connection string, in a few words that never repeat it (it may hold a
 * password), or `undefined`: it must be a `postgres://` (or `postgresql://`) URL with a port in range,
 * or pg's `socket:` form. pg would read anything else as something else (a host named after a word of it).
 *
 * @example
 * connectionProblem("localhost") // "is not a URL: expected postgres://user:password@host:5432/database"
 */
export function connectionProblem(text: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1] ?? (/^socket:/i.test(text) ? "socket" : undefined);
  if (scheme === undefined) {
    return /^\s*\w+\s*=/.test(text)
      ? `looks like libpq keywords (host=…): give a URL instead, ${CONNECTION_STRING_SHAPE}`
      : `is not a URL: expected ${CONNECTION_STRING_SHAPE}`;
  }
  if (scheme.toLowerCase() === "socket") return undefined; // pg's socket:/path?db=… form
  if (scheme.toLowerCase() !== "postgres" && scheme.toLowerCase() !== "postgresql")
    return `is a ${quoted(scheme.toLowerCase(), 20)} URL: expected ${CONNECTION_STRING_SHAPE}`;
  const port = /^[a-z]+:\/\/(?:[^@/?#]*@)?(?:\[[^\]]*\]|[^:/?#]*):(\d*)(?:[/?#]|$)/i.exec(text)?.[1];
  if (port !== undefined && port !== "" && !(Number(port) >= 1 && Number(port) <= 65_535))
    return `has port ${cutText(port, 12)}: a port is 1 to 65535`;
  try {
    new URL(text);
  } catch {
    return `is not a valid URL: expected ${CONNECTION_STRING_SHAPE}`;
  }
  return undefined;
}

/** Read `connectionString` and `schema` from options (or `DATABASE_URL`). */
export function readConnection(options: unknown, what: string): Connection {
  if (options !== undefined && (typeof options !== "object" || options === null))
    throw new PostgresError("invalid-options", `${what} options must be an object`);
  const given = options === undefined ? undefined : ownData(options, "connectionString");
  const schema = options === undefined ? undefined : ownData(options, "schema");
  if (given !== undefined && typeof given !== "string")
    throw new PostgresError("invalid-options", `${what}: connectionString must be a string`);
  const connectionString = given ?? process.env.DATABASE_URL;
  if (connectionString === undefined || connectionString === "") {
    throw new PostgresError("invalid-connection", `${what}: no database given: pass connectionString (--database URL) or set DATABASE_URL`);
  }
  const problem = connectionProblem(connectionString);
  if (problem !== undefined)
    throw new PostgresError(
      "invalid-connection",
      `${what}: the connection string ${given === undefined ? "in DATABASE_URL " : ""}${problem}`,
    );
  if (schema !== undefined && (typeof schema !== "string" || !SCHEMA_NAME.test(schema))) {
    throw new PostgresError(
      "invalid-options",
      `${what}: schema must be a lower-case SQL identifier (letters, digits, _), at most 63 characters`,
    );
  }
  return { connectionString, schema: schema ?? DEFAULT_SCHEMA, where: hostAndPort(connectionString) };
}

/** `host:port` of a connection string, for messages (never the password). */
export function hostAndPort(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    const host = url.hostname === "" ? (url.searchParams.get("host") ?? "localhost") : url.hostname;
    return safeText(`${host}:${url.port === "" ? "5432" : url.port}`, 120);
  } catch {
    return "the database in the connection string";
  }
}

/** Connections in the process's pool for one database. */
export const POOL_SIZE = 10;

const pools = new Map<string, Promise<PgPool>>();

/** The process's pool for this database (made once; idle clients let the process exit). */
export function poolFor(connection: Connection): Promise<PgPool> {
  let pool = pools.get(connection.connectionString);
  if (pool === undefined) {
    pool = loadPg().then(({ Pool }) => {
      const made = new Pool({
        connectionString: connection.connectionString,
        max: POOL_SIZE,
        idleTimeoutMillis: 2_000,
        allowExitOnIdle: true,
        connectionTimeoutMillis: 10_000,
      });
      // A client that dies while idle (the server restarted): the pool drops it, the next query reconnects.
      made.on("error", () => undefined);
      return made;
    });
    pools.set(connection.connectionString, pool);
    pool.catch(() => pools.delete(connection.connectionString));
  }
  return pool;
}

/** A fresh client of its own (for LISTEN), connected. */
export async function connectClient(connection: Connection): Promise<PgClient> {
  const { Client } = await loadPg();
  const client = new Client({ connectionString: connection.connectionString, connectionTimeoutMillis: 10_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
  } catch (error) {
    throw databaseError(error, connection);
  }
  return client;
}

/** Codes of errors that mean the server is not there (or went away). */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNRESET",
  "57P01",
  "57P03",
  "08006",
  "08001",
  "08003",
  "08004",
]);

function codeOf(error: unknown): unknown {
  return ownData(error, "code");
}

/** Whether an error means the database could not be reached (worth retrying later). */
export function isConnectionError(error: unknown): boolean {
  const code = codeOf(error);
  if (typeof code === "string" && UNREACHABLE.has(code)) return true;
  const message = describeThrown(error);
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED/i.test(
    message,
  );
}

/** A database error as a `PostgresError` (one line, escaped). A `PostgresError` passes through. */
export function databaseError(error: unknown, connection: Connection): PostgresError {
  if (error instanceof PostgresError) return error;
  if (isConnectionError(error)) {
    return new PostgresError(
      "database-unreachable",
      `cannot reach PostgreSQL at ${connection.where}: ${safeText(firstLine(describeThrown(error)), 200)}`,
      { cause: error },
    );
  }
  // No schema, table, function or column: the database is not migrated (or by an older version).
  if (codeOf(error) === "3F000" || codeOf(error) === "42P01" || codeOf(error) === "42883" || codeOf(error) === "42703") {
    return new PostgresError(
      "not-migrated",
      `the plan-refs tables are not in ${connection.where} (schema ${connection.schema}): run migrate() or plan-refs db migrate first`,
      { cause: error },
    );
  }
  return new PostgresError(
    "database-error",
    `PostgreSQL at ${connection.where} failed: ${safeText(firstLine(describeThrown(error)), 300)}`,
    { cause: error },
  );
}

function firstLine(text: string): string {
  return text.split("\n")[0]!;
}

/**
 * The errors on which PostgreSQL rolled a transaction back for its race with another (a deadlock it
 * broke, a serialization failure): nothing of it was kept, and the same transaction again may succeed.
 */
const CONFLICT_CODES = new Set(["40P01", "40001"]);

/**
 * How many times in all a transaction is tried when PostgreSQL rolls it back for a conflict
 * (`retryingConflicts`): the race that made it lose is over once the other transaction ends.
 */
export const MAX_CONFLICT_TRIES = 5;

/**
 * Whether PostgreSQL rolled the transaction back for its race with another (deadlock, serialization).
 *
 * @example
 * isConflictError({ code: "40P01" }) // true
 */
export function isConflictError(error: unknown): boolean {
  const code = codeOf(error instanceof PostgresError && error.cause !== undefined ? error.cause : error);
  return typeof code === "string" && CONFLICT_CODES.has(code);
}

/**
 * `attempt` (one whole transaction, or one statement, its own) again while PostgreSQL rolls it back for
 * a conflict, at most `MAX_CONFLICT_TRIES` times in all, at once: the transaction that won holds the
 * locks, and the next try waits for it instead of deadlocking. Only for a transaction whose every
 * effect is in the database (a rolled-back try leaves nothing to undo); any other error, or the last
 * conflict, is thrown.
 *
 * @example
 * const { stored } = await retryingConflicts(() => settleDone(pool, connection, step))
 */
export async function retryingConflicts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (tries >= MAX_CONFLICT_TRIES || !isConflictError(error)) throw error;
    }
  }
}

/**
 * Run `work` in a transaction on a pooled client (rolled back if it throws); again from the start,
 * on a fresh transaction, when PostgreSQL rolls it back for a conflict (`retryingConflicts`): `work`
 * changes nothing but the database.
 */
export function inTransaction<T>(pool: PgPool, work: (client: PgPoolClient) => Promise<T>): Promise<T> {
  return retryingConflicts(() => oneTransaction(pool, work));
}

async function oneTransaction<T>(pool: PgPool, work: (client: PgPoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query("begin");
    const value = await work(client);
    await client.query("commit");
    return value;
  } catch (error) {
    broken = error;
    try {
      await client.query("rollback");
      broken = undefined;
    } catch {
      // The connection is gone: it is dropped below.
    }
    throw error;
  } finally {
    client.release(broken === undefined ? undefined : true);
  }
}

/**
 * A string as an SQL literal, for the few statements sent as one simple query (several statements in
 * one round trip, which takes no parameters): quotes doubled, and with a backslash an E'' literal with
 * backslashes doubled (pg's own `escapeLiteral` rule).
 */
export function literal(text: string): string {
  const quoted = text.replaceAll("'", "''");
  return text.includes("\\") ? ` E'${quoted.replaceAll("\\", "\\\\")}'` : `'${quoted}'`;
}

/** An integer for a simple query (never anything else). */
export function integer(value: number): string {
  if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer: ${String(value)}`);
  return String(value);
}

/** A schema-qualified table name. */
export function table(connection: Connection, name: string): string {
  return `"${connection.schema}".${name}`;
}
