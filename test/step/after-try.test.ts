/**
 * What becomes of a step after a try (src/step/after-try.ts `afterTry`), the rule `runPlan`'s step
 * tries and a PostgreSQL worker both ask: a table of failures, policies and try numbers, properties
 * over random ones (a retry only where `retryDelayMs` gives a wait, never past the policy's tries, a
 * kept result only for an output that fails its schema), and `runPlan` acting on each answer.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { runPlan, type ToolFunctions } from "../../src/run/run-plan.js";
import { afterTry, type AfterTry } from "../../src/step/after-try.js";
import { keepsResult, STEP_FAILURES, type StepFailure } from "../../src/step/attempt.js";
import { NonRetryableError, resolveRetryPolicy, retryDelayMs, RETRYABLE_CODES, type ResolvedRetryPolicy } from "../../src/step/retry.js";
import { STEP_ERROR_CODES } from "../../src/step/step-error.js";

const policy = (attempts: number, more: Partial<ResolvedRetryPolicy> = {}): ResolvedRetryPolicy =>
  resolveRetryPolicy({ attempts, initialDelayMs: 100, jitter: "none", ...more });

const threw = STEP_FAILURES.threw(new Error("down"));
const timeout = STEP_FAILURES.timeout(50);
const invalidOutput = STEP_FAILURES.invalidOutput("/ must be string");

/** Rows: the try's failure (`undefined`: it succeeded), the policy, the try's number, and the answer (the failure itself omitted). */
const ROWS: readonly (readonly [
  name: string,
  outcome: StepFailure | undefined,
  policy: ResolvedRetryPolicy | undefined,
  attempt: number,
  expected: AfterTry | Record<string, unknown>,
])[] = [
  ["a try that succeeded is done, policy or not", undefined, policy(3), 1, { next: "done" }],
  ["a success without a policy is done", undefined, undefined, 1, { next: "done" }],
  ["a success on a later try is done", undefined, policy(3), 3, { next: "done" }],
  ["a tool error without a policy fails, its result not kept", threw, undefined, 1, { next: "failed", keepsResult: false }],
  ["a tool error with tries left is retried after the policy's wait", threw, policy(3), 1, { next: "retry", delayMs: 100, attempts: 3 }],
  ["the wait grows with the try's number", threw, policy(3), 2, { next: "retry", delayMs: 200, attempts: 3 }],
  ["the last try's failure fails the step", threw, policy(3), 3, { next: "failed", keepsResult: false }],
  ["a policy of one try retries nothing", threw, policy(1), 1, { next: "failed", keepsResult: false }],
  ["a timeout is retried by default", timeout, policy(2), 1, { next: "retry", delayMs: 100, attempts: 2 }],
  ["a code the policy does not retry fails", timeout, policy(2, { retryOn: ["tool-error"] }), 1, { next: "failed", keepsResult: false }],
  [
    "an output that fails its schema is never retried, and its result is kept",
    invalidOutput,
    policy(3),
    1,
    { next: "failed", keepsResult: true },
  ],
  [
    "an output that fails its schema keeps its result without a policy too",
    invalidOutput,
    undefined,
    1,
    { next: "failed", keepsResult: true },
  ],
  [
    "a tool that says not to retry (NonRetryableError) fails at once",
    STEP_FAILURES.threw(new NonRetryableError("no such city")),
    policy(3),
    1,
    { next: "failed", keepsResult: false },
  ],
  [
    "a tool's own retryAfterMs is the wait",
    STEP_FAILURES.threw({ retryAfterMs: 7 }),
    policy(3),
    1,
    { next: "retry", delayMs: 7, attempts: 3 },
  ],
  [
    "a retryAfterMs past maxDelayMs is cut to it",
    STEP_FAILURES.threw({ retryAfterMs: 1e9 }),
    policy(3, { maxDelayMs: 500 }),
    1,
    { next: "retry", delayMs: 500, attempts: 3 },
  ],
  ["an abort is not retried", STEP_FAILURES.aborted("the run was stopped"), policy(3), 1, { next: "failed", keepsResult: false }],
  [
    "a result JSON cannot hold is not retried, nor kept",
    STEP_FAILURES.unserializable("a Map"),
    policy(3),
    1,
    { next: "failed", keepsResult: false },
  ],
  [
    "invalid input is not retried",
    STEP_FAILURES.invalidInput({ detail: "/a must be number", detailWithoutValues: "/a must be number" }),
    policy(3),
    1,
    { next: "failed", keepsResult: false },
  ],
];

describe("afterTry: the table", () => {
  test.each(ROWS)("%s", (_name, outcome, retry, attempt, expected) => {
    const after = afterTry(outcome, retry, attempt);
    expect(after).toEqual(outcome === undefined ? expected : { ...expected, failure: outcome });
  });

  test("every success gets the one frozen answer (the hot path allocates nothing)", () => {
    expect(afterTry(undefined, policy(2), 1)).toBe(afterTry(undefined, undefined, 5));
    expect(Object.isFrozen(afterTry(undefined, undefined, 1))).toBe(true);
  });

  test("full jitter: the wait is random() times the computed one, from the random source given", () => {
    const jittered = resolveRetryPolicy({ attempts: 3, initialDelayMs: 1_000 });
    expect(afterTry(threw, jittered, 2, () => 0.25)).toEqual({ next: "retry", failure: threw, delayMs: 500, attempts: 3 });
  });
});

const failureArb: fc.Arbitrary<StepFailure> = fc.record({
  code: fc.constantFrom(...STEP_ERROR_CODES),
  detail: fc.string({ maxLength: 10 }),
  cause: fc.option(
    fc.oneof(fc.record({ retryable: fc.boolean() }), fc.record({ retryAfterMs: fc.double({ min: -10, max: 1e6, noNaN: true }) })),
    { nil: undefined },
  ),
});
const policyArb: fc.Arbitrary<ResolvedRetryPolicy | undefined> = fc.option(
  fc.record({
    attempts: fc.integer({ min: 1, max: 6 }),
    initialDelayMs: fc.integer({ min: 0, max: 5_000 }),
    factor: fc.double({ min: 1, max: 10, noNaN: true }),
    maxDelayMs: fc.integer({ min: 0, max: 60_000 }),
    jitter: fc.constantFrom("full" as const, "none" as const),
    retryOn: fc.subarray([...RETRYABLE_CODES]),
  }),
  { nil: undefined },
);

describe("afterTry: properties", () => {
  test("a failure is retried exactly when the policy's retryDelayMs gives a wait, with that wait; else it fails, keeping its result only for invalid-output", () => {
    fc.assert(
      fc.property(
        failureArb,
        policyArb,
        fc.integer({ min: 1, max: 8 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (failure, retry, attempt, r) => {
          const after = afterTry(failure, retry, attempt, () => r);
          const delayMs = retry === undefined ? undefined : retryDelayMs(retry, attempt, failure, () => r);
          if (delayMs !== undefined) {
            expect(after).toEqual({ next: "retry", failure, delayMs, attempts: retry!.attempts });
            expect(attempt).toBeLessThan(retry!.attempts);
            expect(delayMs).toBeGreaterThanOrEqual(0);
            expect(delayMs).toBeLessThanOrEqual(retry!.maxDelayMs);
          } else {
            expect(after).toEqual({ next: "failed", failure, keepsResult: keepsResult(failure) });
            expect(keepsResult(failure)).toBe(failure.code === "invalid-output");
          }
        },
      ),
    );
  });
});

describe("runPlan acts on each answer", () => {
  const tools: ToolFunctions = {
    answer: () => 42,
    broken: () => {
      throw new NonRetryableError("no");
    },
  };

  test("done: the result; failed: no result, a NonRetryableError tried once; failed keeping its result: an output that fails its schema, tried once", async () => {
    const plan = {
      steps: [
        { id: 1, tool: "answer", args: {} },
        { id: 2, tool: "answer", args: {} },
        { id: 3, tool: "broken", args: {} },
      ],
    };
    const catalog = { answer: { output: { type: "number" } }, broken: {} };
    const ok = await runPlan(plan, tools, { catalog, validateOutputs: true, retry: { attempts: 3, initialDelayMs: 0 } });
    expect([ok.results.get(1), ok.errors.has(1), ok.errors.get(3)?.code, ok.results.has(3), ok.attempts?.get(3)]).toEqual([
      42,
      false,
      "tool-error",
      false,
      1,
    ]);
    const kept = await runPlan({ steps: [{ id: 1, tool: "answer", args: {} }] }, tools, {
      catalog: { answer: { output: { type: "string" } } },
      validateOutputs: true,
      retry: { attempts: 3, initialDelayMs: 0 },
    });
    expect([kept.errors.get(1)?.code, kept.results.get(1), kept.attempts?.get(1)]).toEqual(["invalid-output", 42, 1]);
  });
});
