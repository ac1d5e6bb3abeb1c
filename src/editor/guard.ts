/**
 * The editor functions' last line of defence. They are written not to throw, but a caller's catalog
 * can still be a Proxy whose traps throw; at the public boundary such an error becomes an empty
 * answer, and the reporter (the language server's log, or a test) is told about it.
 */

type Reporter = (error: unknown, what: string) => void;

let reporter: Reporter | undefined;

/**
 * Be told when an editor function answered with its fallback because of an internal error (the
 * language server logs these). Returns the previous reporter.
 *
 * @example
 * setEditorErrorReporter((error, what) => console.error(`${what}: ${String(error)}`))
 */
export function setEditorErrorReporter(next: Reporter | undefined): Reporter | undefined {
  const previous = reporter;
  reporter = next;
  return previous;
}

/**
 * Run `body`; on an error, report it and return `fallback`.
 *
 * @example
 * withFallback("hoverAt", undefined, () => hover(text, offset))
 */
export function withFallback<T>(what: string, fallback: T, body: () => T): T {
  try {
    return body();
  } catch (error) {
    try {
      reporter?.(error, what);
    } catch {
      // A failing reporter must not turn the fallback into an exception.
    }
    return fallback;
  }
}
