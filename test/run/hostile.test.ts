/**
 * Whatever the caller's objects throw (the tools map, `onEvent`, the options), and
 * whatever the tools throw or return, becomes a `StepError` in the report or a rejection of runPlan's
 * promise with a `RefError` (code `access` or `invalid-options`), never an unhandled rejection.
 */
import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { runPlan, type RunEvent, type RunOptions, type ToolFunction } from "../../src/run/run-plan.js";
import { RefError } from "../../src/shared/errors.js";
import { StepError } from "../../src/step/step-error.js";

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeAll(() => void process.on("unhandledRejection", onUnhandled));
afterAll(() => void process.off("unhandledRejection", onUnhandled));
beforeEach(() => void (unhandled.length = 0));

/** Let every pending job and the unhandled-rejection check run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A value that throws whatever is done to it. */
const hostileProxy = () =>
  new Proxy(
    {},
    {
      get: () => {
        throw new Error("trap");
      },
      getPrototypeOf: () => {
        throw new Error("trap");
      },
      getOwnPropertyDescriptor: () => {
        throw new Error("trap");
      },
    },
  );

/** An options object whose every property is a getter that works on the first read and throws after. */
function onceReadable(options: Record<string, unknown>): RunOptions {
  const out = {};
  for (const [key, value] of Object.entries(options)) {
    let reads = 0;
    Object.defineProperty(out, key, {
      enumerable: true,
      get() {
        if (reads++ > 0) throw new Error(`option ${key} read twice`);
        return value;
      },
    });
  }
  return out;
}

describe("caller objects that throw in the middle of a run", () => {
  const plan = [
    { id: 1, tool: "a", args: {} },
    { id: 2, tool: "a", args: { x: "$1" } },
    { id: 3, tool: "a", args: { y: "$2" } },
  ];
  const tools = { a: async () => "v" };

  test("options are read once: getters that throw on a second read change nothing", async () => {
    const events: string[] = [];
    const options = onceReadable({
      onEvent: (e: RunEvent) => events.push(e.type),
      failFast: false,
      validateOutputs: false,
      timeoutMs: 60_000,
      concurrency: 2,
    });
    const report = await runPlan(plan, tools, options);
    await settle();
    expect(report.status).toBe("ok");
    expect(events.filter((type) => type === "step-done")).toHaveLength(3);
    expect(unhandled).toEqual([]);
  });

  test("a tools object that throws after the run has started: tools are looked up once, before it", async () => {
    let lookups = 0;
    const hostile = new Proxy(tools, {
      getOwnPropertyDescriptor(target, key) {
        if (lookups++ > 0) throw new Error("tools object gone");
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
    });
    const report = await runPlan(plan, hostile);
    await settle();
    expect(report.status).toBe("ok");
    expect(unhandled).toEqual([]);
  });

  test("a tools object that throws at once rejects runPlan with a RefError code access", async () => {
    const error = await runPlan(plan, hostileProxy() as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RefError);
    expect((error as RefError).code).toBe("access");
  });

  test("options that throw when read reject runPlan with a RefError code access", async () => {
    const error = await runPlan(plan, tools, onceReadable({}) && (hostileProxy() as RunOptions)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RefError);
    expect((error as RefError).code).toBe("access");
  });

  test("a streamed step whose tool cannot be looked up fails with a StepError; the others run", async () => {
    async function* planner() {
      yield { id: 1, tool: "a", args: {} };
      yield { id: 2, tool: "b", args: {} };
      yield { id: 3, tool: "a", args: { x: "$2" } };
    }
    const hostile = new Proxy(tools, {
      getOwnPropertyDescriptor(target, key) {
        if (key === "b") throw new Error("no b");
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
    });
    const report = await runPlan(planner(), hostile);
    await settle();
    expect(report.results.get(1)).toBe("v");
    expect(report.errors.get(2)).toBeInstanceOf(StepError);
    expect(report.errors.get(2)?.code).toBe("unknown-tool");
    expect((report.errors.get(2)?.cause as RefError).code).toBe("access");
    expect(report.skipped).toEqual([3]);
    expect(unhandled).toEqual([]);
  });

  test("an onEvent that throws or returns a rejected promise is ignored", async () => {
    for (const onEvent of [
      () => {
        throw new Error("listener");
      },
      async () => {
        throw new Error("async listener");
      },
      () => Promise.reject(hostileProxy()),
    ]) {
      // eslint-disable-next-line @typescript-eslint/no-misused-promises -- listeners that return a rejected promise, on purpose
      const report = await runPlan(plan, tools, { onEvent });
      expect(report.status).toBe("ok");
    }
    await settle();
    expect(unhandled).toEqual([]);
  });

  test("a promise whose constructor getter throws, a thenable whose then throws: tool-error", async () => {
    const badPromise = () => {
      const promise = Promise.resolve(1);
      void Object.defineProperty(promise, "constructor", {
        get: () => {
          throw new Error("constructor");
        },
      }); // the same promise, returned
      return promise;
    };
    const badThen = () => ({
      get then() {
        throw new Error("then");
      },
    });
    const throwingThen = () => ({
      then() {
        throw new Error("then()");
      },
    });
    const report = await runPlan(
      [
        { id: 1, tool: "p", args: {} },
        { id: 2, tool: "t", args: {} },
        { id: 3, tool: "c", args: {} },
      ],
      { p: badPromise, t: badThen, c: throwingThen },
    );
    await settle();
    expect([...report.errors.values()].map((e) => e.code)).toEqual(["tool-error", "tool-error", "tool-error"]);
    expect(unhandled).toEqual([]);
  });

  test("a signal whose reason getter throws still aborts the run", async () => {
    const controller = new AbortController();
    Object.defineProperty(controller.signal, "reason", {
      get: () => {
        throw new Error("reason");
      },
    });
    const running = runPlan([{ id: 1, tool: "hang", args: {} }], { hang: () => new Promise(() => {}) }, { signal: controller.signal });
    await settle();
    controller.abort();
    const report = await running;
    expect(report.status).toBe("aborted");
    expect(report.errors.get(1)?.code).toBe("aborted");
  });
});

type Behaviour =
  "value" | "async-value" | "throw" | "reject" | "throw-proxy" | "reject-proxy" | "then-getter-throws" | "then-throws" | "hang";
const behaviours: Behaviour[] = [
  "value",
  "async-value",
  "throw",
  "reject",
  "throw-proxy",
  "reject-proxy",
  "then-getter-throws",
  "then-throws",
  "hang",
];

function toolFor(behaviour: Behaviour): ToolFunction {
  switch (behaviour) {
    case "value":
      return (_args, { stepId }) => stepId;
    case "async-value":
      return async (_args, { stepId }) => stepId;
    case "throw":
      return () => {
        throw new Error("boom");
      };
    case "reject":
      return () => Promise.reject(new Error("boom"));
    case "throw-proxy":
      return () => {
        throw hostileProxy();
      };
    case "reject-proxy":
      return () => Promise.reject(hostileProxy());
    case "then-getter-throws":
      return () => ({
        get then() {
          throw hostileProxy();
        },
      });
    case "then-throws":
      return () => ({
        then() {
          throw new Error("then");
        },
      });
    case "hang":
      return () => new Promise(() => {});
  }
}

describe("property: random tools and listeners that throw at random points", () => {
  test("runPlan always settles with a consistent report, and nothing is left unhandled", async () => {
    const stepArb = fc.record({ behaviour: fc.constantFrom(...behaviours), deps: fc.uniqueArray(fc.nat(7), { maxLength: 2 }) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 1, maxLength: 8 }),
        fc.record({
          concurrency: fc.integer({ min: 1, max: 4 }),
          failFast: fc.boolean(),
          onEventThrowsAt: fc.option(fc.nat(20)),
          onEventRejects: fc.boolean(),
          abortAt: fc.option(fc.nat(20)),
          streamed: fc.boolean(),
        }),
        async (specs, setup) => {
          const steps = specs.map((spec, id) => ({
            id,
            tool: `t${id}`,
            args: Object.fromEntries(spec.deps.filter((d) => d < id).map((d) => [`a${d}`, `$${d}`])),
          }));
          const tools = Object.fromEntries(specs.map((spec, id) => [`t${id}`, toolFor(spec.behaviour)]));
          const controller = new AbortController();
          let seen = 0;
          const onEvent = (event: RunEvent): unknown => {
            const index = seen++;
            if (index === setup.abortAt) controller.abort();
            if (index === setup.onEventThrowsAt) throw hostileProxy();
            void event;
            return setup.onEventRejects ? Promise.reject(new Error("listener")) : undefined;
          };
          // A run with hanging tools ends only by a stop: make sure one comes.
          const hangs = specs.some((spec) => spec.behaviour === "hang");
          const options: RunOptions = {
            concurrency: setup.concurrency,
            failFast: setup.failFast,
            onEvent,
            signal: controller.signal,
            ...(hangs ? { timeoutMs: 5 } : {}),
          };
          async function* stream() {
            for (const step of steps) yield step;
          }
          const report = await runPlan(setup.streamed ? stream() : { steps }, tools, options);
          await settle();
          expect(unhandled).toEqual([]);
          const ids = steps.map((step) => step.id);
          for (const id of ids) {
            const places = [report.results.has(id) && !report.errors.has(id), report.errors.has(id), report.skipped.includes(id)].filter(
              Boolean,
            ).length;
            expect(places, `step ${id} in ${places} places`).toBeLessThanOrEqual(1);
            // A whole plan accounts for every step; a stream that was stopped was not read to its end.
            if (!setup.streamed) expect(places, `step ${id} nowhere`).toBe(1);
          }
          for (const error of report.errors.values()) expect(error).toBeInstanceOf(StepError);
          if (report.status === "ok") expect(report.errors.size).toBe(0);
        },
      ),
      { numRuns: 150 },
    );
  });
});
