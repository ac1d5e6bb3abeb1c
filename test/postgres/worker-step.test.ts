/**
 * One try of a claimed step on a worker, through the attempt both executors share: the same failure
 * details as runPlan's (the unknown-tool message escaped, with its did-you-mean), and a result checked
 * storable as JSON. No database: the claim's row is given as it would be read.
 */
import { describe, expect, test } from "vitest";
import { KnownRuns } from "../../src/postgres/known-runs.js";
import { rebuildStepError, storedError } from "../../src/postgres/stored-error.js";
import { runClaimedStep, type ClaimedStep, type WorkerToolContext, type WorkerToolFunction } from "../../src/postgres/worker-step.js";
import { STEP_FAILURES } from "../../src/step/attempt.js";
import { runPlan } from "../../src/run/run-plan.js";

const language = { syntax: "path", templates: true, deep: false };
const runs = new KnownRuns();
const known = runs.add("run-1", {
  options: { failFast: false, timeoutMs: null, validateOutputs: true, language },
  catalog: { checked: { output: { type: "number" } } },
  diagnostics: [],
  graph: [
    [1, []],
    [2, [1]],
  ],
});

function claimed(tool: string, args: Record<string, unknown> = {}): ClaimedStep {
  return { runId: "run-1", stepId: 2, tool, args, attempt: 3, results: new Map([[1, { city: "Lisbon" }]]), known };
}

function run(
  tool: string,
  fn: WorkerToolFunction | undefined,
  {
    timeoutMs,
    controller = new AbortController(),
    args = {},
  }: { timeoutMs?: number; controller?: AbortController; args?: Record<string, unknown> } = {},
) {
  return runClaimedStep(claimed(tool, args), { fn, toolNames: ["geocode", "checked"], timeoutMs, controller, validateInputs: false });
}

describe("a worker's try of a step", () => {
  test("an unknown tool: the name escaped, and a did-you-mean", async () => {
    const outcome = await run("geocdoe\u001b[2J", undefined);
    expect(outcome).toMatchObject({ ok: false, error: { code: "unknown-tool" } });
    const near = await run("geocdoe", undefined);
    expect(near).toMatchObject({
      ok: false,
      error: { code: "unknown-tool", detail: 'no function for tool "geocdoe" on this worker; did you mean "geocode"?' },
    });
    expect(JSON.stringify(outcome)).not.toContain("\u001b");
  });

  test("the tool gets its resolved arguments, its try and an idempotency key", async () => {
    let seen: WorkerToolContext | undefined;
    const outcome = await run(
      "geocode",
      (args, context) => {
        seen = context;
        return args;
      },
      { args: { city: "$1.city" } },
    );
    expect(outcome).toEqual({ ok: true, result: '{"city":"Lisbon"}' });
    expect(seen).toMatchObject({ runId: "run-1", stepId: 2, attempt: 3, idempotencyKey: "run-1:2" });
  });

  const throws: WorkerToolFunction = () => {
    throw new Error("down");
  };
  const rejects: WorkerToolFunction = () => Promise.reject(new Error("down"));
  test.each([
    ["a throw", throws, STEP_FAILURES.threw(new Error("down"))],
    ["a rejection", rejects, STEP_FAILURES.rejected(new Error("down"))],
    ["an unresolvable argument", () => 1, undefined],
  ] as const)("%s: the shared table's detail", async (name, fn, failure) => {
    const outcome = await run("geocode", fn, name === "an unresolvable argument" ? { args: { q: "$1.nowhere" } } : {});
    if (failure !== undefined) expect(outcome).toMatchObject({ ok: false, error: { code: failure.code, detail: failure.detail } });
    else expect(outcome).toMatchObject({ ok: false, error: { code: "unresolved-args", ref: "$1.nowhere", arg: "/q" } });
  });

  test("a result JSON would change is unserializable; one failing its output schema is kept", async () => {
    expect(await run("geocode", () => new Map())).toMatchObject({
      ok: false,
      error: { code: "unserializable", detail: "its result cannot be stored as JSON: it contains a Map (JSON writes {})" },
    });
    expect(await run("checked", () => "seven")).toMatchObject({ ok: false, error: { code: "invalid-output" }, result: '"seven"' });
  });

  test("a timeout aborts the tool's signal; an abort ends the try at once", async () => {
    let signal: AbortSignal | undefined;
    const timedOut = await run(
      "geocode",
      (_args, context) => {
        signal = context.signal;
        return new Promise(() => undefined);
      },
      { timeoutMs: 1 },
    );
    expect(timedOut).toMatchObject({ ok: false, error: { code: "timeout", detail: "timed out after 1 ms" } });
    expect(signal?.aborted).toBe(true);
    const controller = new AbortController();
    const pending = run("geocode", () => new Promise(() => undefined), { controller });
    controller.abort(new Error("the run was stopped"));
    expect(await pending).toMatchObject({ ok: false, error: { code: "aborted", detail: "aborted with the run" } });
    const already = new AbortController();
    already.abort();
    let calls = 0;
    expect(await run("geocode", () => calls++, { controller: already })).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(calls).toBe(0);
  });
});

describe("the stored step error", () => {
  test("rebuilt as runPlan's error: code, message, place", async () => {
    const local = await runPlan(
      [
        { id: 1, tool: "t", args: {} },
        { id: 2, tool: "t", args: { q: "$1.nowhere" } },
      ],
      { t: () => ({}) },
    );
    const error = local.errors.get(2)!;
    const rebuilt = rebuildStepError(
      2,
      "t",
      JSON.parse(
        JSON.stringify(storedError({ code: "unresolved-args", detail: error.message.replace("step 2 (t): ", ""), cause: error.cause })),
      ),
    );
    expect({ code: rebuilt.code, message: rebuilt.message, ref: rebuilt.ref, arg: rebuilt.arg }).toEqual({
      code: error.code,
      message: error.message,
      ref: error.ref,
      arg: error.arg,
    });
  });

  test("a stored row this version did not write is read safely", () => {
    expect(rebuildStepError(1, "t", { code: "no-such-code", detail: 5 })).toMatchObject({ code: "tool-error", message: "step 1 (t): 5" });
    expect(rebuildStepError(1, "t", null)).toMatchObject({ code: "tool-error" });
  });
});
