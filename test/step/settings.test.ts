/**
 * The executors' option readers (src/step/settings.ts): the same value is accepted or refused, with the
 * same code, by `runPlan`, by `submitPlan` and by `startWorker` (which reads its options with
 * `readWorkerSettings`). submitPlan and startWorker check their options before they connect: an accepted
 * value gets as far as the database, here a port nobody listens on (`database-unreachable`).
 */
import { createServer } from "node:net";
import { beforeAll, describe, expect, test } from "vitest";
import { submitPlan } from "../../src/postgres/submit.js";
import { startWorker } from "../../src/postgres/worker.js";
import { WORKER_LIMITS } from "../../src/postgres/worker-settings.js";
import { runPlan } from "../../src/run/run-plan.js";
import { MAX_TIMEOUT_MS, readDuration, readSerialTools, readToolConcurrency, type RefuseOption } from "../../src/step/settings.js";
import { DEFAULT_GRACE_MS, DEFAULT_RECOVERY_MS, readWorkerSettings } from "../../src/postgres/worker-settings.js";
import { CodedError, RefError } from "../../src/shared/errors.js";

/** What an entry point did with the options: took them, or refused them with this code. */
type Verdict = string; // "accepted", or the code of the refusal

class WorkerRefusal extends CodedError<"invalid-options"> {}
const refuse: RefuseOption = (message) => new WorkerRefusal("invalid-options", `startWorker: ${message}`);

const plan = [{ id: 1, tool: "t", args: {} }];
let nobodyListens = "";

beforeAll(async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  nobodyListens = `postgres://nobody@127.0.0.1:${port}/none`;
});

function codeOf(error: unknown): string {
  return error instanceof RefError || error instanceof CodedError ? String(error.code) : `not a coded error: ${String(error)}`;
}

async function throughRunPlan(options: object): Promise<Verdict> {
  let calls = 0;
  try {
    await runPlan(plan, { t: () => calls++ }, options);
    return "accepted";
  } catch (error) {
    expect(calls).toBe(0);
    return codeOf(error);
  }
}

async function throughSubmitPlan(options: object): Promise<Verdict> {
  try {
    await submitPlan(plan, { connectionString: nobodyListens, options });
    return "accepted (stored?)";
  } catch (error) {
    const code = codeOf(error);
    return code === "database-unreachable" ? "accepted" : code;
  }
}

async function throughWorker(options: object): Promise<Verdict> {
  try {
    // Added to the object itself: a spread copy would run a getter row's getter.
    const worker = await startWorker(
      Object.defineProperties(options, {
        tools: { value: {}, enumerable: true },
        connectionString: { value: nobodyListens, enumerable: true },
      }) as never,
    );
    await worker.stop();
    return "accepted (started?)";
  } catch (error) {
    const code = codeOf(error);
    return code === "database-unreachable" ? "accepted" : code;
  }
}

// Made inside the test: vitest would run a getter to print the row's name.
const getter = (value: unknown) => () => Object.defineProperty({}, "timeoutMs", { enumerable: true, get: () => value });
const throwing = () =>
  Object.defineProperty({}, "timeoutMs", {
    enumerable: true,
    get: () => {
      throw new Error("no timeout for you");
    },
  });

describe("timeoutMs: the same verdict from runPlan, submitPlan and the workers", () => {
  test.each([
    ["Infinity (no limit)", { timeoutMs: Infinity }, "accepted"],
    ["MAX_TIMEOUT_MS", { timeoutMs: MAX_TIMEOUT_MS }, "accepted"],
    ["60,000", { timeoutMs: 60_000 }, "accepted"],
    ["a fraction of a millisecond over one", { timeoutMs: 1.5 }, "accepted"],
    ["absent", {}, "accepted"],
    ["2^31 (a timer would fire after 1 ms)", { timeoutMs: 2 ** 31 }, "invalid-options"],
    ["Number.MAX_VALUE", { timeoutMs: Number.MAX_VALUE }, "invalid-options"],
    ["0", { timeoutMs: 0 }, "invalid-options"],
    ["-5", { timeoutMs: -5 }, "invalid-options"],
    ["NaN", { timeoutMs: Number.NaN }, "invalid-options"],
    ["-Infinity", { timeoutMs: -Infinity }, "invalid-options"],
    ["a string", { timeoutMs: "1000" }, "invalid-options"],
    ["null", { timeoutMs: null }, "invalid-options"],
    ["a getter (read once, like a value)", getter(60_000), "accepted"],
    ["a getter giving 2^31", getter(2 ** 31), "invalid-options"],
    ["a getter that throws", throwing, "access"],
  ] as const)("%s: %s", async (_name, given, verdict) => {
    const options = typeof given === "function" ? given() : given;
    // Each entry point gets its own object: a getter row counts its reads per entry point.
    const fresh = () => (typeof given === "function" ? given() : options);
    expect({
      runPlan: await throughRunPlan(fresh()),
      submitPlan: await throughSubmitPlan(fresh()),
      worker: await throughWorker(fresh()),
    }).toEqual({ runPlan: verdict, submitPlan: verdict, worker: verdict });
  });
});

describe("concurrency, signal, onEvent: the same verdict from runPlan and the workers", () => {
  test.each([
    [{ concurrency: 1 }, "accepted"],
    [{ concurrency: 256 }, "accepted"],
    [{ concurrency: 0 }, "invalid-options"],
    [{ concurrency: 1.5 }, "invalid-options"],
    [{ concurrency: "8" }, "invalid-options"],
    [{ signal: new AbortController().signal }, "accepted"],
    [{ signal: { aborted: false } }, "invalid-options"],
    [{ signal: "stop" }, "invalid-options"],
    [{ onEvent: () => undefined }, "accepted"],
    [{ onEvent: "log" }, "invalid-options"],
  ] as const)("%j: %s", async (options, verdict) => {
    expect({ runPlan: await throughRunPlan({ ...options }), worker: await throughWorker({ ...options }) }).toEqual({
      runPlan: verdict,
      worker: verdict,
    });
  });

  test("a worker's concurrency is bounded by the connections it needs (runPlan's is not)", async () => {
    expect({ runPlan: await throughRunPlan({ concurrency: 10_000 }), worker: await throughWorker({ concurrency: 10_000 }) }).toEqual({
      runPlan: "accepted",
      worker: "invalid-options",
    });
  });
});

describe("retry and retryByTool: the same verdict from runPlan and submitPlan (which stores them for the workers)", () => {
  test.each([
    [{ retry: { attempts: 3 } }, "accepted"],
    [{ retry: { attempts: 3, initialDelayMs: 0, factor: 1, maxDelayMs: 10, jitter: "none", retryOn: ["timeout"] } }, "accepted"],
    [{ retryByTool: { t: { attempts: 2 } } }, "accepted"],
    [{ retry: { attempts: 0 } }, "invalid-options"],
    [{ retry: { attempts: 3, jitter: "some" } }, "invalid-options"],
    [{ retry: { attempts: 3, retryOn: ["aborted"] } }, "invalid-options"],
    [{ retry: { attempts: 3, maxDelayMs: 2 ** 31 } }, "invalid-options"],
    [{ retryByTool: { t: { attempts: "3" } } }, "invalid-options"],
    [{ retryByTool: "t" }, "invalid-options"],
  ] as const)("%j: %s", async (options, verdict) => {
    expect({ runPlan: await throughRunPlan(options), submitPlan: await throughSubmitPlan(options) }).toEqual({
      runPlan: verdict,
      submitPlan: verdict,
    });
  });
});

describe("toolConcurrency: the same verdict from runPlan and the workers", () => {
  test.each([
    [{ toolConcurrency: { t: 1 } }, "accepted"],
    [{ toolConcurrency: { t: 256, other: 3 } }, "accepted"],
    [{ toolConcurrency: {} }, "accepted"],
    [{ toolConcurrency: { t: 0 } }, "invalid-options"],
    [{ toolConcurrency: { t: 1.5 } }, "invalid-options"],
    [{ toolConcurrency: { t: "2" } }, "invalid-options"],
    [{ toolConcurrency: { t: undefined } }, "invalid-options"],
    [{ toolConcurrency: ["t"] }, "invalid-options"],
    [{ toolConcurrency: 2 }, "invalid-options"],
  ] as const)("%j: %s", async (options, verdict) => {
    expect({ runPlan: await throughRunPlan({ ...options }), worker: await throughWorker({ ...options }) }).toEqual({
      runPlan: verdict,
      worker: verdict,
    });
  });

  test("a worker's limit is bounded as its concurrency is (runPlan's is not)", async () => {
    expect({
      runPlan: await throughRunPlan({ toolConcurrency: { t: 257 } }),
      worker: await throughWorker({ toolConcurrency: { t: 257 } }),
    }).toEqual({ runPlan: "accepted", worker: "invalid-options" });
  });
});

describe("serialTools: submitPlan's verdict", () => {
  test.each([
    [{ serialTools: ["t"] }, "accepted"],
    [{ serialTools: [] }, "accepted"],
    [{ serialTools: "t" }, "invalid-options"],
    [{ serialTools: [1] }, "invalid-options"],
    [{ serialTools: ["a\u0000b"] }, "invalid-options"],
    [{ serialTools: ["\ud800"] }, "invalid-options"],
  ] as const)("%j: %s", async (options, verdict) => {
    expect(await throughSubmitPlan(options)).toBe(verdict);
  });
});

describe("the readers of toolConcurrency and serialTools", () => {
  const bounds = WORKER_LIMITS.concurrency;
  const readLimits = (value: unknown, bounded: boolean) => [
    ...readToolConcurrency(value, "toolConcurrency", refuse, bounded ? bounds : undefined)!,
  ];
  test.each([
    [
      "two tools",
      { geocode: 2, weather: 1 },
      false,
      [
        ["geocode", 2],
        ["weather", 1],
      ],
    ],
    ["a tool named __proto__ is a name like any other", JSON.parse('{"__proto__": 3}'), false, [["__proto__", 3]]],
    ["runPlan's limit has no upper bound", { geocode: 10_000 }, false, [["geocode", 10_000]]],
    ["a worker's is its concurrency's", { geocode: 256 }, true, [["geocode", 256]]],
    ["0", { geocode: 0 }, false, "option toolConcurrency.geocode must be a positive integer"],
    ["over a worker's bound", { geocode: 257 }, true, "option toolConcurrency.geocode must be an integer from 1 to 256, not 257"],
    ["a string, to a worker", { geocode: "2" }, true, 'option toolConcurrency.geocode must be an integer from 1 to 256, not "2"'],
    ["a tool name that would forge a line is escaped", { "a\nb": -1 }, false, "option toolConcurrency.a\\nb must be a positive integer"],
    ["an array", [2], false, "option toolConcurrency must be an object of call limits by tool name (positive integers)"],
    ["null", null, false, "option toolConcurrency must be an object of call limits by tool name (positive integers)"],
  ] as const)("%s", (_name, value, bounded, expected) => {
    if (typeof expected === "string")
      expect(() => readLimits(value, bounded)).toThrow(new WorkerRefusal("invalid-options", `startWorker: ${expected}`));
    else expect(readLimits(value, bounded)).toEqual(expected);
  });

  test("a getter is never run", () => {
    let runs = 0;
    const limits = Object.defineProperty({ a: 1 }, "b", { enumerable: true, get: () => ++runs });
    expect(readLimits(limits, false)).toEqual([["a", 1]]);
    expect(runs).toBe(0);
  });

  test("absent: undefined", () => {
    expect(readToolConcurrency(undefined, "toolConcurrency")).toBeUndefined();
    expect(readSerialTools(undefined, "serialTools")).toBeUndefined();
  });

  test.each([
    ["names", ["geocode", "weather", "geocode"], ["geocode", "weather"]],
    ["none", [], []],
    ["a number among them", ["geocode", 3], "option serialTools must be an array of tool names (strings)"],
    ["a string", "geocode", "option serialTools must be an array of tool names (strings)"],
    ["an object", { geocode: true }, "option serialTools must be an array of tool names (strings)"],
  ] as const)("serialTools: %s", (_name, value, expected) => {
    if (typeof expected === "string")
      expect(() => readSerialTools(value, "serialTools", refuse)).toThrow(new WorkerRefusal("invalid-options", `startWorker: ${expected}`));
    else expect([...readSerialTools(value, "serialTools", refuse)!]).toEqual(expected);
  });
});

describe("the workers' own durations", () => {
  test.each([
    [{ recoveryMs: 2 ** 31 }, "recoveryMs", "an integer from 1000 to 2147483647, not 2147483648"],
    [{ recoveryMs: 999 }, "recoveryMs", "an integer from 1000 to 2147483647, not 999"],
    [{ graceMs: 2 ** 31 }, "graceMs", "an integer from 1 to 2147478647, not 2147483648"],
    [{ recoveryMs: Infinity }, "recoveryMs", "an integer from 1000 to 2147483647, not Infinity"],
    [{ graceMs: 0 }, "graceMs", "an integer from 1 to 2147478647, not 0"],
    [{ recoveryMs: "30s" }, "recoveryMs", 'an integer from 1000 to 2147483647, not "30s"'],
  ])("%j is refused, in the worker's error class and words", (options, name, words) => {
    const error = (() => {
      try {
        readWorkerSettings({ tools: {}, ...options }, refuse, WORKER_LIMITS);
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(WorkerRefusal);
    expect((error as Error).message).toMatch(new RegExp(`^startWorker: option ${name} must be `));
    expect((error as Error).message).toContain(words);
  });

  test("defaults, and a force-stop timer that never passes what a timer can wait", () => {
    const settings = readWorkerSettings({ tools: { a: () => 1, b: "not a function" } }, refuse, WORKER_LIMITS);
    expect(settings).toMatchObject({
      concurrency: 8,
      recoveryMs: DEFAULT_RECOVERY_MS,
      graceMs: DEFAULT_GRACE_MS,
      timeoutMs: undefined,
      forceStopMs: DEFAULT_GRACE_MS + 5_000,
    });
    expect([...settings.tools.keys()]).toEqual(["a"]);
    expect(readWorkerSettings({ tools: {}, graceMs: WORKER_LIMITS.graceMs.max }, refuse, WORKER_LIMITS).forceStopMs).toBe(MAX_TIMEOUT_MS);
    expect(readWorkerSettings({ tools: {}, timeoutMs: Infinity }, refuse, WORKER_LIMITS).timeoutMs).toBeUndefined();
  });

  test("tools must be an object", () => {
    expect(() => readWorkerSettings({ tools: "echo" }, refuse, WORKER_LIMITS)).toThrow(
      "startWorker: option tools must be an object of tool functions",
    );
  });
});

test("readDuration gives the fallback when absent and refuses Infinity where it is not 'no limit'", () => {
  expect(readDuration(undefined, "graceMs", false, 5_000)).toBe(5_000);
  expect(readDuration(Infinity, "timeoutMs", true, undefined)).toBeUndefined();
  expect(() => readDuration(Infinity, "graceMs", false, 5_000)).toThrow("option graceMs must be at most 2147483647 ms (about 24.8 days)");
});
