/**
 * OpenTelemetry's globals for a test file that traces: an AsyncLocalStorage context manager set before
 * its tests, and the API's context manager, tracer provider and propagator let go after them, so the
 * next file in the same worker starts without them.
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { afterAll, beforeAll } from "vitest";

/**
 * Set the globals for the calling file's tests; the context manager (a test that disables the API's
 * context may enable it again).
 *
 * @example
 * const contextManager = useOtelGlobals();
 */
export function useOtelGlobals(): AsyncLocalStorageContextManager {
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
  });
  afterAll(() => {
    context.disable();
    trace.disable();
    propagation.disable();
  });
  return contextManager;
}
