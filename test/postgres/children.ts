/** Worker child processes (test/fixtures/pg-worker.mjs, which runs dist/): their tool calls, their exit. */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { migrate } from "../../src/postgres/index.js";
import { startDatabase, type TestDatabase } from "./server.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/pg-worker.mjs", import.meta.url));

export interface Call {
  readonly runId: string;
  readonly stepId: number;
  readonly attempt: number;
  readonly tool: string;
  /** The tool's `idempotencyKey`. */
  readonly key?: string;
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
  readonly events: PrintedEvent[];
  /** Resolves at the first event of this type. */
  event(type: string): Promise<PrintedEvent>;
  /** Resolves when the worker takes jobs. */
  readonly ready: Promise<void>;
  /** Resolves with the exit code (or the signal) when the process ends. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  /** Resolves at the first call of this tool. */
  called(tool: string): Promise<Call>;
  stderr(): string;
}

export function spawnWorker(url: string, recoveryMs = 3_000, concurrency = 8, graceMs = 3_000): WorkerChild {
  const child = spawn(process.execPath, [FIXTURE, url, String(recoveryMs), String(concurrency), String(graceMs)], { stdio: ["ignore", "pipe", "pipe"] });
  const calls: Call[] = [];
  const events: PrintedEvent[] = [];
  const eventWaiters: { type: string; resolve: (event: PrintedEvent) => void }[] = [];
  const waiters: { tool: string; resolve: (call: Call) => void }[] = [];
  let buffer = "";
  let errors = "";
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
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
      } else if (line.startsWith("{")) {
        const call = (JSON.parse(line) as { call: Call }).call;
        calls.push(call);
        for (const waiter of waiters.filter((w) => w.tool === call.tool)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(call);
        }
      }
    }
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (errors += chunk));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal)));
  return {
    child,
    calls,
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
    stderr: () => errors,
  };
}

/**
 * For a test file: a PostgreSQL started and migrated before its tests, and removed after them with
 * every worker child spawned through `spawned` (killed if still running).
 */
export function databaseWithWorkers(): { readonly db: () => TestDatabase; readonly spawned: (...args: Parameters<typeof spawnWorker>) => WorkerChild } {
  let db: TestDatabase | undefined;
  const children: WorkerChild[] = [];
  beforeAll(async () => {
    db = await startDatabase();
    await migrate({ connectionString: db.url });
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
