/** graphile-worker's logger, silenced: plan-refs reports through its own events. */
import { loadGraphileWorker } from "./graphile.js";

export async function silentLogger(): Promise<import("graphile-worker").Logger> {
  const { Logger } = await loadGraphileWorker();
  return new Logger(() => () => undefined);
}
