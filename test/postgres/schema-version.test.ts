/**
 * Starts PostgreSQL (a database of this file's own on the run's server): the schema version `migrate`
 * records, and what a worker does at start-up with it. A worker within the schema's compatibility
 * window starts; one whose code is older than the window refuses with one line naming both versions
 * (a future release's migrate is simulated by recording its numbers in a schema of the test's own);
 * one newer than the schema asks for `migrate`; an older release's `migrate` refuses a newer schema.
 */
import { describe, expect, test } from "vitest";
import { migrate, PostgresError, startWorker } from "../../src/postgres/index.js";
import { readConnection } from "../../src/postgres/db.js";
import {
  COMPATIBILITY_WINDOW,
  migrateSchemaProblem,
  readSchemaVersion,
  recordSchemaVersion,
  SCHEMA_VERSION,
  THIS_SCHEMA,
  workerSchemaProblem,
  type RecordedSchema,
} from "../../src/postgres/schema-version.js";
import { databaseAndClient } from "./server.js";

const shared = databaseAndClient();

/** What a call threw: its code and message (`undefined` when it did not throw). */
async function refusal(call: () => Promise<unknown>): Promise<{ code: string; message: string } | undefined> {
  try {
    const made = await call();
    // A worker that started: stopped, the test sees it started.
    if (typeof made === "object" && made !== null && "stop" in made) await (made as { stop(): Promise<void> }).stop();
    return undefined;
  } catch (error) {
    if (!(error instanceof PostgresError)) throw error;
    return { code: error.code, message: error.message };
  }
}

const V = SCHEMA_VERSION;

describe("the schema version's rules", () => {
  test.each<[string, RecordedSchema | undefined, ReturnType<typeof workerSchemaProblem>]>([
    ["the same version", { version: V, oldestWorker: V - 1 }, undefined],
    ["a newer schema that still serves this worker (a rolling upgrade)", { version: V + 1, oldestWorker: V }, undefined],
    [
      "a newer schema past the window",
      { version: V + 2, oldestWorker: V + 1 },
      {
        code: "worker-too-old",
        message: `database schema version ${V + 2} (for workers of version ${V + 1} or later); this worker supports up to version ${V}: upgrade plan-refs on this machine`,
      },
    ],
    [
      "an older schema",
      { version: V - 1, oldestWorker: V - 2 },
      {
        code: "not-migrated",
        message: `database schema version ${V - 1}; this worker needs version ${V}: run migrate() or plan-refs db migrate with this release first`,
      },
    ],
    [
      "no version recorded (an older release migrated it)",
      undefined,
      {
        code: "not-migrated",
        message: `database schema of no recorded version (an older plan-refs migrated it); this worker needs version ${V}: run migrate() or plan-refs db migrate with this release first`,
      },
    ],
  ])("a worker on %s", (_, recorded, problem) => {
    expect(workerSchemaProblem(recorded)).toEqual(problem);
  });

  test.each<[string, RecordedSchema | undefined, boolean]>([
    ["nothing recorded", undefined, false],
    ["an older schema", { version: V - 1, oldestWorker: V - 2 }, false],
    ["the same version", THIS_SCHEMA, false],
    ["a newer schema, even one that serves this release's workers", { version: V + 1, oldestWorker: V }, true],
  ])("migrate over %s refuses: %s", (_, recorded, refused) => {
    expect(migrateSchemaProblem(recorded)?.code).toBe(refused ? "worker-too-old" : undefined);
  });

  test("this release serves its own workers and the previous release's: the window is one version", () => {
    expect(THIS_SCHEMA).toEqual({ version: V, oldestWorker: V - COMPATIBILITY_WINDOW });
    expect(COMPATIBILITY_WINDOW).toBe(1);
  });
});

describe("a worker's start-up against the recorded version", { timeout: 60_000 }, () => {
  test("migrate records this release's version; a worker older than a newer schema's window refuses with both versions; within it, it starts", async () => {
    const options = { connectionString: shared.db.url, schema: "too_old" };
    const connection = readConnection(options, "test");
    await migrate(options);
    expect(await readSchemaVersion(shared.client, connection)).toEqual(THIS_SCHEMA);
    const start = () => startWorker({ ...options, tools: { echo: (args) => args } });
    expect(await refusal(start)).toBeUndefined();

    // A later release migrated the schema and serves the workers of the version after this one.
    await recordSchemaVersion(shared.client, connection, { version: V + 2, oldestWorker: V + 1 });
    expect(await refusal(start)).toEqual({
      code: "worker-too-old",
      message: `${connection.where} (schema too_old): database schema version ${V + 2} (for workers of version ${V + 1} or later); this worker supports up to version ${V}: upgrade plan-refs on this machine`,
    });
    // This release's migrate would put its functions back under the newer workers: refused, nothing changed.
    expect(await refusal(() => migrate(options))).toEqual({
      code: "worker-too-old",
      message: `${connection.where} (schema too_old): database schema version ${V + 2}; this plan-refs migrates up to version ${V}: upgrade plan-refs on this machine`,
    });
    expect(await readSchemaVersion(shared.client, connection)).toEqual({ version: V + 2, oldestWorker: V + 1 });

    // A later release that still serves this one's workers (its window keeps what they call): they start.
    await recordSchemaVersion(shared.client, connection, { version: V + 1, oldestWorker: V });
    expect(await refusal(start)).toBeUndefined();
  });

  test("a worker newer than the schema asks for migrate: an older version recorded, or none (a database an older release migrated); after migrate it starts", async () => {
    const options = { connectionString: shared.db.url, schema: "older" };
    const connection = readConnection(options, "test");
    await migrate(options);
    const start = () => startWorker({ ...options, tools: { echo: (args) => args } });
    await recordSchemaVersion(shared.client, connection, { version: V - 1, oldestWorker: V - 2 });
    expect(await refusal(start)).toEqual({
      code: "not-migrated",
      message: `${connection.where} (schema older): database schema version ${V - 1}; this worker needs version ${V}: run migrate() or plan-refs db migrate with this release first`,
    });
    await shared.client.query("drop table older.schema_version");
    expect(await readSchemaVersion(shared.client, connection)).toBeUndefined();
    expect((await refusal(start))?.code).toBe("not-migrated");
    await migrate(options);
    expect(await readSchemaVersion(shared.client, connection)).toEqual(THIS_SCHEMA);
    expect(await refusal(start)).toBeUndefined();
  });

  test("no plan-refs tables at all: not-migrated, as before versions were recorded", async () => {
    const options = { connectionString: shared.db.url, schema: "never_migrated" };
    expect(await refusal(() => startWorker({ ...options, tools: { echo: (args) => args } }))).toMatchObject({
      code: "not-migrated",
      message: expect.stringContaining("run migrate() or plan-refs db migrate first"),
    });
    expect(await readSchemaVersion(shared.client, readConnection(options, "test"))).toBeUndefined();
  });
});
