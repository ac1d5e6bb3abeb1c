/**
 * One attempt of one step (src/step/attempt.ts), driven by a small owner of its own: each kind of
 * outcome is classified once, reaches the owner once, and says whether it ended inside `attempt`
 * (a plain value) or later (a promise, a timer, an abort from outside). Then the same messages through
 * runPlan, and the unknown-tool message every executor and the command line share.
 */
import { describe, expect, test } from "vitest";
import {
  attempt,
  checkOutput,
  describeError,
  endAttempt,
  idempotencyKey,
  keepsResult,
  outputSchemaOf,
  STEP_FAILURES,
  toolNames,
  unknownToolMessage,
  type AttemptOwner,
  type AttemptStep,
  type StepFailure,
  type ToolContext,
  type ToolFunction,
} from "../../src/step/attempt.js";
import { runPlan } from "../../src/run/run-plan.js";
import { StepError } from "../../src/step/step-error.js";
import { hasLoneSurrogate } from "../../src/shared/text.js";

interface Ended {
  readonly value: unknown;
  readonly failure: StepFailure | undefined;
  readonly later: boolean;
  readonly abortReason: unknown;
}

class Step implements AttemptStep<Step> {
  timer: ReturnType<typeof setTimeout> | undefined = undefined;
  owner: AttemptOwner<Step> | undefined;
  attempt = 1;
  readonly ends: Ended[] = [];
  readonly controller = new AbortController();
  constructor(
    readonly id: number,
    readonly tool: string,
    owner: AttemptOwner<Step>,
  ) {
    this.owner = owner;
  }
}

/** The smallest owner: arguments given as they are (or a throw), a check of its own, outcomes recorded. */
class Owner implements AttemptOwner<Step> {
  constructor(
    readonly args: () => Record<string, unknown>,
    readonly check: (value: unknown) => StepFailure | undefined = () => undefined,
    readonly refuse: (args: Record<string, unknown>) => StepFailure | undefined = () => undefined,
  ) {}
  checkInput(_step: Step, args: Record<string, unknown>): StepFailure | undefined {
    return this.refuse(args);
  }
  isRunning(step: Step): boolean {
    return step.ends.length === 0;
  }
  resolveArgs(): Record<string, unknown> {
    return this.args();
  }
  contextOf(step: Step): ToolContext {
    return { stepId: step.id, signal: step.controller.signal };
  }
  checkResult(_step: Step, value: unknown): StepFailure | undefined {
    return this.check(value);
  }
  ended(step: Step, value: unknown, failure: StepFailure | undefined, later: boolean, abortReason?: unknown): void {
    step.ends.push({ value, failure, later, abortReason });
    if (abortReason !== undefined) step.controller.abort(abortReason);
  }
}

/** Run one attempt and wait until its outcome has arrived (or a few turns have passed). */
async function run(
  fn: ToolFunction,
  options: {
    args?: () => Record<string, unknown>;
    check?: (value: unknown) => StepFailure | undefined;
    timeoutMs?: number;
    abortAfterStart?: boolean;
  } = {},
): Promise<Step> {
  const step = new Step(7, "geo\ncode", new Owner(options.args ?? (() => ({ city: "Paris" })), options.check));
  attempt(step, fn, step.owner!, options.timeoutMs);
  if (options.abortAfterStart === true) endAttempt(step, STEP_FAILURES.aborted("aborted with the run"));
  for (let i = 0; i < 50 && step.ends.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 1));
  return step;
}

const thenableWhoseThenThrows = {
  get then() {
    throw new Error("no then");
  },
};

type Row = readonly [string, () => unknown, Parameters<typeof run>[1], Record<string, unknown>];

describe("each outcome of an attempt, classified once", () => {
  test.each<Row>([
    ["a plain value ends it inside attempt", () => ({ lat: 1 }), {}, { value: { lat: 1 }, code: undefined, later: false }],
    ["a promise of a value ends it later", async () => 42, {}, { value: 42, code: undefined, later: true }],
    [
      "a throw",
      () => {
        throw new Error("boom");
      },
      {},
      { code: "tool-error", detail: "the tool threw: boom", later: false },
    ],
    [
      "a rejection",
      () => Promise.reject(new Error("late boom")),
      {},
      { code: "tool-error", detail: "the tool failed: late boom", later: true },
    ],
    [
      "a result whose then throws",
      () => thenableWhoseThenThrows,
      {},
      { code: "tool-error", detail: "the tool's result could not be read: no then", later: false },
    ],
    [
      "arguments that cannot be resolved (the tool is not called)",
      () => {
        throw new Error("called");
      },
      {
        args: () => {
          throw new Error("no such key");
        },
      },
      { code: "unresolved-args", detail: "its arguments could not be resolved: no such key", later: false },
    ],
    [
      "a value that fails the owner's check keeps the value",
      () => "text",
      { check: () => STEP_FAILURES.invalidOutput("result does not match") },
      { value: "text", code: "invalid-output", detail: "result does not match", later: false },
    ],
    [
      "a tool that never settles, past its timeout",
      () => new Promise(() => {}),
      { timeoutMs: 1 },
      { code: "timeout", detail: "timed out after 1 ms", later: true },
    ],
    [
      "an abort from outside",
      () => new Promise(() => {}),
      { abortAfterStart: true },
      { code: "aborted", detail: "aborted with the run", later: true },
    ],
  ])("%s", async (_name, fn, options, expected) => {
    const step = await run(fn, options);
    expect(step.ends).toHaveLength(1);
    const [end] = step.ends;
    expect({ value: end!.value, code: end!.failure?.code, detail: end!.failure?.detail, later: end!.later }).toMatchObject(expected);
    expect(step.timer).toBeUndefined();
  });

  test("a timeout aborts the step's signal with a StepError, and a value after it is dropped", async () => {
    let finish: (value: unknown) => void = () => undefined;
    const step = await run(() => new Promise((resolve) => (finish = resolve)), { timeoutMs: 1 });
    expect(step.controller.signal.reason).toBeInstanceOf(StepError);
    expect((step.controller.signal.reason as StepError).code).toBe("timeout");
    finish("too late");
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(step.ends).toHaveLength(1);
  });

  test("a step let go by its owner hears nothing more (a tool that settles after the run)", async () => {
    let finish: (value: unknown) => void = () => undefined;
    const step = new Step(1, "t", new Owner(() => ({})));
    attempt(step, () => new Promise((resolve) => (finish = resolve)), step.owner!, undefined);
    step.owner = undefined;
    finish(1);
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(step.ends).toEqual([]);
  });
});

describe("the unknown-tool message: one home for runPlan, the workers and the command line", () => {
  test.each([
    [
      "a close name is suggested",
      "fetch_pgae",
      ["fetch_page", "summarise"],
      'no function for tool "fetch_pgae" on this worker; did you mean "fetch_page"?',
    ],
    ["no close name: nothing more", "translate", ["fetch_page"], 'no function for tool "translate" on this worker'],
    ["the name is escaped", "geo\u001b[31m\n", ["geocode"], 'no function for tool "geo\\u001b[31m\\n" on this worker'],
  ])("%s", (_name, tool, names, message) => {
    expect(unknownToolMessage(tool, " on this worker", names)).toBe(message);
  });

  test("runPlan's diagnostic and a streamed step's error escape the name and suggest one", async () => {
    const tools = { geocode: () => 1 };
    const whole = await runPlan([{ id: 1, tool: "gecode\n", args: {} }], tools);
    expect(whole.diagnostics.find((d) => d.code === "unknown-tool")?.message).toBe(
      'no function for tool "gecode\\n" among the tools given to runPlan; did you mean "geocode"?',
    );
    async function* stream() {
      yield { id: 1, tool: "gecode\u001b", args: {} };
    }
    const streamed = await runPlan(stream(), tools);
    expect(streamed.errors.get(1)?.message).toBe('step 1 (gecode\u001b): no function for tool "gecode\\u001b"; did you mean "geocode"?');
  });
});

/** A few turns of the event loop: promise jobs and 1 ms timers have run. */
const turns = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("what an attempt ignores, and what it checks", () => {
  test("arguments refused before the call: the tool is not called, no timer starts, the outcome is now", () => {
    let calls = 0;
    const step = new Step(
      1,
      "t",
      new Owner(
        () => ({ a: 1 }),
        undefined,
        (args) =>
          STEP_FAILURES.invalidInput({ detail: `refused ${JSON.stringify(args)}`, detailWithoutValues: "refused an object with 1 key" }),
      ),
    );
    attempt(step, () => calls++, step.owner!, 1_000);
    expect([calls, step.timer, step.ends]).toEqual([
      0,
      undefined,
      [
        {
          value: undefined,
          failure: { code: "invalid-input", detail: 'refused {"a":1}', detailWithoutValues: "refused an object with 1 key" },
          later: false,
          abortReason: undefined,
        },
      ],
    ]);
  });

  test("a function or an object without then is a value, ended now; a function with then is awaited", async () => {
    const fn = () => 1;
    const now = await run(() => fn);
    expect(now.ends.map((end) => [end.value, end.later])).toEqual([[fn, false]]);
    const withThen = Object.assign(() => 2, { then: (resolve: (value: unknown) => void) => resolve("from then") });
    const nothing = await run(() => undefined);
    expect(nothing.ends).toEqual([{ value: undefined, failure: undefined, later: false, abortReason: undefined }]);
    const awaited = await run(() => withThen);
    expect(awaited.ends.map((end) => [end.value, end.later])).toEqual([["from then", true]]);
  });

  test("a value or a rejection of an earlier try is dropped once the step has moved on to its next try", async () => {
    for (const settle of ["resolve", "reject"] as const) {
      let finish: (value: unknown) => void = () => undefined;
      let fail: (error: unknown) => void = () => undefined;
      const step = new Step(1, "t", new Owner(() => ({})));
      attempt(step, () => new Promise((resolve, reject) => ((finish = resolve), (fail = reject))), step.owner!, undefined);
      step.attempt = 2;
      if (settle === "resolve") finish("late");
      else fail(new Error("late"));
      await turns();
      expect(step.ends).toEqual([]);
    }
  });

  test("a rejection, a timeout or an abort after the owner gave up (or let go) is dropped", async () => {
    const gaveUp = new Step(1, "t", new Owner(() => ({})));
    let fail: (error: unknown) => void = () => undefined;
    attempt(gaveUp, () => new Promise((_resolve, reject) => (fail = reject)), gaveUp.owner!, 1);
    gaveUp.ends.push({ value: "ended elsewhere", failure: undefined, later: false, abortReason: undefined });
    fail(new Error("late"));
    endAttempt(gaveUp, STEP_FAILURES.aborted("aborted with the run"));
    await turns();
    expect(gaveUp.ends).toHaveLength(1);
    const letGo = new Step(2, "t", new Owner(() => ({})));
    attempt(letGo, () => new Promise(() => undefined), letGo.owner!, 1);
    letGo.owner = undefined;
    endAttempt(letGo, STEP_FAILURES.aborted("aborted with the run"));
    await turns();
    expect(letGo.ends).toEqual([]);
  });

  test("a rejection after the owner let go of the step is dropped, and handled", async () => {
    let fail: (error: unknown) => void = () => undefined;
    const step = new Step(1, "t", new Owner(() => ({})));
    attempt(step, () => new Promise((_resolve, reject) => (fail = reject)), step.owner!, undefined);
    step.owner = undefined;
    fail(new Error("late"));
    await turns();
    expect(step.ends).toEqual([]);
  });

  test("an owner that checks no input: the tool is called with the arguments", () => {
    const step = new Step(1, "t", new Owner(() => ({ a: 1 })));
    const owner = step.owner as Owner;
    const plain: AttemptOwner<Step> = {
      isRunning: (s) => owner.isRunning(s),
      resolveArgs: () => owner.resolveArgs(),
      contextOf: (s) => owner.contextOf(s),
      checkResult: () => undefined,
      ended: (...args) => owner.ended(...args),
    };
    step.owner = plain;
    attempt(step, (args) => args, plain, undefined);
    expect(step.ends.map((end) => end.value)).toEqual([{ a: 1 }]);
  });

  test("an attempt that ends clears its timer", async () => {
    const step = await run(() => Promise.resolve(1), { timeoutMs: 60_000 });
    expect([step.ends.length, step.timer]).toEqual([1, undefined]);
  });

  test("what was thrown is described in at most 500 characters", () => {
    expect(describeError(new Error("x".repeat(2_000)))).toBe("x".repeat(500));
  });

  test("toolNames lists the own functions of a tools object only, and nothing for one that cannot be listed", () => {
    expect(
      toolNames({
        a: () => 1,
        b: 2,
        get c() {
          return () => 3;
        },
      }),
    ).toEqual(["a"]);
    expect(
      toolNames(
        new Proxy(
          {},
          {
            ownKeys: () => {
              throw new Error("no keys");
            },
          },
        ),
      ),
    ).toEqual([]);
  });

  test("outputSchemaOf takes an object or boolean schema, and nothing else", () => {
    const schema = { type: "object" };
    expect([
      outputSchemaOf({ t: { output: schema } }, "t"),
      outputSchemaOf({ t: { output: false } }, "t"),
      outputSchemaOf({ t: { output: true } }, "t"),
    ]).toEqual([schema, false, true]);
    expect([
      outputSchemaOf({ t: { output: null } }, "t"),
      outputSchemaOf({ t: { output: "object" } }, "t"),
      outputSchemaOf({ t: {} }, "t"),
      outputSchemaOf({}, "t"),
    ]).toEqual([undefined, undefined, undefined, undefined]);
  });

  test("checkOutput: a result that cannot be read fails its step with invalid-output, saying why", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("no keys");
        },
        get: () => {
          throw new Error("no read");
        },
      },
    );
    const failure = checkOutput({ type: "object", required: ["a"] }, hostile);
    expect(failure?.code).toBe("invalid-output");
    expect(failure?.detail).toMatch(/^the result could not be read: no (keys|read)$/);
    expect(checkOutput(undefined, hostile)).toBeUndefined();
  });
});

describe("describeError: what a tool threw, cut without splitting a character", () => {
  test("an error full of emoji, one code unit off the pairs: the message ends in whole characters, in the report too", async () => {
    const thrown = new Error(`x${"😀".repeat(400)}`);
    const described = describeError(thrown);
    expect(hasLoneSurrogate(described)).toBe(false);
    expect(described.length).toBeGreaterThanOrEqual(499);
    expect(described.length).toBeLessThanOrEqual(500);
    const report = await runPlan({ steps: [{ id: 1, tool: "loud", args: {} }] }, { loud: () => Promise.reject(thrown) });
    expect(hasLoneSurrogate(report.errors.get(1)!.message)).toBe(false);
  });
});

describe("the rules both executors take from here", () => {
  test.each([
    ["a success", undefined, true],
    ["a result that fails its output schema", STEP_FAILURES.invalidOutput("/ must be string"), true],
    ["a timeout", STEP_FAILURES.timeout(100), false],
    ["an unserializable result", STEP_FAILURES.unserializable("it contains a Map (JSON writes {})"), false],
    ["a throw", STEP_FAILURES.threw(new Error("x")), false],
  ])("keepsResult: %s → %s", (_name, failure, kept) => {
    expect(keepsResult(failure)).toBe(kept);
  });

  test("idempotencyKey is runId:stepId", () => {
    expect(idempotencyKey("trip-1", 3)).toBe("trip-1:3");
  });
});
