/**
 * The stdio transport `connectMcp` uses, in place of the SDK's: the server runs in a process group
 * of its own, and closing stops the whole group. A server is often started through a wrapper (`npx`,
 * `uvx`, `sh -c`) whose real server is a grandchild: stopping only the wrapper leaves the real server
 * running, holding our pipes open, and the command that started it never exits. Answers are read
 * line by line with a size limit per message: an answer over it fails the one request it answers,
 * and the connection carries on (the SDK drops the whole connection). Each message goes through
 * `AnswerCheck` (answer-check.ts, shared with the HTTP transport): an answer whose shape the SDK would
 * drop (a `result` that is not an object) fails its request at once instead of leaving it to its timeout.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { describeThrown } from "../shared/errors.js";
import { safeText } from "../shared/text.js";
import { AnswerCheck, KEPT_ENDS, MAX_MCP_MESSAGE_BYTES, type Message, type MessageSchema } from "./answer-check.js";

export { MAX_MCP_MESSAGE_BYTES };

/** Milliseconds between asking a server group to stop (stdin closed, SIGTERM, SIGKILL). */
export const STOP_GRACE_MS = 2000;

const NEWLINE = 0x0a;
const POLL_MS = 25;

/** What the transport needs of the SDK (passed in: the SDK is loaded only when a server is started). */
export interface StdioSdk {
  /** The SDK's JSON-RPC message schema (`JSONRPCMessageSchema` of its `types.js`). */
  readonly messageSchema: MessageSchema;
  /** The environment every server gets (the SDK's `getDefaultEnvironment`). */
  readonly defaultEnvironment: () => Record<string, string>;
}

/** Where and how to start the server. */
export interface StdioServer {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env: Readonly<Record<string, string>>;
}

/** The SDK's `Transport` interface, over a child process group's stdin and stdout. */
export class GroupStdioTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: Message) => void;

  #child: ChildProcess | undefined;
  #stderr: ((chunk: string) => void) | undefined;
  #closing: Promise<void> | undefined;
  #closed = false;
  #told = false;
  /** Requests sent and not yet answered, and the check of each answer. */
  readonly #check: AnswerCheck;
  // The line being read: its parts, its length, and (past the limit) its first and last bytes.
  #parts: Buffer[] = [];
  #length = 0;
  #head: Buffer | undefined;
  #tail = Buffer.alloc(0);

  constructor(
    readonly server: StdioServer,
    readonly sdk: StdioSdk,
  ) {
    this.#check = new AnswerCheck(sdk.messageSchema);
  }

  /** The process id of the group's leader, once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Receive what the server writes on stderr. */
  onStderr(listener: (chunk: string) => void): void {
    this.#stderr = listener;
  }

  start(): Promise<void> {
    if (this.#child !== undefined) return Promise.reject(new Error("the transport is already started"));
    return new Promise((resolve, reject) => {
      const child = spawn(this.server.command, [...this.server.args], {
        env: { ...this.sdk.defaultEnvironment(), ...this.server.env },
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        // A group of its own (a new session): its wrapper and everything it starts are stopped together.
        detached: process.platform !== "win32",
        windowsHide: true,
        ...(this.server.cwd === undefined ? {} : { cwd: this.server.cwd }),
      });
      this.#child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("close", () => this.#ended());
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.#read(chunk));
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (chunk: string) => this.#stderr?.(chunk));
      child.stderr?.on("error", () => undefined);
    });
  }

  send(message: Message): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (this.#closed || stdin === undefined || stdin === null || stdin.destroyed) {
        reject(new Error("Not connected"));
        return;
      }
      this.#check.sent(message);
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Stop the server's whole group: stdin closed, then SIGTERM, then SIGKILL, a grace period apart. Never rejects. */
  close(): Promise<void> {
    return (this.#closing ??= this.#stop());
  }

  async #stop(): Promise<void> {
    const child = this.#child;
    this.#closed = true;
    if (child !== undefined && child.pid !== undefined) {
      const group = child.pid;
      try {
        child.stdin?.end();
      } catch {
        // already closed
      }
      for (const signal of ["SIGTERM", "SIGKILL", undefined] as const) {
        if (await stopped(child, group, STOP_GRACE_MS)) break;
        if (signal !== undefined) kill(child, group, signal);
      }
      // Whatever still holds our ends of the pipes (a process that left the group) no longer keeps this process alive.
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
    }
    this.#ended();
  }

  /** The connection is over (the server exited, or it was closed): said once. */
  #ended(): void {
    this.#closed = true;
    this.#parts = [];
    this.#length = 0;
    this.#head = undefined;
    this.#check.clear();
    if (this.#told) return;
    this.#told = true;
    this.onclose?.();
  }

  /** Split stdout into lines, each line one message; a line over the limit is skipped to its end. */
  #read(chunk: Buffer): void {
    let from = 0;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
      this.#add(chunk.subarray(from, at));
      from = at + 1;
      const over = this.#head !== undefined;
      const line = over ? undefined : Buffer.concat(this.#parts, this.#length);
      const head = this.#head;
      const tail = this.#tail;
      this.#parts = [];
      this.#length = 0;
      this.#head = undefined;
      this.#tail = Buffer.alloc(0);
      if (line !== undefined) this.#message(line.toString("utf8").replace(/\r$/, ""));
      else this.#oversized(head!, tail);
    }
    this.#add(chunk.subarray(from));
  }

  #add(part: Buffer): void {
    if (part.length === 0) return;
    if (this.#head === undefined && this.#length + part.length <= MAX_MCP_MESSAGE_BYTES) {
      this.#parts.push(part);
      this.#length += part.length;
      return;
    }
    if (this.#head === undefined) {
      this.#head = Buffer.concat([...this.#parts, part]).subarray(0, KEPT_ENDS);
      this.#parts = [];
    }
    this.#length += part.length;
    const tail = Buffer.concat([this.#tail, part]);
    this.#tail = tail.subarray(Math.max(0, tail.length - KEPT_ENDS));
  }

  #message(line: string): void {
    if (line.trim() === "") return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      this.onerror?.(new Error(`the MCP server wrote a line that is not JSON: ${safeText(describeThrown(error), 120)}`));
      return;
    }
    const checked = this.#check.received(message);
    if ("deliver" in checked) this.onmessage?.(checked.deliver);
    else this.onerror?.(new Error(checked.problem));
  }

  #oversized(head: Buffer, tail: Buffer): void {
    const checked = this.#check.oversized(head.toString("latin1"), tail.toString("latin1"));
    if ("deliver" in checked) this.onmessage?.(checked.deliver);
    else this.onerror?.(new Error(checked.problem));
  }
}

function kill(child: ChildProcess, group: number, signal: NodeJS.Signals): void {
  try {
    if (process.platform === "win32") child.kill(signal);
    else process.kill(-group, signal);
  } catch {
    // the group is gone
  }
}

/** Wait up to `ms` for every process of the group to end; whether they did. */
async function stopped(child: ChildProcess, group: number, ms: number): Promise<boolean> {
  for (let waited = 0; ; waited += POLL_MS) {
    // The leader is ours to reap: its exit is seen (so it leaves no zombie behind) before it counts as gone.
    if (child.exitCode !== null || child.signalCode !== null) {
      if (!groupAlive(child, group)) return true;
    }
    if (waited >= ms) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Whether a process of the group still runs. A zombie does not count: in a container whose first
 * process does not reap orphans, a stopped grandchild stays a zombie forever, and `kill(-group, 0)`
 * still finds it; on Linux the group's members are read from /proc.
 */
function groupAlive(child: ChildProcess, group: number): boolean {
  if (process.platform === "win32") return false;
  try {
    process.kill(-group, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
  if (process.platform !== "linux") return true;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === group && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}
