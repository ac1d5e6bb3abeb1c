/**
 * Each step (tool and arguments) is snapshotted when it is read, so the run does
 * exactly what was linted, however the caller's plan changes while it runs. An
 * `unresolved-args` StepError carries the `ref`, `arg` and `span` of its KeyError cause.
 */
import { describe, expect, test } from "vitest";
import { runPlan } from "../../src/run/run-plan.js";
import { KeyError, RefError } from "../../src/shared/errors.js";
import { StepError } from "../../src/step/step-error.js";

describe("a plan changed while it runs", () => {
  test("a later step runs with the arguments it had when the plan was read (and linted)", async () => {
    const plan = {
      steps: [
        { id: 1, tool: "mutate", args: {} },
        { id: 2, tool: "echo", args: { city: "$1.city", units: "metric", nested: { keep: "me" } } },
      ],
    };
    const report = await runPlan(plan, {
      mutate: () => {
        // The caller's plan changes under the run: a reference to a step that does not exist, a new key.
        const args = plan.steps[1]!.args as Record<string, unknown>;
        args.city = "$9.city";
        args.extra = "added";
        (args.nested as Record<string, unknown>).keep = "changed";
        plan.steps[1]!.tool = "other";
        return { city: "Paris" };
      },
      echo: (args) => args,
      other: () => "the wrong tool",
    });
    expect(report.status).toBe("ok");
    expect(report.results.get(2)).toEqual({ city: "Paris", units: "metric", nested: { keep: "me" } });
  });

  test("a step added to the plan's steps array while it runs is not run", async () => {
    const plan = { steps: [{ id: 1, tool: "grow", args: {} }] as { id: number; tool: string; args: object }[] };
    let calls = 0;
    const report = await runPlan(plan, {
      grow: () => {
        calls++;
        plan.steps.push({ id: 2, tool: "grow", args: {} });
        return 1;
      },
    });
    expect(report.results.size).toBe(1);
    expect(calls).toBe(1);
  });

  test("a tool that changes its (nested) arguments changes neither the plan nor another step's arguments", async () => {
    const shared = { list: [1, 2] };
    const plan = {
      options: { deep: true },
      steps: [
        { id: 1, tool: "scribble", args: { shared } },
        { id: 2, tool: "scribble", args: { shared, at: "$1" } },
      ],
    };
    const seen: unknown[] = [];
    const report = await runPlan(plan, {
      scribble: (args) => {
        seen.push(structuredClone(args.shared));
        (args.shared as { list: number[] }).list.push(99);
        return "done";
      },
    });
    expect(report.status).toBe("ok");
    expect(seen).toEqual([{ list: [1, 2] }, { list: [1, 2] }]);
    expect(shared).toEqual({ list: [1, 2] });
  });

  test("a streamed step changed after the planner yielded it runs as it arrived", async () => {
    const first = { id: 1, tool: "echo", args: { q: "before", deep: { x: 1 } } };
    async function* planner() {
      yield first;
      first.args.q = "after";
      first.args.deep.x = 2;
      yield { id: 2, tool: "echo", args: {} };
    }
    const seen: unknown[] = [];
    const report = await runPlan(planner(), {
      echo: async (args) => {
        await new Promise((resolve) => setImmediate(resolve));
        seen.push(structuredClone(args));
        return 1;
      },
    });
    expect(report.status).toBe("ok");
    expect(seen[0]).toEqual({ q: "before", deep: { x: 1 } });
  });

  test("what the snapshot keeps: holes, own __proto__ keys, null prototypes, shared sub-objects, class instances by reference", async () => {
    const date = new Date(0);
    const shared = { s: 1 };
    const args = JSON.parse('{"__proto__": "$1", "list": [1, 2], "a": {}, "b": {}}') as Record<string, unknown>;
    args.list = [1, , 3];
    args.a = shared;
    args.b = shared;
    args.bare = Object.assign(Object.create(null) as object, { k: "v" });
    args.date = date;
    let received: Record<string, unknown> | undefined;
    const report = await runPlan(
      [
        { id: 1, tool: "one", args: {} },
        { id: 2, tool: "look", args },
      ],
      {
        one: () => "ONE",
        look: (resolved) => {
          received = resolved;
          return 1;
        },
      },
    );
    expect(report.status).toBe("ok");
    expect(Object.keys(received!)).toEqual(["__proto__", "list", "a", "b", "bare", "date"]);
    expect(Object.getOwnPropertyDescriptor(received, "__proto__")?.value).toBe("ONE");
    expect(Object.getPrototypeOf(received)).toBe(Object.prototype);
    const list = received!.list as unknown[];
    expect(list).not.toBe(args.list);
    expect(list.length).toBe(3);
    expect(1 in list).toBe(false);
    expect(received!.a).toBe(received!.b);
    expect(received!.a).not.toBe(shared);
    expect(Object.getPrototypeOf(received!.bare)).toBe(null);
    expect(received!.date).toBe(date);
  });

  test("a getter in the arguments is copied, never invoked, and refused by the resolver as before", async () => {
    let invoked = 0;
    const args = { ok: 1 };
    Object.defineProperty(args, "secret", { enumerable: true, get: () => (invoked++, "x") });
    const report = await runPlan([{ id: 1, tool: "t", args }], { t: () => 1 });
    expect(invoked).toBe(0);
    expect(report.errors.get(1)?.code).toBe("unresolved-args");
    expect((report.errors.get(1)?.cause as RefError).code).toBe("access");
  });

  test("arguments that cannot be read (a Proxy trap throws) fail their step; the others run", async () => {
    const args = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("trap");
        },
      },
    );
    const report = await runPlan(
      [
        { id: 1, tool: "t", args },
        { id: 2, tool: "t", args: { x: 1 } },
        { id: 3, tool: "t", args: { y: "$1" } },
      ],
      { t: () => 1 },
    );
    expect(report.errors.get(1)?.code).toBe("unresolved-args");
    expect((report.errors.get(1)?.cause as RefError).code).toBe("access");
    expect(report.results.get(2)).toBe(1);
  });

  test("cyclic arguments with deep: the step fails with the resolver's cycle error", async () => {
    const args: Record<string, unknown> = { a: {} };
    (args.a as Record<string, unknown>).back = args;
    const report = await runPlan({ options: { deep: true }, steps: [{ id: 1, tool: "t", args }] }, { t: () => 1 });
    expect(report.errors.get(1)?.code).toBe("unresolved-args");
    expect((report.errors.get(1)?.cause as RefError).code).toBe("cycle");
  });

  test("references nested in arguments are dependencies with deep, and not without", async () => {
    const order: number[] = [];
    const tools = {
      slow: async (_args: unknown, { stepId }: { stepId: number }) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        order.push(stepId);
        return "slow";
      },
      fast: (_args: unknown, { stepId }: { stepId: number }) => {
        order.push(stepId);
        return "fast";
      },
    };
    const steps = [
      { id: 1, tool: "slow", args: {} },
      { id: 2, tool: "fast", args: { nested: { at: ["$1"] } } },
    ];
    const deep = await runPlan({ options: { deep: true }, steps }, tools);
    expect(order).toEqual([1, 2]);
    expect(deep.results.get(2)).toBe("fast");
    order.length = 0;
    await runPlan({ steps }, tools);
    expect(order).toEqual([2, 1]);
  });
});

describe("StepError for unresolved-args", () => {
  test("carries ref, arg and span from its KeyError cause", async () => {
    const report = await runPlan(
      [
        { id: 1, tool: "a", args: {} },
        { id: 2, tool: "a", args: { q: "$1.city" } },
      ],
      { a: () => ({ town: "Paris" }) },
    );
    const error = report.errors.get(2)!;
    expect(error).toBeInstanceOf(StepError);
    expect(error.cause).toBeInstanceOf(KeyError);
    const cause = error.cause as KeyError;
    expect(error.ref).toBe("$1.city");
    expect(error.arg).toBe("/q");
    expect(error.span).toEqual(cause.span);
    expect(error.span).toBeDefined();
    // The message names the argument once.
    expect(error.message.match(/in argument \/q/g)).toHaveLength(1);
  });

  test("other step errors keep no place (a tool's own RefError is not about the step's arguments)", async () => {
    const report = await runPlan([{ id: 1, tool: "a", args: {} }], {
      a: () => {
        throw new RefError("missing-key", "inside the tool", { ref: "$9.x", arg: "/x" });
      },
    });
    const error = report.errors.get(1)!;
    expect(error.code).toBe("tool-error");
    expect([error.ref, error.arg, error.span]).toEqual([undefined, undefined, undefined]);
  });
});
