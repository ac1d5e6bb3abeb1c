/**
 * The option readers of src/step/settings.ts, each on its own: every option of `runPlan`
 * (`readRunSettings`) and of a worker (`readWorkerSettings`) given a value other than its default
 * comes back as that value, under its own name; each refusal names the option and what it must be;
 * a retry policy keeps every field it was given; each bound is inclusive.
 */
import { describe, expect, test } from "vitest";
import { RETRY_DEFAULTS } from "../../src/step/retry.js";
import {
  MAX_RUN_ID_LENGTH,
  MAX_TIMEOUT_MS,
  NO_TIME_LIMIT,
  readBounded,
  readRetryOptions,
  readRunId,
  readRunTimeout,
  retryPolicyOf,
  RUN_ID_PATTERN,
  tryTimeoutMs,
  readDuration,
  readOption,
  readRetryPolicy,
  readRetryByTool,
  readSignal,
  readToolConcurrency,
  type RefuseOption,
} from "../../src/step/settings.js";
import { readRunSettings } from "../../src/run/run-options.js";
import { readWorkerSettings } from "../../src/postgres/worker-settings.js";
import { CodedError, describeThrown, RefError } from "../../src/shared/errors.js";

class WorkerRefusal extends CodedError<"invalid-options"> {}
const refuse: RefuseOption = (message) => new WorkerRefusal("invalid-options", `startWorker: ${message}`);
const BOUNDS = { concurrency: { min: 1, max: 256 }, recoveryMs: { min: 1_000, max: MAX_TIMEOUT_MS }, graceMs: { min: 1, max: 10_000 } };

/** What `read` throws (`undefined`: it returned). */
function thrown(read: () => unknown): unknown {
  try {
    read();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** The message of what `read` throws (`undefined`: it returned). */
function refusal(read: () => unknown): string | undefined {
  const error = thrown(read);
  return error instanceof Error ? error.message : error === undefined ? undefined : describeThrown(error);
}

describe("readWorkerSettings", () => {
  test("every setting given comes back as given, under its own name", () => {
    const signal = new AbortController().signal;
    const onEvent = () => undefined;
    const echo = () => 1;
    const settings = readWorkerSettings(
      {
        tools: { echo, note: "not a tool" },
        concurrency: 3,
        recoveryMs: 4_000,
        timeoutMs: 250,
        graceMs: 70,
        signal,
        onEvent,
        validateInputs: true,
        toolConcurrency: { echo: 2 },
      },
      refuse,
      BOUNDS,
    );
    expect(settings).toEqual({
      tools: new Map([["echo", echo]]),
      concurrency: 3,
      recoveryMs: 4_000,
      timeoutMs: 250,
      graceMs: 70,
      forceStopMs: 5_070,
      signal,
      onEvent,
      validateInputs: true,
      toolConcurrency: new Map([["echo", 2]]),
    });
  });

  test("validateInputs is on only when it is true", () => {
    expect(readWorkerSettings({ tools: {}, validateInputs: "yes" }, refuse, BOUNDS).validateInputs).toBe(false);
    expect(readWorkerSettings({ tools: {} }, refuse, BOUNDS).validateInputs).toBe(false);
  });

  test.each([
    ["tools null", { tools: null }, "startWorker: option tools must be an object of tool functions"],
    ["tools a string", { tools: "echo" }, "startWorker: option tools must be an object of tool functions"],
    ["concurrency 0", { tools: {}, concurrency: 0 }, "startWorker: option concurrency must be an integer from 1 to 256, not 0"],
    [
      "concurrency over its bound",
      { tools: {}, concurrency: 257 },
      "startWorker: option concurrency must be an integer from 1 to 256, not 257",
    ],
    ["recoveryMs", { tools: {}, recoveryMs: 999 }, "startWorker: option recoveryMs must be an integer from 1000 to 2147483647, not 999"],
    ["graceMs", { tools: {}, graceMs: 10_001 }, "startWorker: option graceMs must be an integer from 1 to 10000, not 10001"],
    [
      "timeoutMs",
      { tools: {}, timeoutMs: -1 },
      "startWorker: option timeoutMs must be a positive number of milliseconds (or Infinity for no limit)",
    ],
    ["signal", { tools: {}, signal: 1 }, "startWorker: option signal must be an AbortSignal"],
    ["onEvent", { tools: {}, onEvent: "log" }, "startWorker: option onEvent must be a function"],
    [
      "toolConcurrency",
      { tools: {}, toolConcurrency: { echo: 257 } },
      "startWorker: option toolConcurrency.echo must be an integer from 1 to 256, not 257",
    ],
  ])("%s is refused in the worker's words", (_name, options, message) => {
    expect(refusal(() => readWorkerSettings(options, refuse, BOUNDS))).toBe(message);
  });
});

describe("readRunSettings", () => {
  test("every option given comes back as given, under its own name", () => {
    const signal = new AbortController().signal;
    const onEvent = () => undefined;
    const needsApproval = () => true;
    const tracer = { startSpan: () => undefined };
    const settings = readRunSettings({
      concurrency: 2,
      timeoutMs: 300,
      failFast: true,
      validateOutputs: true,
      validateInputs: true,
      approvalTools: ["send", "send", "pay"],
      signal,
      onEvent,
      runId: "r-1",
      needsApproval,
      tracer,
      recordContent: true,
      toolConcurrency: { send: 1 },
      retry: { attempts: 2 },
    });
    expect(settings).toMatchObject({
      concurrency: 2,
      timeoutMs: 300,
      failFast: true,
      validateOutputs: true,
      validateInputs: true,
      signal,
      onEvent,
      runId: "r-1",
      needsApproval,
      trace: { tracer, recordContent: true },
    });
    expect([...settings.approvalTools!]).toEqual(["send", "pay"]);
    expect([...settings.toolConcurrency!]).toEqual([["send", 1]]);
    expect(settings.retry?.attempts).toBe(2);
  });

  test("absent options: the defaults, no language option set, a fresh run id each time", () => {
    const settings = readRunSettings({});
    expect(settings).toMatchObject({
      concurrency: 8,
      timeoutMs: undefined,
      failFast: false,
      approvalTools: undefined,
      needsApproval: undefined,
      toolConcurrency: undefined,
      trace: { tracer: undefined, recordContent: false },
    });
    expect(Object.keys(settings.language)).toEqual([]);
    expect(settings.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(readRunSettings({}).runId).not.toBe(settings.runId);
    expect(readRunSettings({ tracer: false }).trace.tracer).toBe(false);
  });

  test.each([
    ["runId empty", { runId: "" }, `option runId must be 1 to ${MAX_RUN_ID_LENGTH} printable ASCII characters without spaces`],
    [
      "runId too long",
      { runId: "r".repeat(MAX_RUN_ID_LENGTH + 1) },
      `option runId must be 1 to ${MAX_RUN_ID_LENGTH} printable ASCII characters without spaces`,
    ],
    ["runId a number", { runId: 7 }, `option runId must be 1 to ${MAX_RUN_ID_LENGTH} printable ASCII characters without spaces`],
    // One run-id rule with submitPlan's: printable ASCII, no space, no control character, nothing a terminal line could hide.
    ["runId with a space", { runId: "trip 1" }, `option runId must be 1 to ${MAX_RUN_ID_LENGTH} printable ASCII characters without spaces`],
    [
      "runId with a control character",
      { runId: "trip\u001b[2K" },
      `option runId must be 1 to ${MAX_RUN_ID_LENGTH} printable ASCII characters without spaces`,
    ],
    ["runId not ASCII", { runId: "trip-é" }, `option runId must be 1 to ${MAX_RUN_ID_LENGTH} printable ASCII characters without spaces`],
    ["approvalTools", { approvalTools: "send" }, "option approvalTools must be an array of tool names (strings)"],
    ["needsApproval", { needsApproval: true }, "option needsApproval must be a function"],
    ["tracer without startSpan", { tracer: {} }, "option tracer must be an OpenTelemetry tracer (an object with startSpan), or false"],
    [
      "tracer a function",
      { tracer: () => undefined },
      "option tracer must be an OpenTelemetry tracer (an object with startSpan), or false",
    ],
    ["tracer null", { tracer: null }, "option tracer must be an OpenTelemetry tracer (an object with startSpan), or false"],
    ["tracer true", { tracer: true }, "option tracer must be an OpenTelemetry tracer (an object with startSpan), or false"],
    ["toolConcurrency", { toolConcurrency: { send: 0 } }, "option toolConcurrency.send must be a positive integer"],
    ["timeoutMs", { timeoutMs: -1 }, "option timeoutMs must be a positive number of milliseconds (or Infinity for no limit)"],
    ["concurrency", { concurrency: 0 }, "option concurrency must be a positive integer"],
  ])("%s is refused, naming it", (_name, options, message) => {
    const error = thrown(() => readRunSettings(options));
    expect(error).toBeInstanceOf(RefError);
    expect([(error as RefError).code, (error as Error).message]).toEqual(["invalid-options", message]);
  });

  test("a run id of the longest length is kept", () => {
    const longest = "r".repeat(MAX_RUN_ID_LENGTH);
    expect(readRunSettings({ runId: longest }).runId).toBe(longest);
  });
});

describe("a retry policy", () => {
  test("keeps every field it was given", () => {
    expect(
      readRetryPolicy({ attempts: 4, initialDelayMs: 0, maxDelayMs: 900, factor: 3, jitter: "none", retryOn: ["timeout"] }, "retry"),
    ).toEqual({ attempts: 4, initialDelayMs: 0, maxDelayMs: 900, factor: 3, jitter: "none", retryOn: ["timeout"] });
  });

  test("fills in the defaults of the fields it was not given", () => {
    expect(readRetryPolicy({ attempts: 2 }, "retry")).toEqual({ ...RETRY_DEFAULTS, attempts: 2 });
  });

  test.each([
    ["a factor under 1", { attempts: 2, factor: 0.5 }, "option retry.factor must be a finite number of at least 1"],
    ["an infinite factor", { attempts: 2, factor: Infinity }, "option retry.factor must be a finite number of at least 1"],
    ["a factor as text", { attempts: 2, factor: "2" }, "option retry.factor must be a finite number of at least 1"],
    [
      "a delay over what a timer can wait",
      { attempts: 2, maxDelayMs: MAX_TIMEOUT_MS + 1 },
      `option retry.maxDelayMs must be a number of milliseconds from 0 to ${MAX_TIMEOUT_MS}`,
    ],
    [
      "a negative delay",
      { attempts: 2, initialDelayMs: -1 },
      `option retry.initialDelayMs must be a number of milliseconds from 0 to ${MAX_TIMEOUT_MS}`,
    ],
    [
      "a delay as text",
      { attempts: 2, initialDelayMs: "5" },
      `option retry.initialDelayMs must be a number of milliseconds from 0 to ${MAX_TIMEOUT_MS}`,
    ],
    ["retryOn not an array", { attempts: 2, retryOn: "timeout" }, "option retry.retryOn must be an array of step error codes among"],
    [
      "retryOn with a code twice too many",
      {
        attempts: 2,
        retryOn: ["timeout", "timeout", "timeout", "timeout", "timeout", "timeout", "timeout", "timeout", "timeout", "timeout"],
      },
      "option retry.retryOn must be an array of step error codes among",
    ],
    [
      "retryOn with a code it cannot retry",
      { attempts: 2, retryOn: ["aborted"] },
      "option retry.retryOn must be an array of step error codes among",
    ],
    ["attempts 0", { attempts: 0 }, "option retry.attempts must be a positive integer"],
  ])("%s is refused, naming the field", (_name, policy, message) => {
    expect(refusal(() => readRetryPolicy(policy, "retry"))).toContain(message);
  });

  test("a delay of exactly what a timer can wait is kept", () => {
    expect(readRetryPolicy({ attempts: 2, maxDelayMs: MAX_TIMEOUT_MS }, "retry")?.maxDelayMs).toBe(MAX_TIMEOUT_MS);
  });

  test("retryByTool must be an object of policies, each read under its tool's name", () => {
    expect(refusal(() => readRetryByTool([], "retryByTool"))).toBe("option retryByTool must be an object of retry policies by tool name");
    expect(refusal(() => readRetryByTool({ geocode: { attempts: 0 } }, "retryByTool"))).toBe(
      "option retryByTool.geocode.attempts must be a positive integer",
    );
    expect([...readRetryByTool({ geocode: { attempts: 5 } }, "retryByTool")!].map(([tool, policy]) => [tool, policy.attempts])).toEqual([
      ["geocode", 5],
    ]);
  });
});

describe("bounds and listeners", () => {
  test("a tool's call limit given as undefined is refused in the words of its bounds", () => {
    expect(refusal(() => readToolConcurrency({ geocode: undefined }, "toolConcurrency"))).toBe(
      "option toolConcurrency.geocode must be a positive integer",
    );
    expect(refusal(() => readToolConcurrency({ geocode: undefined }, "toolConcurrency", refuse, { min: 1, max: 256 }))).toBe(
      "startWorker: option toolConcurrency.geocode must be an integer from 1 to 256, not undefined",
    );
  });

  test("a bound is inclusive at both ends", () => {
    const bounds = { min: 2, max: 9 };
    expect([readBounded(2, "n", bounds, 5), readBounded(9, "n", bounds, 5), readBounded(undefined, "n", bounds, 5)]).toEqual([2, 9, 5]);
    expect(refusal(() => readBounded(10, "n", bounds, 5))).toBe("option n must be an integer from 2 to 9, not 10");
    expect(refusal(() => readBounded(2.5, "n", bounds, 5))).toBe("option n must be an integer from 2 to 9, not 2.5");
    expect(readDuration(MAX_TIMEOUT_MS, "timeoutMs", true, undefined)).toBe(MAX_TIMEOUT_MS);
  });

  test("a signal must listen and stop listening", () => {
    const listens = { addEventListener: () => undefined, removeEventListener: () => undefined };
    expect(readSignal(listens, "signal")).toBe(listens);
    for (const value of [null, 1, "signal", { addEventListener: () => undefined }, { removeEventListener: () => undefined }]) {
      expect(refusal(() => readSignal(value, "signal"))).toBe("option signal must be an AbortSignal");
    }
  });

  test("an option whose getter throws is an access error that names the option", () => {
    const options = Object.defineProperty({}, "timeoutMs", {
      get: () => {
        throw new Error("no");
      },
    });
    const error = thrown(() => readOption(options, "timeoutMs"));
    expect(error).toBeInstanceOf(RefError);
    expect((error as RefError).code).toBe("access");
    expect((error as Error).message).toContain("option timeoutMs");
  });
});

describe("a try's time limit (tryTimeoutMs), the one rule of both executors", () => {
  test.each([
    ["the run's own", 300, 60_000, 300],
    ["none asked (Infinity, kept as NO_TIME_LIMIT): no limit, not the default", NO_TIME_LIMIT, 60_000, undefined],
    ["none given (absent)", undefined, 60_000, 60_000],
    ["none given (null, as stored)", null, 60_000, 60_000],
    ["none given, no default", undefined, undefined, undefined],
    ["the longest", MAX_TIMEOUT_MS, 5, MAX_TIMEOUT_MS],
    ["a stored value no run could give (over the longest)", MAX_TIMEOUT_MS + 1, 5, 5],
    ["a stored value no run could give (0)", 0, 5, 5],
    ["a stored value no run could give (a string)", "300", 5, 5],
  ])("%s", (_name, run, fallback, limit) => {
    expect(tryTimeoutMs(run, fallback)).toBe(limit);
  });

  test.each([
    [Infinity, NO_TIME_LIMIT],
    [undefined, undefined],
    [250, 250],
  ])("readRunTimeout(%s) is %s", (value, kept) => {
    expect(readRunTimeout(value)).toBe(kept);
  });

  test("readRunTimeout refuses what readDuration refuses", () => {
    expect(() => readRunTimeout(-Infinity)).toThrow(
      "option timeoutMs must be a positive number of milliseconds (or Infinity for no limit)",
    );
    expect(readRunSettings({ timeoutMs: Infinity }).timeoutMs).toBe(NO_TIME_LIMIT);
  });
});

describe("the retry policy of a tool (retryPolicyOf)", () => {
  const values = readRetryOptions({ retry: { attempts: 2 }, retryByTool: { geocode: { attempts: 5 } } });
  test.each([
    ["its own", "geocode", 5],
    ["else the run's", "search", 2],
  ])("%s", (_name, tool, attempts) => {
    expect(retryPolicyOf(values, tool)?.attempts).toBe(attempts);
  });
  test("none: undefined", () => {
    expect(retryPolicyOf(readRetryOptions({}), "geocode")).toBeUndefined();
  });
});

describe("a run id (readRunId, RUN_ID_PATTERN): the one rule of runPlan and submitPlan", () => {
  test.each([["!"], ["~"], ["trip-1:a/b"], ["r".repeat(MAX_RUN_ID_LENGTH)]])("%s is taken", (runId) => {
    expect(readRunId(runId, "runId")).toBe(runId);
    expect(RUN_ID_PATTERN.test(runId)).toBe(true);
  });
  test.each([[""], [" "], ["a\tb"], ["a\u007f"], ["é"], ["r".repeat(MAX_RUN_ID_LENGTH + 1)], [7]])("%j is refused", (runId) => {
    expect(() => readRunId(runId, "runId")).toThrow(
      `option runId must be 1 to ${MAX_RUN_ID_LENGTH} printable ASCII characters without spaces`,
    );
  });
  test("absent: a random UUID", () => {
    expect(readRunId(undefined, "runId")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
