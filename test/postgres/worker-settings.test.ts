/**
 * startWorker refuses a setting no timer can hold before it connects anywhere: Node fires a timer of
 * more than 2^31 − 1 ms after 1 ms, so such a timeout would fail every step at once.
 */
import { describe, expect, test } from "vitest";
import { startWorker } from "../../src/postgres/index.js";
import { WORKER_LIMITS } from "../../src/postgres/worker-settings.js";

// Nobody listens on port 1: a setting that got past the checks would fail to connect instead.
const connectionString = "postgres://127.0.0.1:1/none";

describe("startWorker's bounds", () => {
  test.each([
    ["timeoutMs", 2 ** 31],
    ["timeoutMs", 0],
    ["recoveryMs", 2 ** 31],
    ["recoveryMs", 1],
    ["graceMs", WORKER_LIMITS.graceMs.max + 1],
    ["concurrency", 100_000],
  ])("%s: %d is refused with invalid-options, naming the setting and what is allowed", async (name, value) => {
    const refused = startWorker({ connectionString, tools: {}, [name]: value });
    await expect(refused).rejects.toMatchObject({ code: "invalid-options" });
    await expect(refused).rejects.toThrow(`startWorker: option ${name} must be `);
  });
});
