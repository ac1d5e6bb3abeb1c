/**
 * `--attempts N` (with `--retry N`, its older name): how many times in all a failing step is tried,
 * the first try included. One definition for every command that runs plans (`run`, `mcp serve`), so
 * the name, the alias, the check and the help line cannot drift apart.
 */
import { FlagError, positiveInteger } from "./flags.js";

/** The flag specs to spread into a command's `parseFlags` call. */
export const ATTEMPTS_FLAGS = { attempts: { type: "string" }, retry: { type: "string" } } as const;

/** The help line of the alias, aligned with the options column of `run` and `mcp serve`. */
export const RETRY_ALIAS_HELP = "  --retry N             the same as --attempts N (its older name: N counts every try, not retries)";

/**
 * The number of tries asked for by `--attempts N` or its alias `--retry N` (`undefined` when neither
 * was given); a `FlagError` when the value is not a positive integer or both are given.
 *
 * @example
 * attemptsFlag({ attempts: "3" }) // 3
 * attemptsFlag({ retry: "3" })    // 3
 * attemptsFlag({})                // undefined
 */
export function attemptsFlag(values: { readonly attempts?: string | undefined; readonly retry?: string | undefined }): number | undefined {
  if (values.attempts !== undefined && values.retry !== undefined)
    throw new FlagError("--retry is another name for --attempts: give one of them");
  return values.retry !== undefined ? positiveInteger(values.retry, "--retry") : positiveInteger(values.attempts, "--attempts");
}

/** How a message names the flag that was given (for "--retry-delay needs --attempts N"). */
export const ATTEMPTS_FLAG_NAME = "--attempts";
