/**
 * The converters beyond the tables: the streamed form starts step 1 while the model still writes
 * (a timeline with deferred promises), the plans round-trip into lintPlan and runPlan, the converters
 * never throw on any text (fast-check), chunking never changes what the stream yields, and every
 * input limit is a diagnostic.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  MAX_ARGUMENT_DEPTH,
  MAX_CONVERSION_DIAGNOSTICS,
  MAX_PLAN_LINE_LENGTH,
  MAX_PLAN_STEPS,
  MAX_PLAN_TEXT_LENGTH,
  type ConvertedStep,
} from "../../src/formats/convert.js";
import { fromLLMCompiler, fromLLMCompilerStream } from "../../src/formats/llmcompiler.js";
import { fromReWOO } from "../../src/formats/rewoo.js";
import { lintPlan } from "../../src/lint/lint-plan.js";
import { readPlan, type ToolCatalog } from "../../src/plan/plan.js";
import { runPlan } from "../../src/run/run-plan.js";
import { LineIndex } from "../../src/shared/positions.js";

const cases = join(import.meta.dirname, "../cases");
const catalogs = JSON.parse(readFileSync(join(cases, "formats-catalogs.json"), "utf8")) as Record<string, ToolCatalog>;
const research = catalogs["research"]!;
const rewoo = catalogs["rewoo"]!;
const llmRows = (
  JSON.parse(readFileSync(join(cases, "formats-llmcompiler.json"), "utf8")) as {
    cases: { name: string; text: string[]; catalog?: string | null; diagnostics: unknown[] }[];
  }
).cases;

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** An async iterable of text chunks that the test feeds by hand; it records whether it was closed early. */
function channel(): {
  chunks: AsyncIterable<string>;
  push: (chunk: string) => void;
  end: () => void;
  closed: () => boolean;
  pulls: () => number;
} {
  const queue: string[] = [];
  let waiting: ((result: IteratorResult<string>) => void) | undefined;
  let ended = false;
  let closed = false;
  let pulls = 0;
  const iterator: AsyncIterator<string> = {
    next: () => {
      pulls++;
      if (queue.length > 0) return Promise.resolve({ done: false, value: queue.shift()! });
      if (ended) return Promise.resolve({ done: true, value: undefined });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: () => {
      closed = true;
      return Promise.resolve({ done: true, value: undefined });
    },
  };
  const deliver = (): void => {
    if (waiting === undefined) return;
    const wake = waiting;
    if (queue.length > 0) {
      waiting = undefined;
      wake({ done: false, value: queue.shift()! });
    } else if (ended) {
      waiting = undefined;
      wake({ done: true, value: undefined });
    }
  };
  return {
    chunks: { [Symbol.asyncIterator]: () => iterator },
    push: (chunk) => {
      queue.push(chunk);
      deliver();
    },
    end: () => {
      ended = true;
      deliver();
    },
    closed: () => closed,
    pulls: () => pulls,
  };
}

/** Let every pending promise callback and I/O callback run (no timer, no duration). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("fromLLMCompilerStream", () => {
  test("runPlan calls step 1's tool before the stream yields line 3, and a half-written line is no step", async () => {
    const timeline: string[] = [];
    const searchCalled = deferred();
    const feed = channel();
    const tools = {
      web_search: ({ query }: Record<string, unknown>) => {
        timeline.push(`web_search ${String(query)}`);
        searchCalled.resolve();
        return "https://example.org/paris";
      },
      fetch_page: ({ url }: Record<string, unknown>) => {
        timeline.push(`fetch_page ${String(url)}`);
        return "sunny, 21 °C";
      },
      summarise: ({ text }: Record<string, unknown>) => {
        timeline.push(`summarise ${String(text)}`);
        return String(text).toUpperCase();
      },
    };
    const stream = fromLLMCompilerStream(feed.chunks, { catalog: research });
    const run = runPlan(stream, tools, { deep: true, templates: true, catalog: research });

    feed.push("Thought: search first\n1. web_se");
    await settle();
    expect(timeline).toEqual([]); // line 1 is not complete yet
    feed.push('arch("weather in Paris")\n');
    await searchCalled.promise;
    timeline.push("model writes line 2");
    feed.push("2. fetch_page($1)\n");
    timeline.push("model writes line 3");
    feed.push('3. summarise("Paris: $2")\n4. join()<END_OF_PLAN>\n');
    const report = await run;

    expect(report.status).toBe("ok");
    expect(timeline[0]).toBe("web_search weather in Paris");
    expect(timeline.indexOf("web_search weather in Paris")).toBeLessThan(timeline.indexOf("model writes line 3"));
    expect(timeline.slice(-2)).toEqual(["fetch_page https://example.org/paris", "summarise Paris: sunny, 21 °C"]);
    expect(report.results.get(3)).toBe("PARIS: SUNNY, 21 °C");
    expect(stream.diagnostics).toEqual([]);
    // join() ended the plan: the stream closed its source without waiting for the model to stop.
    expect(feed.closed()).toBe(true);
  });

  test("a stream that ends without join() ends the plan; its last line needs no line break", async () => {
    const steps: ConvertedStep[] = [];
    for await (const step of fromLLMCompilerStream(["1. web_search(", '"x")\n2. fetch_page($1)'], { catalog: research })) steps.push(step);
    expect(steps).toEqual([
      { id: 1, tool: "web_search", args: { query: "x" } },
      { id: 2, tool: "fetch_page", args: { url: "$1" } },
    ]);
  });

  test("strings are written in the template language (runPlan with templates: true)", async () => {
    const steps: ConvertedStep[] = [];
    const stream = fromLLMCompilerStream(['1. web_search("${literal}")\n', '2. summarise("$1 and more")\n'], { catalog: research });
    for await (const step of stream) steps.push(step);
    expect(steps.map((step) => step.args)).toEqual([{ query: "$${literal}" }, { text: "${1} and more" }]);
  });

  test("a chunk that is not text is a diagnostic and is skipped", async () => {
    const stream = fromLLMCompilerStream(["1. web_search(", 42, '"x")\n'], { catalog: research });
    const steps: ConvertedStep[] = [];
    for await (const step of stream) steps.push(step);
    expect(steps).toEqual([{ id: 1, tool: "web_search", args: { query: "x" } }]);
    expect(stream.diagnostics.map((d) => [d.code, d.range?.start])).toEqual([["invalid-plan", { line: 1, column: 15 }]]);
  });

  test("not an iterable: one diagnostic, no step", async () => {
    const stream = fromLLMCompilerStream(42 as unknown as string[]);
    const steps: ConvertedStep[] = [];
    for await (const step of stream) steps.push(step);
    expect(steps).toEqual([]);
    expect(stream.diagnostics.map((d) => d.code)).toEqual(["invalid-plan"]);
  });

  test("every table row: the stream yields the whole-text conversion's steps, and its problems", async () => {
    for (const row of llmRows) {
      const text = row.text.join("\n");
      const options = row.catalog === null ? {} : { catalog: catalogs[row.catalog ?? "research"]! };
      const whole = fromLLMCompiler(text, options);
      const stream = fromLLMCompilerStream([text], options);
      const steps: ConvertedStep[] = [];
      for await (const step of stream) steps.push(step);
      expect(steps, row.name).toEqual(whole.plan.steps);
      const key = (d: { code: string; offset?: { start: number } | undefined; message: string }): string =>
        `${d.offset?.start ?? -1} ${d.code} ${d.message}`;
      expect(stream.diagnostics.map(key).sort(), row.name).toEqual(whole.diagnostics.map(key).sort());
    }
  });

  test("property: however the text is cut into chunks, the stream yields the same steps and problems", async () => {
    const text = [...llmRows.map((row) => row.text.join("\n")), "1. a(", "x"].join("\n");
    const once: ConvertedStep[] = [];
    const onceStream = fromLLMCompilerStream([text], { catalog: research });
    for await (const step of onceStream) once.push(step);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: text.length }), { maxLength: 40 }), async (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const chunks = points.map((point, index) => text.slice(index === 0 ? 0 : points[index - 1], point));
        chunks.push(text.slice(points.at(-1) ?? 0));
        const stream = fromLLMCompilerStream(chunks, { catalog: research });
        const steps: ConvertedStep[] = [];
        for await (const step of stream) steps.push(step);
        expect(steps).toEqual(once);
        expect(stream.diagnostics.filter((d) => !d.message.startsWith("chunk"))).toEqual(onceStream.diagnostics);
      }),
      { numRuns: 100 },
    );
  });
});

describe("round trips", () => {
  test("the clean LLMCompiler rows lint clean against their catalog, the others lint with the same kind of problem", () => {
    for (const row of llmRows) {
      const catalog = row.catalog === null ? undefined : catalogs[row.catalog ?? "research"]!;
      const { plan, diagnostics } = fromLLMCompiler(row.text.join("\n"), catalog === undefined ? {} : { catalog });
      const lint = lintPlan(plan, catalog === undefined ? {} : { tools: catalog });
      if (diagnostics.length === 0) expect(lint, row.name).toEqual([]);
      for (const code of diagnostics.map((d) => d.code)) {
        if (code === "unknown-tool")
          expect(
            lint.map((d) => d.code),
            row.name,
          ).toContain("unknown-tool");
        // Left out: the plan keeps no step that refers to a later step or to itself.
        if (code === "unknown-step")
          expect(
            lint.filter((d) => ["unknown-step", "forward-ref", "self-ref"].includes(d.code)),
            row.name,
          ).toEqual([]);
      }
    }
  });

  test("an LLMCompiler plan runs with runPlan: positional, keyword, template and deep arguments resolved", async () => {
    const text = [
      "Thought: two forecasts, then their mean.",
      '1. weather("Oslo", 2)',
      '2. weather(city="Bergen")',
      '3. math("($1 + $2) / 2", context={"inputs": [$1, $2]})',
      '4. summarise("mean high: $3", style="short")',
      "5. join()",
    ].join("\n");
    const { plan, diagnostics } = fromLLMCompiler(text, { catalog: research });
    expect(diagnostics).toEqual([]);
    expect(plan.options).toEqual({ templates: true, deep: true });
    expect(lintPlan(plan, { tools: research })).toEqual([]);
    const seen: Record<string, unknown>[] = [];
    const report = await runPlan(plan, {
      weather: ({ city }) => ({ Oslo: 14, Bergen: 12 })[city as "Oslo" | "Bergen"],
      math: (args) => (seen.push(args), 13),
      summarise: ({ text: body, style }) => `${String(body)} (${String(style)})`,
    });
    expect(report.status).toBe("ok");
    expect(seen).toEqual([{ expression: "(14 + 12) / 2", context: { inputs: [14, 12] } }]);
    expect(report.results.get(4)).toBe("mean high: 13 (short)");
  });

  test("a ReWOO plan lints clean and runs: evidence alone keeps its type, inside text it is interpolated", async () => {
    const text = [
      "Plan: Find the article.",
      "#E1 = Search[Tarkovsky Stalker director]",
      "Plan: Read it. #E2 = Wikipedia[#E1]",
      "#E3 = LLM[Birth year of the person in #E2?]",
    ].join("\n");
    const { plan, diagnostics } = fromReWOO(text, { catalog: rewoo });
    expect(diagnostics).toEqual([]);
    expect(lintPlan(plan, { tools: rewoo })).toEqual([]);
    const report = await runPlan(plan, {
      Search: () => "Andrei Tarkovsky",
      Wikipedia: ({ title }) => ({ title, born: 1932 }),
      LLM: ({ prompt }) => prompt,
    });
    expect(report.status).toBe("ok");
    expect(report.results.get(3)).toBe('Birth year of the person in {"title":"Andrei Tarkovsky","born":1932}?');
  });
});

/** Text that looks like plans, broken at random. */
const planLike = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "1. ",
        "2.",
        "12. ",
        "#E1 = ",
        "#E2=",
        "Plan: ",
        "Thought: ",
        "join()",
        "<END_OF_PLAN>",
        "web_search(",
        "Search[",
        "LLM[",
        "fetch_page",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        ":",
        "=",
        '"',
        "'",
        "\\",
        "\\u12",
        "$",
        "$1",
        "${2}",
        "#E1",
        "#",
        "True",
        "None",
        "-1e999",
        "9".repeat(20),
        " ",
        "\n",
        "\r\n",
        "\u2028",
        "\ud800",
      ),
      fc.string({ maxLength: 5 }),
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(""));

describe("never throws", () => {
  test("property: any text gives a well-formed plan and diagnostics placed inside the text", () => {
    fc.assert(
      fc.property(planLike, fc.boolean(), (text, withCatalog) => {
        for (const [convert, catalog] of [
          [fromLLMCompiler, research],
          [fromReWOO, rewoo],
        ] as const) {
          const { plan, diagnostics } = convert(text, withCatalog ? { catalog } : {});
          expect(readPlan(plan).problems).toEqual([]);
          const lines = new LineIndex(text);
          for (const diagnostic of diagnostics) {
            expect(diagnostic.offset!.start).toBeGreaterThanOrEqual(0);
            expect(diagnostic.offset!.end).toBeLessThanOrEqual(text.length);
            expect(diagnostic.offset!.start).toBeLessThanOrEqual(diagnostic.offset!.end);
            if (!text.includes("\r") && !text.includes("\u2028"))
              expect(diagnostic.range!.start).toEqual(lines.position(diagnostic.offset!.start));
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  test("property: the stream never rejects on any text", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(planLike, { maxLength: 5 }), async (chunks) => {
        const steps: unknown[] = [];
        for await (const step of fromLLMCompilerStream(chunks, { catalog: research })) steps.push(step);
        expect(readPlan(steps).problems.filter((p) => p.code !== "duplicate-step-id")).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  test("values that are not text or options are diagnostics", () => {
    expect(fromLLMCompiler(42 as unknown as string).diagnostics.map((d) => d.code)).toEqual(["invalid-plan"]);
    expect(fromReWOO(null as unknown as string).diagnostics.map((d) => d.code)).toEqual(["invalid-plan"]);
    expect(fromLLMCompiler("", 7 as never).diagnostics.map((d) => d.code)).toEqual(["invalid-options"]);
    expect(fromLLMCompiler("", { catalog: [] as never }).diagnostics.map((d) => d.code)).toEqual(["invalid-options"]);
    expect(fromLLMCompiler("", { thoughts: "keep" as never }).diagnostics.map((d) => d.code)).toEqual(["invalid-options"]);
    let ran = false;
    const options = {};
    Object.defineProperty(options, "catalog", { enumerable: true, get: () => ((ran = true), research) });
    fromLLMCompiler('1. web_search("x")', options);
    expect(ran).toBe(false);
  });
});

describe("limits", () => {
  test("text past MAX_PLAN_TEXT_LENGTH: the rest is one limit diagnostic", async () => {
    const line = '1. web_search("x")\n';
    const text = line + " ".repeat(MAX_PLAN_TEXT_LENGTH) + "\n2. fetch_page($1)";
    const { plan, diagnostics } = fromLLMCompiler(text, { catalog: research });
    expect(plan.steps.map((step) => step.id)).toEqual([1]);
    expect(diagnostics.map((d) => d.code)).toEqual(["limit"]);
    expect(diagnostics[0]!.offset!.start).toBe(MAX_PLAN_TEXT_LENGTH);
    const stream = fromLLMCompilerStream([line, " ".repeat(MAX_PLAN_TEXT_LENGTH), "\n2. fetch_page($1)"], { catalog: research });
    const steps: ConvertedStep[] = [];
    for await (const step of stream) steps.push(step);
    expect(steps.map((step) => step.id)).toEqual([1]);
    expect(stream.diagnostics.map((d) => d.code)).toContain("limit");
  });

  test("a line past MAX_PLAN_LINE_LENGTH is left out, the next is read", async () => {
    const text = `1. web_search("${"x".repeat(MAX_PLAN_LINE_LENGTH)}")\n2. web_search("y")`;
    const { plan, diagnostics } = fromLLMCompiler(text, { catalog: research });
    expect(plan.steps.map((step) => step.id)).toEqual([2]);
    expect(diagnostics.map((d) => [d.code, d.range?.start])).toEqual([["limit", { line: 1, column: 1 }]]);
    const stream = fromLLMCompilerStream(text.match(/[\s\S]{1,1000}/g)!, { catalog: research });
    const steps: ConvertedStep[] = [];
    for await (const step of stream) steps.push(step);
    expect(steps.map((step) => step.id)).toEqual([2]);
    expect(stream.diagnostics.map((d) => [d.code, d.range?.start])).toEqual([["limit", { line: 1, column: 1 }]]);
  });

  test("more than MAX_PLAN_STEPS steps: one limit diagnostic", () => {
    const text = Array.from({ length: MAX_PLAN_STEPS + 5 }, (_, i) => `${i + 1}. web_search("q")`).join("\n");
    const { plan, diagnostics } = fromLLMCompiler(text, { catalog: research });
    expect(plan.steps.length).toBe(MAX_PLAN_STEPS);
    expect(diagnostics.map((d) => [d.code, d.range?.start.line])).toEqual([["limit", MAX_PLAN_STEPS + 1]]);
  });

  test("an argument nested past MAX_ARGUMENT_DEPTH", () => {
    const deep = `1. extract(${"[".repeat(MAX_ARGUMENT_DEPTH + 2)}${"]".repeat(MAX_ARGUMENT_DEPTH + 2)})`;
    const { plan, diagnostics } = fromLLMCompiler(deep, { catalog: research });
    expect(plan.steps).toEqual([]);
    expect(diagnostics.map((d) => d.code)).toEqual(["limit"]);
    const fits = `1. extract(${"[".repeat(MAX_ARGUMENT_DEPTH)}${"]".repeat(MAX_ARGUMENT_DEPTH)})`;
    expect(fromLLMCompiler(fits, { catalog: research }).diagnostics).toEqual([]);
  });

  test("more than MAX_CONVERSION_DIAGNOSTICS problems: the last one says the rest are left out", () => {
    const text = Array.from({ length: MAX_CONVERSION_DIAGNOSTICS + 50 }, (_, i) => `${i + 1}. ???`).join("\n");
    const { diagnostics } = fromLLMCompiler(text);
    expect(diagnostics.length).toBe(MAX_CONVERSION_DIAGNOSTICS + 1);
    expect(diagnostics.filter((d) => d.code === "limit").length).toBe(1);
  });
});

describe("__proto__ is a name like any other", () => {
  test("a dict key and a keyword argument named __proto__ are own data of the plan", () => {
    const { plan, diagnostics } = fromLLMCompiler("1. anything(__proto__={'__proto__': 1})");
    expect(diagnostics).toEqual([]);
    const args = plan.steps[0]!.args;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.hasOwn(args, "__proto__")).toBe(true);
    const inner = Object.getOwnPropertyDescriptor(args, "__proto__")!.value as object;
    expect(Object.getOwnPropertyDescriptor(inner, "__proto__")!.value).toBe(1);
  });
});

describe("hostile options", () => {
  const trap = (): never => {
    throw new Error("trap");
  };
  const hostile = new Proxy({}, { getOwnPropertyDescriptor: trap, ownKeys: trap, get: trap });

  test("options or a catalog whose Proxy traps throw are diagnostics, in every converter", async () => {
    const text = '1. web_search("x")\n#E1 = Search[x]';
    for (const options of [hostile, { catalog: hostile }, { catalog: { web_search: hostile } }]) {
      expect(() => fromLLMCompiler(text, options as never)).not.toThrow();
      expect(() => fromReWOO(text, options as never)).not.toThrow();
      const stream = fromLLMCompilerStream([text], options);
      const steps: unknown[] = [];
      for await (const step of stream) steps.push(step);
      expect(fromLLMCompiler(text, options as never).diagnostics.length + stream.diagnostics.length).toBeGreaterThan(0);
    }
  });
});
