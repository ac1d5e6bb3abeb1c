/**
 * `graphile-worker`, loaded on first use (kept apart from ./peers.ts so that the package's public
 * declarations never reach graphile-worker's types).
 */
import { notInstalled } from "./peers.js";

let workerModule: Promise<typeof import("graphile-worker")> | undefined;

/** `graphile-worker`, loaded once. */
export function loadGraphileWorker(): Promise<typeof import("graphile-worker")> {
  workerModule ??= import("graphile-worker").catch((error: unknown) => {
    workerModule = undefined;
    throw notInstalled("graphile-worker", error);
  });
  return workerModule;
}
