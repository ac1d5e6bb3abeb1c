/**
 * The plan hash: SHA-256 of the canonical JSON (keys sorted, no whitespace) of the plan's steps and
 * own options, the same whatever order the keys were written in, for a whole or a streamed plan.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { RefError, runPlan, type ToolFunctions } from "../../src/index.js";
import { canonicalJson, deferPlanHash, planText, PlanText, sha256Hex, stepText } from "../../src/step/plan-hash.js";

const tools: ToolFunctions = { echo: (args) => args };

/** Any text: code points, graphemes, lone surrogates. */
const text = fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }));

/** A plan's own options (or none) and up to 5 steps, their arguments and the options made of `value`. */
const planOf = (value: fc.Arbitrary<unknown>) =>
  fc.tuple(
    fc.option(fc.dictionary(text, value), { nil: undefined }),
    fc.array(fc.record({ id: fc.nat(), tool: text, args: fc.dictionary(text, value) }), { maxLength: 5 }),
  );

/** The same JSON value with every object's keys in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, item]) => [key, reversed(item)]),
    );
  return value;
}

describe("canonicalJson", () => {
  test.each([
    [{ b: [1, { d: 2, c: "x" }], a: null }, '{"a":null,"b":[1,{"c":"x","d":2}]}'],
    [{ a: undefined, b: () => 1, c: Symbol("s") }, "{}"],
    [[undefined, () => 1, Number.NaN, Infinity], "[null,null,null,null]"],
    [{ n: 12n }, '{"n":"12"}'],
    [{ when: new Date(0), map: new Map([[1, 2]]) }, '{"map":{},"when":{}}'],
    [{ "": 1, é: 2, Z: 3, a: 4 }, '{"":1,"Z":3,"a":4,"é":2}'],
    [Object.create(null, { k: { value: "v", enumerable: true } }), '{"k":"v"}'],
    [{ lone: "\ud800" }, '{"lone":"\\ud800"}'],
  ])("%o is %s", (value, text) => {
    expect(canonicalJson(value)).toBe(text);
  });

  test("a getter is never run, a container inside itself is marked, depth costs no stack", () => {
    let ran = 0;
    const getter = Object.defineProperty({}, "x", { get: () => ++ran, enumerable: true });
    expect(canonicalJson(getter)).toBe('{"x":"[getter]"}');
    expect(ran).toBe(0);
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(canonicalJson(cycle)).toBe('{"a":1,"self":"[cycle]"}');
    const shared = { s: 1 };
    expect(canonicalJson([shared, shared])).toBe('[{"s":1},{"s":1}]'); // shared is not a cycle
    let deep: unknown = 0;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(canonicalJson(deep)).toHaveLength(200_001);
  });

  test("property: a JSON value's canonical text reads back as the value, whatever its keys' order", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value))); // as JSON writes it: -0 as 0
        expect(canonicalJson(reversed(value))).toBe(text);
        expect(text).not.toMatch(/^\s|\s$/);
      }),
    );
  });

  // The direct writer writes small non-negative integers digit by digit, without String: rows at its edges.
  test.each([0, -0, 7, 9, 10, 99, 100, 123_456, 2 ** 30 - 1, 2 ** 30, 2 ** 31, -1, -10, 0.5, 1e21, Number.MAX_SAFE_INTEGER, Number.NaN])(
    "the number %d is written directly as through descriptors",
    (n) => {
      const args = { n, list: [n, { n }] };
      const id = Number.isSafeInteger(n) && n >= 0 ? n : 3;
      expect(stepText({ id, tool: "t", args }, true)).toBe(stepText({ id, tool: "t", args }, false));
      expect(stepText({ id, tool: "t", args }, true)).toBe(canonicalJson({ args, id, tool: "t" }));
    },
  );

  test("property: a step's text read directly (own data only) is the text read through descriptors, at any depth and with cycles", () => {
    const deep = fc.nat({ max: 80 }).map((depth) => {
      let value: unknown = "$1";
      for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { [`k${i}`]: value, a: i } : [value, null];
      return value;
    });
    const cyclic = fc.constant(null).map(() => {
      const node: Record<string, unknown> = { b: 1, a: [] };
      (node.a as unknown[]).push(node, { z: undefined, y: () => 1, x: 2n });
      return node;
    });
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), deep, cyclic, fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.double(), fc.constant(undefined)))),
        fc.nat(),
        fc.string(),
        (args, id, tool) => {
          expect(stepText({ id, tool, args }, true)).toBe(stepText({ id, tool, args }, false));
        },
      ),
    );
  });

  test("property: PlanText, written as bytes while the steps are read, hashes planText of the descriptor-read texts (any text, keys in any order)", async () => {
    const value = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        text,
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
        fc.array(tie("value")),
        fc.dictionary(text, tie("value")),
      ),
    })).value;
    await fc.assert(
      fc.asyncProperty(planOf(value), async ([options, steps]) => {
        const written = new PlanText(options, steps.length);
        for (const each of steps) written.add(each, true);
        expect(await written.hash()).toBe(
          await sha256Hex(
            planText(
              options,
              steps.map((each) => stepText(each, false)),
            ),
          ),
        );
      }),
    );
  });

  test("sha256Hex is SHA-256 of the UTF-8 text", async () => {
    expect(await sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(await sha256Hex("é😀")).toBe(createHash("sha256").update("é😀", "utf8").digest("hex"));
  });
});

describe("deferPlanHash: a whole plan's hash made when first asked for", () => {
  /** What a flat snapshot holds: no container, but values that are no container (written `{}`). */
  const flatValue = fc.oneof(
    text,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.bigInt(),
    fc.constant(new Date(0)),
    fc.constant(new Map([[1, 2]])),
  );

  test("property: the hash of flat steps is what PlanText gives for them, at once; asked again, the same", async () => {
    await fc.assert(
      fc.asyncProperty(planOf(flatValue), async ([options, steps]) => {
        const eager = new PlanText(options, steps.length);
        for (const each of steps) eager.add(each, true);
        const deferred = deferPlanHash(options, steps)!;
        expect(deferred()).toBe(await eager.hash());
        expect(deferred()).toBe(await eager.hash());
      }),
    );
  });

  test("a runtime without a synchronous SHA-256 defers nothing (the plan is hashed at once, by PlanText)", () => {
    expect(deferPlanHash(undefined, [{ id: 1, tool: "t", args: {} }], null)).toBeUndefined();
    expect(deferPlanHash(undefined, [{ id: 1, tool: "t", args: {} }])).toBeTypeOf("function");
  });

  test("the options are read when it is made, the steps when it is first called (and let go of then)", () => {
    const options = { templates: true };
    const steps = [{ id: 1, tool: "t", args: { q: "a" } }];
    const deferred = deferPlanHash(options, steps)!;
    options.templates = false;
    const expected = createHash("sha256")
      .update('{"options":{"templates":true},"steps":[{"args":{"q":"b"},"id":1,"tool":"t"}]}')
      .digest("hex");
    steps[0]!.args.q = "b"; // a flat snapshot is never changed by a run: this only shows when it is read
    expect(deferred()).toBe(expected);
    steps[0]!.args.q = "c";
    expect(deferred()).toBe(expected);
  });

  test("a hostile value's trap that throws when the hash is made is a RefError, and the hash can be asked for again", () => {
    let hostile = true;
    const value = new Proxy(new Date(0), {
      getPrototypeOf(target) {
        if (hostile) throw new Error("trap");
        return Reflect.getPrototypeOf(target);
      },
    });
    const deferred = deferPlanHash(undefined, [{ id: 1, tool: "t", args: { v: value, w: "x" } }])!;
    expect(() => deferred()).toThrow(
      expect.objectContaining({ name: "RefError", message: expect.stringMatching(/the plan's arguments, for its hash/) }),
    );
    expect(() => deferred()).toThrow(RefError);
    hostile = false;
    expect(deferred()).toBe(
      createHash("sha256").update('{"options":{},"steps":[{"args":{"v":{},"w":"x"},"id":1,"tool":"t"}]}').digest("hex"),
    );
  });
});

describe("report.planHash", () => {
  const plan = {
    options: { templates: true },
    steps: [
      { id: 1, tool: "echo", args: { city: "Oslo", n: [1, 2] } },
      { id: 2, tool: "echo", args: { at: "$1.city" } },
    ],
  };

  test("is SHA-256 of the canonical text of the steps (id, tool, arguments) and the plan's own options", async () => {
    const text =
      '{"options":{"templates":true},"steps":[{"args":{"city":"Oslo","n":[1,2]},"id":1,"tool":"echo"},{"args":{"at":"$1.city"},"id":2,"tool":"echo"}]}';
    const report = await runPlan(plan, tools);
    expect(report.planHash).toBe(createHash("sha256").update(text).digest("hex"));
  });

  test("is the same for the same plan written otherwise (keys in another order, an array of steps), and for an invalid run of it", async () => {
    const first = await runPlan(plan, tools);
    expect((await runPlan(reversed(plan), tools)).planHash).toBe(first.planHash);
    const bare = await runPlan(plan.steps, tools);
    expect(bare.planHash).toBe((await runPlan({ steps: plan.steps }, tools)).planHash);
    const invalid = await runPlan(plan, {});
    expect(invalid.status).toBe("invalid");
    expect(invalid.planHash).toBe(first.planHash);
  });

  test("changes with a step's argument, tool or id, or the plan's options; not with the caller's options or the tools", async () => {
    const hash = async (value: unknown): Promise<string | undefined> =>
      (await runPlan(value, { echo: tools.echo!, other: tools.echo! })).planHash;
    const base = await hash(plan);
    const changes = [
      { ...plan, options: {} },
      { ...plan, steps: [{ ...plan.steps[0]!, args: { city: "Oslo", n: [2, 1] } }, plan.steps[1]] },
      { ...plan, steps: [{ ...plan.steps[0]!, tool: "other" }, plan.steps[1]] },
      { ...plan, steps: [plan.steps[0], { ...plan.steps[1]!, id: 3 }] },
    ];
    const hashes = await Promise.all(changes.map(hash));
    expect(new Set([base, ...hashes]).size).toBe(1 + changes.length);
    expect((await runPlan(plan, tools, { concurrency: 1, strict: false, timeoutMs: 5 })).planHash).toBe(base);
  });

  test("is taken from the snapshots before any step runs: a tool that changes the plan does not change it", async () => {
    const mutable = {
      steps: [
        { id: 1, tool: "change", args: { v: "a" } },
        { id: 2, tool: "echo", args: { v: "b" } },
      ],
    };
    const before = (await runPlan(structuredClone(mutable), tools)).planHash;
    const report = await runPlan(mutable, {
      ...tools,
      change: () => {
        mutable.steps[1]!.args.v = "changed";
        return 1;
      },
    });
    expect(report.planHash).toBe(before);
  });

  /** What report.planHash must be for a plan: computed here, from a copy of the plan as it was given. */
  const hashOf = (given: { options?: object; steps: { id: number; tool: string; args: object }[] }): string =>
    createHash("sha256")
      .update(
        planText(
          given.options,
          given.steps.map((step) => stepText(step)),
        ),
      )
      .digest("hex");

  /** A tool that changes the arguments it was given (sets one, deletes one), and answers. */
  const meddle = (args: Record<string, unknown>): string => {
    args.added = "by the tool";
    delete args.units;
    return "done";
  };

  test.each([
    { name: "resolved into a copy (placeholders)", options: {} },
    { name: "no placeholder at all", options: {}, plain: true },
    { name: "a retry policy (a copy per try)", options: { retry: { attempts: 2, jitter: "none", initialDelayMs: 0 } } },
    { name: "an invalid run (more placeholders than maxPlaceholders: nothing runs)", options: { maxPlaceholders: 0 }, status: "invalid" },
    { name: "through resolveRefs (deep)", options: { deep: true } },
  ] as const)(
    "$name: flat arguments a tool changes leave the hash, made when first read after the run, as the plan was given",
    async ({ options, ...row }) => {
      const plain = "plain" in row;
      const plan = {
        options: { templates: false },
        steps: [
          { id: 1, tool: "meddle", args: { city: "Oslo", units: "metric", days: 3 } },
          { id: 2, tool: "meddle", args: plain ? { city: "Bergen", units: "metric" } : { city: "$1", units: "metric", flag: true } },
        ],
      };
      const expected = hashOf(structuredClone(plan));
      const report = await runPlan(plan, { meddle }, options);
      expect(report.status).toBe("status" in row ? row.status : "ok");
      expect(report.planHash).toBe(expected);
      expect(report.planHash).toBe(expected);
    },
  );

  test("a step waiting for approval: its pending arguments changed by the caller leave the hash as the plan was given", async () => {
    const plan = {
      steps: [
        { id: 1, tool: "meddle", args: { city: "Oslo", units: "metric" } },
        { id: 2, tool: "pay", args: { to: "$1", units: "metric" } },
      ],
    };
    const expected = hashOf(structuredClone(plan));
    const report = await runPlan(plan, { meddle, pay: () => "paid" }, { needsApproval: ({ tool }) => tool === "pay" });
    expect(report.status).toBe("suspended");
    const pending = report.pending!.get(2)!.args;
    expect(pending).toEqual({ to: "done", units: "metric" });
    meddle(pending);
    expect(report.planHash).toBe(expected);
  });

  test("a report's planHash, step timings and tries are data to structuredClone, JSON and a spread, as every other field", async () => {
    const report = await runPlan(
      {
        steps: [
          { id: 1, tool: "echo", args: { q: "x" } },
          { id: 2, tool: "echo", args: { q: "$1.q" } },
        ],
      },
      tools,
    );
    const clone = structuredClone(report);
    expect(clone.planHash).toMatch(/^[0-9a-f]{64}$/);
    expect(clone.planHash).toBe(report.planHash);
    expect([...clone.attempts!]).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect([...clone.timings.steps.keys()]).toEqual([1, 2]);
    expect(clone.timings.steps.get(2)).toEqual(report.timings.steps.get(2));
    expect({ ...report }.attempts).toBe(report.attempts);
    expect(JSON.parse(JSON.stringify(report)).planHash).toBe(report.planHash);
  });

  test("a streamed plan's covers the steps that arrived: the same as the whole plan without options", async () => {
    const steps = [
      { id: 1, tool: "echo", args: { q: "x" } },
      { id: 2, tool: "echo", args: { q: "$1.q" } },
    ];
    async function* stream(): AsyncIterable<unknown> {
      yield* steps;
    }
    const streamed = await runPlan(stream(), tools);
    expect(streamed.status).toBe("ok");
    expect(streamed.planHash).toBe((await runPlan({ steps }, tools)).planHash);
  });
});

describe("the two writers agree, also where the generated values seldom go", () => {
  class Point {
    x = 1;
  }
  const text = (args: unknown): string => {
    const slow = stepText({ id: 1, tool: "t", args }, false);
    expect(stepText({ id: 1, tool: "t", args }, true)).toBe(slow);
    return slow;
  };
  const many = (n: number): Record<string, number> =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${String(n - i).padStart(2, "0")}`, i]));
  const nested = (depth: number): unknown => {
    let deep: unknown = "$1";
    for (let i = 0; i < depth; i++) deep = [deep];
    return deep;
  };
  test.each([
    ["no JSON value in an object: dropped", { u: undefined, f: () => 1, s: Symbol("s"), k: 1 }, '{"k":1}'],
    ["no JSON value in an array: null", { list: [undefined, () => 1, Symbol("s"), 2] }, '{"list":[null,null,null,2]}'],
    [
      "a Date, a Map, a class instance with own data: {}",
      { d: new Date(0), m: new Map([[1, 2]]), p: new Point() },
      '{"d":{},"m":{},"p":{}}',
    ],
    ["a string of a quote only", { q: '"' }, '{"q":"\\""}'],
    ["a string of quotes only", { q: '""' }, '{"q":"\\"\\""}'],
    ["a string of a control character only", { q: "\n" }, '{"q":"\\n"}'],
    ["a string of a backslash only", { q: "\\" }, '{"q":"\\\\"}'],
    ["printable ASCII at both ends", { q: " ~" }, '{"q":" ~"}'],
    ["a key named undefined", { undefined: 1, a: 2 }, '{"a":2,"undefined":1}'],
    ["17 keys in reverse order", many(17), JSON.stringify(Object.fromEntries(Object.entries(many(17)).reverse()))],
    ["16 keys in reverse order", many(16), JSON.stringify(Object.fromEntries(Object.entries(many(16)).reverse()))],
    ["a hole in an array", { list: [1, , 3] }, '{"list":[1,null,3]}'],
  ])("%s", (_name, args, expected) => {
    expect(text(args)).toBe(`{"args":${expected},"id":1,"tool":"t"}`);
  });

  test("arguments nested deeper than the call stack goes: the direct writer hands them to canonicalJson's explicit stack", () => {
    const args = { deep: nested(100_000) };
    expect(text(args)).toHaveLength('{"args":{"deep":"$1"},"id":1,"tool":"t"}'.length + 200_000);
  });

  test("canonicalJson of what JSON has no value for at the top is null", () => {
    expect([canonicalJson(undefined), canonicalJson(() => 1), canonicalJson(Symbol("s"))]).toEqual(["null", "null", "null"]);
    expect(canonicalJson([1, , 3])).toBe("[1,null,3]");
  });

  test("canonicalJson writes a class instance as {}, never its own data", () => {
    expect(canonicalJson({ p: new Point(), list: [new Point()] })).toBe('{"list":[{}],"p":{}}');
  });

  test("by default (not said to be data only) a step's getter is never run: stepText and PlanText.add write [getter]", async () => {
    let ran = 0;
    const args = Object.defineProperty({ q: "x" }, "g", { get: () => ++ran, enumerable: true });
    const step = { id: 1, tool: "t", args };
    const expected = '{"args":{"g":"[getter]","q":"x"},"id":1,"tool":"t"}';
    expect(stepText(step)).toBe(expected);
    const plan = new PlanText(undefined, 1);
    plan.add(step);
    expect(await plan.hash()).toBe(await sha256Hex(`{"options":{},"steps":[${expected}]}`));
    expect(ran).toBe(0);
  });

  test("a plan without options is hashed with options {}: planText and PlanText", async () => {
    expect(planText(undefined, [])).toBe('{"options":{},"steps":[]}');
    expect(planText({ b: 1, a: 2 }, ["1", "2"])).toBe('{"options":{"a":2,"b":1},"steps":[1,2]}');
    expect(await new PlanText(undefined).hash()).toBe(await sha256Hex('{"options":{},"steps":[]}'));
    const two = new PlanText({ strict: true }, 2);
    two.add({ id: 0, tool: "a", args: {} }, true);
    two.add({ id: 1, tool: "b", args: { q: "$0" } }, true);
    expect(await two.hash()).toBe(
      await sha256Hex('{"options":{"strict":true},"steps":[{"args":{},"id":0,"tool":"a"},{"args":{"q":"$0"},"id":1,"tool":"b"}]}'),
    );
  });

  test("a hash is of the steps added before it: steps added after it (a streamed plan's) change neither it nor the next", async () => {
    const first = { id: 0, tool: "a", args: { q: "x".repeat(300) } };
    const second = { id: 1, tool: "b", args: { q: "$0" } };
    const text = new PlanText(undefined, 0); // too small: the buffer grows while the digest of the first hash runs
    text.add(first, true);
    const one = text.hash();
    text.add(second, true);
    const two = text.hash();
    expect(await one).toBe(await sha256Hex(planText(undefined, [stepText(first, true)])));
    expect(await two).toBe(await sha256Hex(planText(undefined, [stepText(first, true), stepText(second, true)])));
    expect(await text.hash()).toBe(await two);
  });

  test("what a Proxy's trap throws in the direct writer is thrown, not written the other way", () => {
    const hostile = new Proxy(
      { a: 1 },
      {
        get: () => {
          throw new Error("no values for you");
        },
      },
    );
    expect(() => stepText({ id: 1, tool: "t", args: { hostile } }, true)).toThrow("no values for you");
    expect(stepText({ id: 1, tool: "t", args: { hostile } }, false)).toBe('{"args":{"hostile":{"a":1}},"id":1,"tool":"t"}');
  });
});
