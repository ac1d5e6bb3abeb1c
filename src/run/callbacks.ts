/**
 * Calling back into the caller's code from a run: what a progress listener or a planner's `return()`
 * gives back is never left to reject unhandled, and the listener a run adds to the caller's signal
 * is removed without a throw.
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
    // The promise `then` returns fulfils whatever `value` does (ignore swallows the reason): nothing to await.
    if (value instanceof Promise) void Promise.prototype.then.call(value, undefined, ignore);
  } catch {
    // A Proxy whose getPrototypeOf trap throws: not a promise of ours to watch.
  }
}

/**
 * Listen for a signal's abort; the function returned removes the listener, and never throws.
 *
 * @example
 * const unlisten = listen(signal, onAbort); // … unlisten() when the run is over
 */
export function listen(signal: AbortSignal, onAbort: () => void): () => void {
  signal.addEventListener("abort", onAbort);
  return () => {
    try {
      signal.removeEventListener("abort", onAbort);
    } catch {
      // A signal whose methods were replaced and throw: nothing more to do.
    }
  };
}
