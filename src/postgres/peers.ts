/**
 * The optional peers of `plan-refs/postgres`, loaded when first needed: importing the subpath works
 * without them, and the first call that needs them fails with one line naming the install command.
 */
import { describeThrown } from "../shared/errors.js";
import { safeText } from "../shared/text.js";
import { ownData } from "../shared/own-data.js";
import { POSTGRES_INSTALL, PostgresError } from "./errors.js";

/** The parts of `pg` that plan-refs uses. */
export interface PgModule {
  readonly Pool: new (config: Record<string, unknown>) => PgPool;
  readonly Client: new (config: Record<string, unknown>) => PgClient;
}

export interface PgQueryResult {
  readonly rows: Record<string, unknown>[];
  readonly rowCount: number | null;
}

/** A named query: prepared once per connection, then only bound and run (pg's `name`). */
export interface PgNamedQuery {
  readonly name: string;
  readonly text: string;
  readonly values: readonly unknown[];
}

export interface PgQueryable {
  query(text: string, values?: readonly unknown[]): Promise<PgQueryResult>;
  query(query: PgNamedQuery): Promise<PgQueryResult>;
}

export interface PgClient extends PgQueryable {
  connect(): Promise<void>;
  end(): Promise<void>;
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: "error" | "end", listener: (error?: Error) => void): unknown;
}

export interface PgPoolClient extends PgQueryable {
  release(destroy?: boolean | Error): void;
}

export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "connect", listener: (client: PgClient) => void): unknown;
}

let pgModule: Promise<PgModule> | undefined;

/** The peers of plan-refs/postgres. */
const PEERS = ["pg", "graphile-worker"] as const;

/** Whether a package can be found from here (without loading it). */
function installed(name: string): boolean {
  try {
    import.meta.resolve(name);
    return true;
  } catch {
    return false;
  }
}

export function notInstalled(name: string, error: unknown): PostgresError {
  const code = ownData(error, "code");
  if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
    // Name every peer that is missing, not only the one that was loaded first.
    const missing = PEERS.filter((peer) => peer === name || !installed(peer));
    const which = missing.length > 1 ? `${missing.join(" and ")} are` : `${missing[0] ?? name} is`;
    return new PostgresError(
      "missing-dependency",
      `plan-refs/postgres needs pg and graphile-worker, and ${which} not installed: ${POSTGRES_INSTALL}`,
      { cause: error },
    );
  }
  return new PostgresError(
    "missing-dependency",
    `${name} could not be loaded (${safeText(describeThrown(error), 200)}); reinstall it: ${POSTGRES_INSTALL}`,
    { cause: error },
  );
}

/** `pg`, loaded once. */
export function loadPg(): Promise<PgModule> {
  pgModule ??= import("pg").then(
    (module) => ((module as { default?: unknown }).default ?? module) as PgModule,
    (error: unknown) => {
      pgModule = undefined;
      throw notInstalled("pg", error);
    },
  );
  return pgModule;
}
