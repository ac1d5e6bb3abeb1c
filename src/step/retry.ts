/**
 * Retries of a failed step, the one policy of both executors: which failures are tried again, how
 * long to wait before the next try (exponential backoff, capped, with or without jitter), and what a
 * tool may say about its own error (`retryable: false`, `retryAfterMs`). Plain data and pure
 * functions: `runPlan` waits with a timer, the PostgreSQL workers can reschedule a job at the same time.
 */
import { MISSING, readOwnData } from "../shared/own-data.js";
import type { StepErrorCode } from "./step-error.js";

/** The step error codes a policy may retry: a tool that failed or ran past its time. */
export const RETRYABLE_CODES = ["tool-error", "timeout"] as const satisfies readonly StepErrorCode[];

/** A step error code a policy may retry. */
export type RetryableCode = (typeof RETRYABLE_CODES)[number];

/** How a failed step is tried again. Every field but `attempts` has a default. */
export interface RetryPolicy {
  /** Every try, the first included: 1 (the default) is no retry. */
  readonly attempts: number;
  /** The wait before the second try (default 1,000 ms). */
  readonly initialDelayMs?: number;
  /** Each further wait is this many times the one before (default 2). */
  readonly factor?: number;
  /** No wait is longer (default 30,000 ms), also not one a tool asks for with `retryAfterMs`. */
  readonly maxDelayMs?: number;
  /** `"full"` (default): a uniform wait between 0 and the computed one; `"none"`: exactly the computed one. */
  readonly jitter?: "full" | "none";
  /** The failures tried again (default both `["tool-error", "timeout"]`). */
  readonly retryOn?: readonly RetryableCode[];
}

/** A policy with every default filled in. */
export interface ResolvedRetryPolicy {
  readonly attempts: number;
  readonly initialDelayMs: number;
  readonly factor: number;
  readonly maxDelayMs: number;
  readonly jitter: "full" | "none";
  readonly retryOn: readonly RetryableCode[];
}

/** The defaults of a policy's fields. */
export const RETRY_DEFAULTS: ResolvedRetryPolicy = Object.freeze({
  attempts: 1,
  initialDelayMs: 1_000,
  factor: 2,
  maxDelayMs: 30_000,
  jitter: "full",
  retryOn: Object.freeze([...RETRYABLE_CODES]),
});

/**
 * An error a tool throws to say "do not try again" (any error with an own `retryable: false` does the same).
 *
 * @example
 * if (response.status === 404) throw new NonRetryableError(`no such city: ${city}`);
 */
export class NonRetryableError extends Error {
  override name = "NonRetryableError";
  readonly retryable = false;
}

/**
 * The computed wait before try `failed + 1`, without jitter: min(maxDelayMs, initialDelayMs × factor^(failed − 1)),
 * always a finite number from 0 to `maxDelayMs`. A large factor overflows to infinity after a few tries,
 * and 0 × ∞ is NaN: a first wait of 0 stays 0 (every product of it is), and a product past the cap is the cap.
 *
 * @example
 * backoffMs(resolveRetryPolicy({ attempts: 4, initialDelayMs: 0, factor: 1e200 }), 3) // 0
 * backoffMs(resolveRetryPolicy({ attempts: 4, initialDelayMs: 1, factor: 1e200 }), 3) // 30000
 */
export function backoffMs(policy: ResolvedRetryPolicy, failed: number): number {
  if (policy.initialDelayMs === 0) return 0;
  const grown = policy.initialDelayMs * policy.factor ** (failed - 1);
  return grown <= policy.maxDelayMs ? grown : policy.maxDelayMs;
}

/**
 * An own data property of what a tool threw (never a getter; a hostile value says nothing). A primitive
 * (`Object` wraps it; `undefined` and `null` become `{}`) has neither key asked for.
 */
function ownOf(cause: unknown, key: string): unknown {
  try {
    return readOwnData(Object(cause) as object, key);
  } catch {
    return MISSING;
  }
}

/**
 * Whether a step whose try `failed` (1, 2, …) ended with this failure is tried again, and after how
 * many milliseconds; `undefined`: it fails now. `random` gives a number in [0, 1) for full jitter.
 *
 * @example
 * retryDelayMs(resolveRetryPolicy({ attempts: 3, jitter: "none" }), 1, { code: "tool-error" }) // 1000
 * retryDelayMs(resolveRetryPolicy({ attempts: 3 }), 1, { code: "tool-error", cause: { retryAfterMs: 5000 } }) // 5000
 */
export function retryDelayMs(
  policy: ResolvedRetryPolicy,
  failed: number,
  failure: { readonly code: string; readonly cause?: unknown },
  random: () => number = Math.random,
): number | undefined {
  if (failed >= policy.attempts) return undefined;
  if (!(policy.retryOn as readonly string[]).includes(failure.code)) return undefined;
  if (ownOf(failure.cause, "retryable") === false) return undefined;
  const asked = ownOf(failure.cause, "retryAfterMs");
  if (typeof asked === "number" && asked >= 0 && asked < Infinity) return Math.min(policy.maxDelayMs, asked);
  const delay = backoffMs(policy, failed);
  return policy.jitter === "none" ? delay : random() * delay;
}

/**
 * A policy with its defaults (the fields are assumed checked, see `readRetryPolicy` in settings.ts).
 *
 * @example
 * resolveRetryPolicy({ attempts: 3 }).maxDelayMs // 30000
 */
export function resolveRetryPolicy(policy: RetryPolicy): ResolvedRetryPolicy {
  return {
    attempts: policy.attempts,
    initialDelayMs: policy.initialDelayMs ?? RETRY_DEFAULTS.initialDelayMs,
    factor: policy.factor ?? RETRY_DEFAULTS.factor,
    maxDelayMs: policy.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs,
    jitter: policy.jitter ?? RETRY_DEFAULTS.jitter,
    retryOn: policy.retryOn ?? RETRY_DEFAULTS.retryOn,
  };
}
