/**
 * Count what the code under test leaves behind, its own timers and listeners, not the process's:
 * `process.getActiveResourcesInfo()` counts every timer in the process, and other work in the same
 * process (a timer of the test runner, of another test's leftovers, a callback late on a loaded
 * machine) changes it while the test runs. The wrappers are in place only between watch and restore.
 */

/** What a watch saw since it began. */
export interface TimerWatch {
  /** Timers made while watching that have neither fired nor been cleared. */
  pending(): number;
  /** Timers made while watching. */
  made(): number;
  /** Put the real setTimeout and clearTimeout back. */
  restore(): void;
}

/**
 * Wrap the global `setTimeout`/`clearTimeout` to count the timers made from now on (the timers
 * themselves are the real ones). Restore it in a `finally`.
 *
 * @example
 * const timers = watchTimers();
 * try { await runPlan(plan, tools, { timeoutMs: 1000 }); expect(timers.pending()).toBe(0); } finally { timers.restore(); }
 */
export function watchTimers(): TimerWatch {
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const pending = new Set<unknown>();
  let made = 0;
  const set = (callback: (...args: unknown[]) => void, delay?: number, ...args: unknown[]) => {
    made++;
    const timer = realSet(
      (...values: unknown[]) => {
        pending.delete(timer);
        callback(...values);
      },
      delay,
      ...args,
    );
    pending.add(timer);
    return timer;
  };
  const clear = (timer?: Parameters<typeof clearTimeout>[0]) => {
    pending.delete(timer);
    realClear(timer);
  };
  globalThis.setTimeout = set as unknown as typeof setTimeout;
  globalThis.clearTimeout = clear;
  return {
    pending: () => pending.size,
    made: () => made,
    restore: () => {
      globalThis.setTimeout = realSet;
      globalThis.clearTimeout = realClear;
    },
  };
}

/** The listeners of one event type on one target, as added and removed while watching. */
export interface ListenerWatch {
  /** Listeners added while watching and still there (a `once` listener until the signal aborts). */
  live(): number;
  /** Listeners added while watching. */
  added(): number;
  /** Take the wrappers off the target again. */
  restore(): void;
}

/**
 * Wrap `addEventListener`/`removeEventListener` of this one signal (own properties on it; its
 * prototype is not touched) to count the `type` listeners added from now on.
 *
 * @example
 * const listeners = watchListeners(signal, "abort");
 * await runPlan(plan, tools, { signal });
 * expect(listeners.live()).toBe(0);
 * listeners.restore();
 */
export function watchListeners(signal: AbortSignal, type: string): ListenerWatch {
  const live = new Set<unknown>();
  const once = new Set<unknown>();
  let added = 0;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called on the signal and put back
  const realAdd = signal.addEventListener;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called on the signal and put back
  const realRemove = signal.removeEventListener;
  const add: typeof realAdd = (
    event: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ) => {
    if (event === type && !live.has(listener)) {
      added++;
      live.add(listener);
      if (typeof options === "object" && options.once === true) once.add(listener);
    }
    realAdd.call(signal, event, listener, options);
  };
  const remove: typeof realRemove = (
    event: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ) => {
    if (event === type) live.delete(listener);
    realRemove.call(signal, event, listener, options);
  };
  Object.defineProperty(signal, "addEventListener", { value: add, configurable: true, writable: true });
  Object.defineProperty(signal, "removeEventListener", { value: remove, configurable: true, writable: true });
  return {
    live: () => [...live].filter((listener) => !(signal.aborted && once.has(listener))).length,
    added: () => added,
    restore: () => {
      delete (signal as { addEventListener?: unknown }).addEventListener;
      delete (signal as { removeEventListener?: unknown }).removeEventListener;
    },
  };
}
