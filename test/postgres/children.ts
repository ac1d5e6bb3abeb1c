/** Worker child processes (test/fixtures/pg-worker.mjs, which runs dist/): their tool calls, their exit. */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { migrate } from "../../src/postgres/index.js";
import { fileDatabase, startDatabase, type FileDatabase, type TestDatabase } from "./server.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/pg-worker.mjs", import.meta.url));

export interface Call {
  readonly runId: string;
  readonly stepId: number;
  readonly attempt: number;
  readonly tool: string;
  /** The tool's `idempotencyKey`. */
  readonly key?: string;
}

/** When a tool call began and ended (`Date.now()` of its process). */
export interface Interval {
  readonly tool: string;
  readonly runId: string;
  readonly stepId: number;
  readonly start: number;
  readonly end: number;
}

/** A worker event as the fixture prints it (without a step error). */
export interface PrintedEvent {
  readonly type: string;
  readonly runId?: string;
  readonly stepId?: number;
  readonly attempt?: number;
  readonly workerIds?: string[];
}

export interface WorkerChild {
  readonly child: ChildProcess;
  readonly calls: Call[];
  /** The calls that ended, in the order they ended. */
  readonly intervals: Interval[];
  readonly events: PrintedEvent[];
  /** Resolves at the first event of this type. */
  event(type: string): Promise<PrintedEvent>;
  /** Resolves when the worker takes jobs. */
  readonly ready: Promise<void>;
  /** Resolves with the exit code (or the signal) when the process ends. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  /** Resolves at the first call of this tool. */
  called(tool: string): Promise<Call>;
  /** Resolves once `condition` holds, checked now and after every line the worker prints. */
  until(condition: () => boolean): Promise<void>;
  stderr(): string;
}

/** A worker process; `more`: other options of `startWorker` (plain data, as JSON). */
export function spawnWorker(url: string, recoveryMs = 3_000, concurrency = 8, graceMs = 3_000, more: object = {}): WorkerChild {
  const child = spawn(process.execPath, [FIXTURE, url, String(recoveryMs), String(concurrency), String(graceMs), JSON.stringify(more)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const calls: Call[] = [];
  const intervals: Interval[] = [];
  const events: PrintedEvent[] = [];
  const eventWaiters: { type: string; resolve: (event: PrintedEvent) => void }[] = [];
  const waiters: { tool: string; resolve: (call: Call) => void }[] = [];
  const conditions: { condition: () => boolean; resolve: () => void }[] = [];
  let buffer = "";
  let errors = "";
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line === "ready") onReady();
      else if (line.startsWith('{"event"')) {
        const event = (JSON.parse(line) as { event: PrintedEvent }).event;
        events.push(event);
        for (const waiter of eventWaiters.filter((w) => w.type === event.type)) {
          eventWaiters.splice(eventWaiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      } else if (line.startsWith('{"interval"')) {
        intervals.push((JSON.parse(line) as { interval: Interval }).interval);
      } else if (line.startsWith("{")) {
        const call = (JSON.parse(line) as { call: Call }).call;
        calls.push(call);
        for (const waiter of waiters.filter((w) => w.tool === call.tool)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(call);
        }
      }
      for (const waiter of conditions.filter((w) => w.condition())) {
        conditions.splice(conditions.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (errors += chunk));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal)));
  return {
    child,
    calls,
    intervals,
    events,
    event: (type) => {
      const found = events.find((event) => event.type === type);
      return found !== undefined ? Promise.resolve(found) : new Promise((resolve) => eventWaiters.push({ type, resolve }));
    },
    ready: Promise.race([ready, exited.then(() => Promise.reject(new Error(`worker exited before it was ready: ${errors}`)))]),
    exited,
    called: (tool) => {
      const found = calls.find((call) => call.tool === tool);
      return found !== undefined ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ tool, resolve }));
    },
    until: (condition) => (condition() ? Promise.resolve() : new Promise((resolve) => conditions.push({ condition, resolve }))),
    stderr: () => errors,
  };
}

/**
 * The most calls of `tool` that were under way at once, from their intervals (an interval holds its
 * start, not its end: a call that began as another ended did not overlap it).
 *
 * @example
 * expect(mostAtOnce(worker.intervals, "hold")).toBe(2)
 */
export function mostAtOnce(intervals: readonly Interval[], tool: string): number {
  const calls = intervals.filter((interval) => interval.tool === tool);
  // Each call with the others under way when it began (a call of no length still counts itself).
  return Math.max(
    0,
    ...calls.map((call) => 1 + calls.filter((other) => other !== call && other.start <= call.start && call.start < other.end).length),
  );
}

/**
 * For a test file: a migrated database made before its tests, and removed after them with every
 * worker child spawned through `spawned` (killed if still running). A file whose tests stop and start
 * the server (an outage) asks for `ownServer`: a server of its own, migrated, with `stop` and `start`;
 * the others get a database of their own on the run's shared server.
 */
export function databaseWithWorkers(options: { readonly ownServer: true }): {
  readonly db: () => TestDatabase;
  readonly spawned: (...args: Parameters<typeof spawnWorker>) => WorkerChild;
};
export function databaseWithWorkers(options?: { readonly ownServer?: false }): {
  readonly db: () => FileDatabase;
  readonly spawned: (...args: Parameters<typeof spawnWorker>) => WorkerChild;
};
export function databaseWithWorkers(options: { readonly ownServer?: boolean } = {}): {
  readonly db: () => FileDatabase;
  readonly spawned: (...args: Parameters<typeof spawnWorker>) => WorkerChild;
} {
  let db: FileDatabase | undefined;
  const children: WorkerChild[] = [];
  beforeAll(async () => {
    if (options.ownServer === true) {
      const own = await startDatabase();
      db = own;
      await migrate({ connectionString: own.url });
    } else {
      db = await fileDatabase();
    }
  }, 60_000);
  afterAll(async () => {
    for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await db?.remove();
  }, 60_000);
  return {
    db: () => db!,
    spawned: (...args) => {
      const worker = spawnWorker(...args);
      children.push(worker);
      return worker;
    },
  };
}
