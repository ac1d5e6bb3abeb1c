/**
 * The few statements sent as one simple query write values as SQL literals (`literal`): any string
 * reads back as itself from a real PostgreSQL, and run ids with quotes and backslashes run end to end.
 * Also: progress is announced only for followed runs.
 */
import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getRun, migrate, startWorker, submitPlan, waitForRun } from "../../src/postgres/index.js";
import { literal } from "../../src/postgres/db.js";
import { startWithClient, stopWithClient, type FileDatabase } from "./server.js";

let db: FileDatabase;
let client: pg.Client;

beforeAll(async () => {
  ({ db, client } = await startWithClient());
}, 60_000);

afterAll(() => stopWithClient(db, client), 60_000);

describe("SQL literals", { timeout: 60_000 }, () => {
  test("property: any string (quotes, backslashes, any Unicode but NUL) reads back as itself", async () => {
    const text = fc
      .string({ unit: fc.oneof(fc.constantFrom("'", "\\", "''", "\\'", "E'", "$$", ";", "--"), fc.string({ unit: "grapheme" })) })
      .map((s) => s.replaceAll("\u0000", ""));
    await fc.assert(
      fc.asyncProperty(text, async (value) => {
        const read = await client.query(`select ${literal(value)}::text as v`);
        expect(read.rows[0].v).toBe(value);
      }),
      { numRuns: 200 },
    );
  });

  test("run ids with quotes and backslashes run end to end", async () => {
    const worker = await startWorker({ connectionString: db.url, tools: { echo: (args) => args } });
    try {
      for (const runId of ["it's", "back\\slash", "';drop/**/table/**/plan_refs.runs;--", "E'\\\\'"]) {
        await submitPlan(
          {
            steps: [
              { id: 1, tool: "echo", args: { a: 1 } },
              { id: 2, tool: "echo", args: { b: "$1.a" } },
            ],
          },
          { connectionString: db.url, runId },
        );
        const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 30_000 });
        expect(report.status).toBe("ok");
        expect(report.results.get(2)).toEqual({ b: 1 });
      }
    } finally {
      await worker.stop();
    }
  });
});

describe("progress notifications", { timeout: 60_000 }, () => {
  test("sent only for runs someone follows (waitForRun with onProgress): none for the others", async () => {
    const listener = new pg.Client({ connectionString: db.url });
    listener.on("error", () => undefined);
    await listener.connect();
    const heard: string[] = [];
    listener.on("notification", (message) => heard.push(message.payload ?? ""));
    await listener.query('listen "plan_refs_progress"');
    // The first step waits until the run is followed (else a fast worker could end it before).
    let open: () => void = () => undefined;
    const followedNow = new Promise<void>((resolve) => (open = resolve));
    const worker = await startWorker({
      connectionString: db.url,
      tools: { echo: (args) => args, gate: async (args) => (args.wait === true && (await followedNow), { a: 1 }) },
    });
    try {
      const plan = (wait: boolean): unknown => ({
        steps: [
          { id: 1, tool: "gate", args: { wait } },
          { id: 2, tool: "echo", args: { b: "$1.a" } },
          { id: 3, tool: "echo", args: { c: "$2.b" } },
        ],
      });
      await submitPlan(plan(false), { connectionString: db.url, runId: "quiet" });
      expect((await waitForRun("quiet", { connectionString: db.url, timeoutMs: 30_000 })).status).toBe("ok");
      await submitPlan(plan(true), { connectionString: db.url, runId: "followed" });
      let snapshots = 0;
      const followed = await waitForRun("followed", {
        connectionString: db.url,
        timeoutMs: 30_000,
        onProgress: () => (snapshots++, open()),
      });
      expect(followed.status).toBe("ok");
      expect(followed.results.get(3)).toEqual({ c: 1 });
      await listener.query("select 1"); // notifications committed before this query are delivered before its reply
      expect(heard.filter((id) => id === "quiet")).toEqual([]);
      // Each change after the run was followed is announced: step 1 settled, steps 2 and 3 started and
      // settled. A worker that settles a step starts its dependent in the same transaction (one
      // announcement for both: PostgreSQL sends a transaction's equal notifications once), so three at least.
      expect(heard.filter((id) => id === "followed").length).toBeGreaterThanOrEqual(3);
      expect(snapshots).toBeGreaterThanOrEqual(1);
    } finally {
      await worker.stop();
      await listener.end();
    }
  });
});

describe("a database migrated by an older version, or not at all", { timeout: 60_000 }, () => {
  test("not-migrated, naming the schema: no tables, no watched column, no settle_done function", async () => {
    const plan = { steps: [{ id: 1, tool: "echo", args: {} }] };
    await expect(submitPlan(plan, { connectionString: db.url, schema: "never_made" })).rejects.toMatchObject({
      name: "PostgresError",
      code: "not-migrated",
      message: expect.stringContaining("schema never_made"),
    });
    await migrate({ connectionString: db.url, schema: "older" });
    // Both signatures migrate makes: the current one and the previous release's (its wrapper).
    await client.query(
      "alter table older.runs drop column watched; drop function older.settle_done(text, bigint, integer, json, bigint[], text[], text, text, text), older.settle_done(text, bigint, integer, json, bigint[], text[], text, text, text, text, text[])",
    );
    const runId = await submitPlan(plan, { connectionString: db.url, schema: "older" });
    await expect(waitForRun(runId, { connectionString: db.url, schema: "older", onProgress: () => undefined })).rejects.toMatchObject({
      name: "PostgresError",
      code: "not-migrated",
    });
    const done = await client
      .query("select older.settle_done('x', 1, 1, null, '{}', '{}', 'ok', 'failed')")
      .catch((error: unknown) => error);
    expect(done).toMatchObject({ code: "42883" }); // what databaseError maps to not-migrated
    await migrate({ connectionString: db.url, schema: "older" }); // upgrades it
    await expect(getRun(runId, { connectionString: db.url, schema: "older" })).resolves.toMatchObject({ status: "running" });
    expect(
      (await client.query("select stored from older.settle_done('x', 1, 1, null, '{}', '{}', 'ok', 'failed', null, null, null)")).rows[0]
        .stored,
    ).toBe(false);
  });
});
