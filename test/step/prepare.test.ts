/**
 * Preparing steps to run (src/step/prepare.ts): a step's snapshot, resolved in place with
 * `resolveSnapshot` when `prepareStep` says it may be, gives exactly what `resolveRefs` gives on the
 * caller's arguments (the same values, or the same error: class, code, argument pointer, message); and
 * the dependencies found from the linter's scan are the steps of every placeholder `resolveRefs` reads.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { referencesIn } from "../../src/grammar/ast.js";
import { classifyString } from "../../src/grammar/classify.js";
import { readPlan } from "../../src/plan/plan.js";
import { callContext } from "../../src/resolve/evaluate.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import { preparePlan, prepareStep, resolveSnapshot, RunLanguage, THROUGH_RESOLVE_REFS } from "../../src/step/prepare.js";
import { ArgsSnapshotter } from "../../src/step/snapshot.js";
import { RefError } from "../../src/shared/errors.js";
import { normalizeOptions, type NormalizedOptions, type ResolveOptions } from "../../src/shared/options.js";
import { argsArbitrary, mapResultsArbitrary, optionsArbitrary } from "../helpers/arbitraries.js";
import { argsOf, loadCases, resultsOf } from "../helpers/cases.js";
import { expectSameOutcome, outcome, type Outcome } from "../helpers/outcome.js";

/** What the runner does with a step: snapshot and prepare it, then resolve the snapshot (in place when it may). */
function runnerResolves(
  args: Record<string, unknown>,
  results: Map<number, unknown>,
  options: NormalizedOptions,
): { inPlace: boolean; outcome: Outcome } {
  const step = { id: 99, tool: "t", args, index: 0, pointer: "/steps/0" };
  const prepared = prepareStep(step, options, new ArgsSnapshotter());
  if (prepared.dependencies instanceof RefError) throw prepared.dependencies;
  const copy = step.args;
  const context = callContext(options);
  const inPlace = prepared.placeholders !== THROUGH_RESOLVE_REFS;
  return {
    inPlace,
    outcome: outcome(() =>
      inPlace ? resolveSnapshot(copy, prepared.placeholders, results, options, context) : resolveRefs(copy, results, options),
    ),
  };
}

function compare(args: Record<string, unknown>, results: Map<number, unknown>, given: ResolveOptions | undefined): boolean {
  const options = normalizeOptions(given);
  const expected = outcome(() => resolveRefs(args, results, options));
  const actual = runnerResolves(args, results, options);
  expectSameOutcome(actual.outcome, expected); // no sharing check: the runner resolves a copy
  return actual.inPlace;
}

/** The step ids of every placeholder resolveRefs resolves in `args` (top level; with `deep`, every container within maxDepth), each once. */
function referencedSteps(args: Record<string, unknown>, options: NormalizedOptions): number[] {
  const ids = new Set<number>();
  const seen = new Set<object>();
  const walk = (container: object, depth: number): void => {
    if (seen.has(container) || depth > options.maxDepth) return;
    seen.add(container);
    for (const key of Object.keys(container)) {
      const descriptor = Object.getOwnPropertyDescriptor(container, key);
      if (descriptor === undefined || !("value" in descriptor)) continue;
      const value: unknown = descriptor.value;
      if (typeof value === "string" && (depth === 0 || options.deep)) {
        const classified = classifyString(value, options);
        if (classified.kind === "ref") for (const node of referencesIn(classified.ast)) ids.add(Number(node.step.id));
      } else if (
        options.deep &&
        typeof value === "object" &&
        value !== null &&
        (Array.isArray(value) || [Object.prototype, null].includes(Object.getPrototypeOf(value)))
      ) {
        walk(value, depth + 1);
      }
    }
  };
  walk(args, 0);
  return [...ids].sort((a, b) => a - b);
}

describe("a snapshot resolved in place gives what resolveRefs gives", () => {
  const rows = ["seed.json", "path.json", "templates.json", "deep.json"].flatMap((file) =>
    loadCases(file).map((row) => ({ ...row, name: `${file}: ${row.name}` })),
  );
  const asMap = (results: unknown): Map<number, unknown> | undefined => {
    if (results instanceof Map) return results as Map<number, unknown>;
    if (typeof results !== "object" || results === null) return undefined;
    return new Map(Object.entries(results).map(([key, value]) => [Number(key), value]));
  };
  test.each(rows)("$name", (row) => {
    const args = argsOf(row);
    const results = asMap(resultsOf(row));
    if (typeof args !== "object" || args === null || Array.isArray(args) || results === undefined) return; // the runner's steps always have an args object and a Map of results
    if (outcome(() => normalizeOptions(row.options)).ok === false) return; // bad options: the runner refuses them before reading the plan
    compare(args as Record<string, unknown>, results, row.options);
  });

  test("on generated arguments, results and options (and it is the path taken for many of them)", { tags: ["counts-cases"] }, () => {
    let inPlace = 0;
    let total = 0;
    fc.assert(
      fc.property(argsArbitrary, mapResultsArbitrary, optionsArbitrary, fc.boolean(), (args, results, options, getter) => {
        // A getter at the top level: resolveRefs refuses it, and so must the runner (through resolveRefs).
        if (getter) Object.defineProperty(args, "g", { get: () => "$1", enumerable: true, configurable: true });
        const tookPath = compare(args, results, options);
        if (!getter) {
          total++;
          if (tookPath) inPlace++;
        }
      }),
      { numRuns: 2000 },
    );
    // Counted over the cases without a getter (a getter always falls back): about half take the path,
    // so a third is a bound no seed comes near (counting every case put the expected share at the bound).
    expect(inPlace).toBeGreaterThan(total / 3);
  });

  test("one evaluation context for a whole run: each step reads the results as they are when it is resolved", () => {
    const options = normalizeOptions(undefined);
    const context = callContext(options);
    const results = new Map<number, unknown>([[0, { city: "Paris" }]]);
    const first = { id: 1, tool: "t", args: { a: "$0.city", b: "$0" }, index: 0, pointer: "/steps/0" };
    const second = { id: 2, tool: "t", args: { a: "$0.city" }, index: 1, pointer: "/steps/1" };
    const snapshots = new ArgsSnapshotter();
    const p1 = prepareStep(first, options, snapshots).placeholders;
    const p2 = prepareStep(second, options, snapshots).placeholders;
    expect(resolveSnapshot(first.args, p1, results, options, context)).toEqual({ a: "Paris", b: { city: "Paris" } });
    results.set(0, { city: "Lyon" });
    expect(resolveSnapshot(second.args, p2, results, options, context)).toEqual({ a: "Lyon" });
  });

  test("what makes a step fall back to resolveRefs", () => {
    const count = (args: Record<string, unknown>, options?: ResolveOptions): number => {
      const step = { id: 1, tool: "t", args, index: 0, pointer: "/steps/0" };
      return prepareStep(step, normalizeOptions(options), new ArgsSnapshotter()).placeholders;
    };
    const path = (args: Record<string, unknown>, options?: ResolveOptions): boolean => count(args, options) !== THROUGH_RESOLVE_REFS;
    expect(count({ q: "$0.city", n: 1, nested: { x: "$0" }, t: "text", r: "$2" })).toBe(2); // the nested one passes through as text
    expect(count({ q: "text", n: 1 })).toBe(0);
    expect(path({ q: "$0.city" }, { deep: true })).toBe(false);
    expect(path({ q: "$0", r: "$0" }, { maxPlaceholders: 1 })).toBe(false);
    expect(path({ q: "${0" }, { templates: true })).toBe(false); // an invalid template: resolveRefs throws
    expect(path({ q: "$0." }, { strict: true })).toBe(false);
    expect(path({ q: "$0." })).toBe(true); // not strict: passed on as text, as resolveRefs does
    expect(path(Object.assign(Object.create(null) as Record<string, unknown>, { q: "$0" }))).toBe(false);
    const cyclic: Record<string, unknown> = { q: "$0" };
    cyclic["self"] = { back: cyclic };
    expect(path(cyclic)).toBe(false);
    const withGetter = { q: "$0" };
    Object.defineProperty(withGetter, "g", { get: () => 1, enumerable: true });
    expect(path(withGetter)).toBe(false);
  });
});

describe("the dependencies come from the linter's scan of the snapshot", () => {
  test("every step a resolved placeholder reads, each once (generated)", () => {
    fc.assert(
      fc.property(argsArbitrary, optionsArbitrary, (args, given) => {
        const options = normalizeOptions(given);
        const expected = referencedSteps(args, options);
        const step = { id: 1_000, tool: "t", args, index: 0, pointer: "/steps/0" };
        const { dependencies } = prepareStep(step, options, new ArgsSnapshotter());
        if (dependencies instanceof RefError) throw dependencies;
        expect(new Set(dependencies).size).toBe(dependencies.length);
        expect([...dependencies].sort((a, b) => a - b)).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  test("a whole plan: each step's dependencies, the linter's diagnostics on the snapshots, and the caller's objects untouched", () => {
    const args = [{ q: "start" }, { city: "$0.city", again: "$0.country" }, { from: "$1", and: "$0", note: "$5 off" }];
    const plan = { steps: args.map((a, i) => ({ id: i, tool: "t", args: a })) };
    const before = JSON.stringify(plan);
    const read = readPlan(plan);
    const prepared = preparePlan(plan, read, normalizeOptions(undefined), undefined);
    expect(prepared.dependencies).toEqual([[], [0], [1, 0]]);
    expect([...prepared.placeholders]).toEqual([0, 2, 2]);
    expect(prepared.diagnostics).toEqual([]);
    expect(read.steps.map((step) => step.args)).toEqual(args);
    for (let i = 0; i < args.length; i++) expect(read.steps[i]!.args).not.toBe(args[i]); // the snapshots, not the caller's objects
    expect(JSON.stringify(plan)).toBe(before);
  });

  test("arguments that cannot be read: the step's RefError is in unreadable, it has no dependencies, its args an empty object", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("no keys for you");
        },
      },
    );
    const plan = { steps: [{ id: 1, tool: "t", args: hostile }] };
    const read = readPlan(plan);
    const prepared = preparePlan(plan, read, normalizeOptions(undefined), undefined);
    expect(prepared.unreadable.get(0)).toBeInstanceOf(RefError);
    expect(prepared.unreadable.get(0)!.code).toBe("access");
    expect(prepared.dependencies[0]).toEqual([]);
    expect(read.steps[0]!.args).toEqual({});
  });
});

/** A Proxy whose key listing throws: `readPlan` accepts it as a plain object, its snapshot cannot be taken. */
function unlistable(): Record<string, unknown> {
  return new Proxy(
    {},
    {
      ownKeys: () => {
        throw new Error("no keys for you");
      },
    },
  );
}

describe("arguments and output that cannot be read", () => {
  test("prepareStep: no dependencies, the RefError (code access, naming the step), resolved through resolveRefs, and `{}` as the step's args", () => {
    const step = { id: 7, tool: "t", args: unlistable(), index: 0, pointer: "/steps/0" };
    const prepared = prepareStep(step, normalizeOptions(undefined), new ArgsSnapshotter());
    expect(prepared.dependencies).toEqual([]);
    expect(prepared.placeholders).toBe(THROUGH_RESOLVE_REFS);
    expect(prepared.unreadable).toBeInstanceOf(RefError);
    expect([prepared.unreadable?.code, prepared.unreadable?.message]).toEqual([
      "access",
      "could not read the arguments of step 7: no keys for you",
    ]);
    expect(step.args).toEqual({});
    // The same snapshotter takes the next step as usual.
    const next = { id: 8, tool: "t", args: { q: "$7.x" }, index: 1, pointer: "/steps/1" };
    expect(prepareStep(next, normalizeOptions(undefined), new ArgsSnapshotter())).toEqual({ dependencies: [7], placeholders: 1 });
  });

  test("preparePlan: the output's RefError (code access) is the prepared output, and the plan's output becomes `{}`", () => {
    const plan = { steps: [{ id: 1, tool: "t", args: { q: "x" } }], output: unlistable() };
    const read = readPlan(plan);
    expect(read.problems).toEqual([]);
    const prepared = preparePlan(plan, read, normalizeOptions(undefined), undefined);
    expect(prepared.output).toBeInstanceOf(RefError);
    const error = prepared.output as RefError;
    expect([error.code, error.message]).toEqual(["access", "could not read the plan's output: no keys for you"]);
    expect(read.plan.output).toEqual({});
    expect(prepared.dependencies).toEqual([[]]);
  });

  test("preparePlan: a readable output is replaced by its copy, which is the prepared output; no output, no `output` key", () => {
    const output = { answer: "$1.city", list: ["$1"] };
    const plan = { steps: [{ id: 1, tool: "t", args: {} }], output };
    const read = readPlan(plan);
    const prepared = preparePlan(plan, read, normalizeOptions(undefined), undefined);
    expect(prepared.output).toEqual(output);
    expect(prepared.output).not.toBe(output);
    expect(read.plan.output).toBe(prepared.output);

    const bare = { steps: [{ id: 1, tool: "t", args: {} }] };
    const none = preparePlan(bare, readPlan(bare), normalizeOptions(undefined), undefined);
    expect(Object.keys(none).sort()).toEqual(["dependencies", "diagnostics", "flat", "ownDataOnly", "placeholders", "unreadable"]);
  });
});

describe("preparePlan's per-step facts", () => {
  test("ownDataOnly: 1 for a step whose snapshot holds own data only, 0 for a getter anywhere in it, or unreadable arguments", () => {
    const getter = (): Record<string, unknown> => Object.defineProperty({}, "g", { get: () => "$0", enumerable: true });
    const plan = {
      steps: [
        { id: 0, tool: "t", args: { q: "text" } },
        { id: 1, tool: "t", args: getter() },
        { id: 2, tool: "t", args: { nested: getter() } },
        { id: 3, tool: "t", args: { list: [{ x: "$0" }] } },
        { id: 4, tool: "t", args: unlistable() },
      ],
    };
    const prepared = preparePlan(plan, readPlan(plan), normalizeOptions(undefined), undefined);
    expect([...prepared.ownDataOnly]).toEqual([1, 0, 0, 1, 0]);
    expect([...prepared.placeholders]).toEqual([0, THROUGH_RESOLVE_REFS, 0, 0, THROUGH_RESOLVE_REFS]);
    expect([...prepared.unreadable.keys()]).toEqual([4]);
  });

  test("when the linter stops before scanning the steps (it cannot read its options), every step is still scanned", () => {
    class Hostile extends Map<number, { tool: string; plan: number }> {
      override get(): never {
        throw new Error("no earlier steps for you");
      }
    }
    const earlierSteps = { kept: new Hostile(), forgotten: new Map<number, string>(), nextStepId: 0 };
    const plan = {
      steps: [
        { id: 0, tool: "t", args: {} },
        { id: 1, tool: "t", args: { q: "$0.city" } },
        { id: 2, tool: "t", args: { a: "$1", b: "$0", c: "$1" } },
      ],
    };
    const prepared = preparePlan(plan, readPlan(plan), normalizeOptions(undefined), undefined, earlierSteps);
    expect(prepared.diagnostics.map((d) => d.code)).toHaveLength(1);
    expect(prepared.diagnostics[0]!.message).toContain("no earlier steps for you");
    expect(prepared.dependencies).toEqual([[], [0], [1, 0]]);
    expect([...prepared.placeholders]).toEqual([0, 1, 3]);
  });
});

describe("dependencies: each step id once, in order of first appearance", () => {
  const many = (n: number): Record<string, unknown> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `$${i}`]));
  test.each([
    ["one placeholder", { q: "$3.city" }, [3]],
    ["the same step twice", { a: "$2", b: "$2.x" }, [2]],
    ["a step again after another", { a: "$0", b: "$1", c: "$1", d: "$0" }, [0, 1]],
    ["a third step after a repeat", { a: "$5", b: "$5", c: "$4", d: "$4", e: "$6" }, [5, 4, 6]],
    [
      "17 steps, then each again",
      { ...many(17), ...Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`again${i}`, `$${i}`])) },
      [...Array(17).keys()],
    ],
    ["30 steps, then the first and last again", { ...many(30), x: "$0", y: "$29", z: "$15" }, [...Array(30).keys()]],
  ])("%s", (_name, args, expected) => {
    const step = { id: 1_000, tool: "t", args, index: 0, pointer: "/steps/0" };
    const { dependencies } = prepareStep(step, normalizeOptions({ maxPlaceholders: 100 }), new ArgsSnapshotter());
    expect(dependencies).toEqual(expected);
  });
});

describe("in place or through resolveRefs", () => {
  test.each([
    [{ q: "$0", r: "$1" }, 2, 2],
    [{ q: "$0", r: "$1" }, 1, THROUGH_RESOLVE_REFS],
    [{ q: "$0", r: "$1", s: "$2" }, 3, 3],
    [{ q: "$0", r: "$1", s: "$2" }, 2, THROUGH_RESOLVE_REFS],
  ])("%j with maxPlaceholders %i: %i", (args, maxPlaceholders, placeholders) => {
    const step = { id: 9, tool: "t", args, index: 0, pointer: "/steps/0" };
    expect(prepareStep(step, normalizeOptions({ maxPlaceholders }), new ArgsSnapshotter()).placeholders).toBe(placeholders);
  });

  test("resolveSnapshot resolves the first `placeholders` placeholders in key order and stops there", () => {
    const options = normalizeOptions(undefined);
    const results = new Map<number, unknown>([
      [0, "zero"],
      [1, "one"],
    ]);
    const copy = { a: "$0", n: 1, b: "$1", c: "$0" };
    expect(resolveSnapshot(copy, 2, results, options, callContext(options))).toEqual({ a: "zero", n: 1, b: "one", c: "$0" });
    const first = { a: "$0", b: "$1" };
    expect(resolveSnapshot(first, 1, results, options, callContext(options))).toEqual({ a: "zero", b: "$1" });
  });

  test("resolveSnapshot with a count past the placeholders there are: each resolved once, and the walk ends at the last key", () => {
    const options = normalizeOptions(undefined);
    // A result that reads as a placeholder is a value, never resolved again (here under the key `undefined`).
    const results = new Map<number, unknown>([
      [0, "$1"],
      [1, "one"],
    ]);
    const copy: Record<string, unknown> = { undefined: "$0" };
    expect(resolveSnapshot(copy, 3, results, options, callContext(options))).toEqual({ undefined: "$1" });
  });

  test("RunLanguage.resolve: in place it resolves a copy of the snapshot's top level, the snapshot left as linted; through resolveRefs a new object", () => {
    const language = new RunLanguage();
    language.layer(undefined, {});
    const results = new Map<number, unknown>([[0, { city: "Paris" }]]);
    const inPlace = { id: 1, tool: "t", args: { q: "$0.city" }, index: 0, pointer: "/steps/0" };
    const prepared = language.prepareStreamed(inPlace);
    expect(prepared.placeholders).toBe(1);
    const snapshot = inPlace.args;
    const resolved = language.resolve(snapshot, prepared.placeholders, results);
    expect(resolved).not.toBe(snapshot);
    expect(resolved).toEqual({ q: "Paris" });
    expect(snapshot).toEqual({ q: "$0.city" });
    // Without placeholders too: a tool may set or delete its arguments, never the snapshot's.
    const plain = { id: 3, tool: "t", args: { q: "Paris" }, index: 2, pointer: "/steps/2" };
    const none = language.prepareStreamed(plain);
    expect(none.placeholders).toBe(0);
    const given = language.resolve(plain.args, none.placeholders, results);
    expect(given).not.toBe(plain.args);
    expect(given).toEqual(plain.args);

    const through = {
      id: 2,
      tool: "t",
      args: Object.assign(Object.create(null) as Record<string, unknown>, { q: "$0.city" }),
      index: 1,
      pointer: "/steps/1",
    };
    const fallback = language.prepareStreamed(through);
    expect(fallback.placeholders).toBe(THROUGH_RESOLVE_REFS);
    const copy = through.args;
    const viaResolveRefs = language.resolve(copy, fallback.placeholders, results);
    expect(viaResolveRefs).not.toBe(copy);
    expect(viaResolveRefs).toEqual({ q: "Paris" });
    expect(copy).toEqual({ q: "$0.city" });
  });
});
