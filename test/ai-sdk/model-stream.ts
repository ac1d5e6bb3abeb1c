/**
 * A model stream the test writes chunk by chunk (the AI SDK's own MockLanguageModelV3 under real
 * streamText) and tools whose every call waits for the test: tool starts are compared with the chunks
 * written, never with the clock.
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { tool, type ToolSet } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";

export const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A promise with its resolve in hand. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** One tool call of a tool, as the test sees it: its arguments, its signal, and how to finish it. */
export interface Call {
  readonly args: Record<string, unknown>;
  readonly signal: AbortSignal | undefined;
  /** How many chunks of the model's stream had been written when the tool started. */
  readonly chunk: number;
  finish(value: unknown): void;
}

/** The model's stream, written by the test; its chunk count is what tool starts are compared with. */
export class ModelStream {
  #controller: ReadableStreamDefaultController<LanguageModelV3StreamPart> | undefined;
  readonly #opened = deferred();
  written = 0;
  readonly model = new MockLanguageModelV3({
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV3StreamPart>({
        start: (controller) => {
          this.#controller = controller;
          this.#opened.resolve();
        },
      }),
    }),
  });

  async write(...parts: LanguageModelV3StreamPart[]): Promise<void> {
    await this.#opened.promise;
    for (const part of parts) {
      this.#controller!.enqueue(part);
      this.written++;
    }
  }

  /** A tool call's input, one delta per piece. */
  async input(id: string, ...pieces: string[]): Promise<void> {
    for (const delta of pieces) await this.write({ type: "tool-input-delta", id, delta });
  }

  async finishCall(id: string, text: string): Promise<void> {
    await this.write({ type: "tool-input-end", id }, { type: "tool-call", toolCallId: id, toolName: "run_plan", input: text });
  }

  async end(): Promise<void> {
    await this.write({ type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage });
    this.#controller!.close();
  }

  fail(error: Error): void {
    this.#controller!.error(error);
  }
}

/** Tools whose every call waits for the test: `calls` by tool, `started(tool, n)` resolves at the n-th call. */
export function controlledTools(stream: ModelStream, names: readonly string[]) {
  const calls = new Map<string, Call[]>(names.map((name) => [name, []]));
  const waiters = new Map<string, ((call: Call) => void)[]>();
  const tools: ToolSet = {};
  for (const name of names) {
    tools[name] = tool({
      inputSchema: z.object({ q: z.string() }),
      outputSchema: z.object({ a: z.string() }),
      execute: (args, { abortSignal }) =>
        new Promise((resolve) => {
          const call: Call = { args, signal: abortSignal, chunk: stream.written, finish: resolve };
          const list = calls.get(name)!;
          list.push(call);
          waiters.get(`${name}#${list.length}`)?.forEach((wake) => wake(call));
        }),
    });
  }
  const started = (name: string, n = 1): Promise<Call> => {
    const done = calls.get(name)![n - 1];
    if (done !== undefined) return Promise.resolve(done);
    const wait = deferred<Call>();
    const key = `${name}#${n}`;
    waiters.set(key, [...(waiters.get(key) ?? []), wait.resolve]);
    return wait.promise;
  };
  return { tools, calls, started };
}

export const step = (id: number, tool: string, q: string): string => JSON.stringify({ id, tool, args: { q } });
