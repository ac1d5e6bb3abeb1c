/**
 * Calling back into the caller's code from a run: what a progress listener or a planner's `return()`
 * gives back is never left to reject unhandled.
 */

const ignore = (): void => undefined;

/**
 * Mark a native promise's rejection as handled (what a caller's callback returned; never throws).
 *
 * @example
 * handled(onEvent(event)) // an async listener that rejects is not an unhandled rejection
 */
export function handled(value: unknown): void {
  try {
    if (value instanceof Promise) Promise.prototype.then.call(value, undefined, ignore);
  } catch {
    // A Proxy whose getPrototypeOf trap throws: not a promise of ours to watch.
  }
}
