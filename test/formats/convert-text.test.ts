/**
 * The conversion of text that comes in chunks (`streamSteps`, through fromLLMCompilerStream): the
 * same lines wherever the chunks end, the chunk source closed at once when the run stops, and the
 * stream and the whole text agreeing with runPlan on a reference to a later step.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { MAX_PLAN_LINE_LENGTH, type ConvertedStep } from "../../src/formats/convert.js";
import { fromLLMCompiler, fromLLMCompilerStream } from "../../src/formats/llmcompiler.js";
import { runPlan } from "../../src/run/index.js";
import type { ToolCatalog } from "../../src/plan/plan.js";

const catalog = (
  JSON.parse(readFileSync(new URL("../cases/formats-catalogs.json", import.meta.url), "utf8")) as Record<string, ToolCatalog>
)["research"]!;

async function read(chunks: Iterable<unknown> | AsyncIterable<unknown>): Promise<{ ids: number[]; codes: string[] }> {
  const stream = fromLLMCompilerStream(chunks, { catalog });
  const steps: ConvertedStep[] = [];
  for await (const step of stream) steps.push(step);
  return { ids: steps.map((step) => step.id), codes: stream.diagnostics.map((d) => d.code) };
}

describe("lines", () => {
  test("a line of exactly the limit ending in \\r\\n, the chunk ending after its \\r: read, as in one chunk", async () => {
    const head = '1. web_search("';
    const line = `${head}${"x".repeat(MAX_PLAN_LINE_LENGTH - head.length - 2)}")`;
    expect(line).toHaveLength(MAX_PLAN_LINE_LENGTH);
    const text = `${line}\r\n2. fetch_page($1)`;
    expect(fromLLMCompiler(text, { catalog }).diagnostics).toEqual([]);
    expect(await read([text])).toEqual({ ids: [1, 2], codes: [] });
    expect(await read([`${line}\r`, "\n2. fetch_page($1)"])).toEqual({ ids: [1, 2], codes: [] });
    // One more character is over the limit, wherever the chunks end.
    expect(await read([`${line}x\r`, "\n2. fetch_page($1)"])).toEqual({ ids: [], codes: ["limit", "unknown-step"] });
  });
});

describe("closing", () => {
  /** A chunk source that gives `first`, then stalls forever (calling `onStall`); it records being closed. */
  function stalling(first: string, onStall = (): void => undefined): AsyncIterable<string> & { closed: boolean } {
    const source = {
      closed: false,
      [Symbol.asyncIterator]() {
        let given = false;
        return {
          next: (): Promise<IteratorResult<string>> => {
            if (given) {
              onStall();
              return new Promise(() => undefined);
            }
            given = true;
            return Promise.resolve({ done: false, value: first });
          },
          return: (): Promise<IteratorResult<string>> => {
            source.closed = true;
            return Promise.resolve({ done: true, value: undefined });
          },
        };
      },
    };
    return source;
  }

  test("aborting runPlan while the chunk source is stalled closes it at once", async () => {
    const controller = new AbortController();
    // Aborted once the run waits for the next chunk, which never comes.
    const source = stalling('1. web_search("x")\n', () => controller.abort());
    const report = await runPlan(
      fromLLMCompilerStream(source, { catalog }),
      { web_search: () => "found" },
      { signal: controller.signal, deep: true, templates: true },
    );
    expect(report.status).toBe("aborted");
    expect(source.closed).toBe(true);
  });

  test("closing the stream while it waits for a chunk ends the waiting next() and closes the source", async () => {
    const source = stalling('1. web_search("x")\n');
    const iterator = fromLLMCompilerStream(source, { catalog })[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ id: 1 });
    const waiting = iterator.next();
    await iterator.return!();
    expect(source.closed).toBe(true);
    expect(await waiting).toEqual({ done: true, value: undefined });
  });

  test("join() closes the source; a source that ends on its own is not closed again", async () => {
    const source = stalling('1. web_search("x")\n2. join()\n');
    expect(await read(source)).toEqual({ ids: [1], codes: [] });
    expect(source.closed).toBe(true);
  });
});

describe("a reference to a later step", () => {
  const text = '1. summarise($2)\n2. web_search("x")\n3. join()';
  const tools = { summarise: () => "summary", web_search: () => "found" };

  test("is refused alike by the converter, runPlan over the stream and runPlan over the whole text: the step is left out", async () => {
    const { plan, diagnostics } = fromLLMCompiler(text, { catalog });
    expect(diagnostics.map((d) => d.code)).toEqual(["unknown-step"]);
    const whole = await runPlan(plan, tools);
    const stream = fromLLMCompilerStream(text.split(""), { catalog });
    const streamed = await runPlan(stream, tools, { deep: true, templates: true });
    for (const report of [whole, streamed]) {
      expect([...report.results.keys()]).toEqual([2]);
      expect(report.status).toBe("ok");
    }
    expect(stream.diagnostics.map((d) => d.code)).toEqual(["unknown-step"]);
  });
});
