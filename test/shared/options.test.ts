/**
 * The one rule for layering a plan's `options` under a caller's (src/shared/options.ts): every entry
 * point uses it, so planGraph throws exactly when lintPlan reports `invalid-options`, with the same words.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { tokenize } from "../../src/editor/index.js";
import { planGraph } from "../../src/plan/index.js";
import { lintPlan, RefError } from "../../src/index.js";
import {
  DEFAULT_LIMITS,
  layeredOptions,
  layerOptions,
  normalizeOptions,
  OPTION_NAMES,
  OPTION_REQUIREMENTS,
  PLAN_OPTION_NAMES,
  sameOptionValues,
} from "../../src/shared/options.js";

const plan = {
  steps: [
    { id: 1, tool: "a", args: {} },
    { id: 2, tool: "b", args: { q: "$1.x" } },
  ],
  options: { syntax: "path" },
};

describe("layerOptions", () => {
  test.each([
    ["nothing", undefined, undefined, {}, []],
    ["the plan's options", { syntax: "path", deep: true }, undefined, { syntax: "path", deep: true }, []],
    ["the caller's override the plan's", { syntax: "path" }, { syntax: "seed", templates: true }, { syntax: "seed", templates: true }, []],
    ["an undefined caller option sets nothing", { syntax: "path" }, { syntax: undefined }, { syntax: "path" }, []],
    ["a null syntax means the default (as normalizeOptions)", { syntax: "path" }, { syntax: null }, { syntax: "seed" }, []],
    ["a plan sets only syntax, templates, deep", { strict: true, maxDepth: 3 }, undefined, { strict: false, maxDepth: 256 }, []],
    ["other caller names are the entry point's own", undefined, { tools: {}, catalog: 1 }, {}, []],
    [
      "a bad caller value is ignored: the plan's stands",
      { syntax: "path" },
      { syntax: "yaml", deep: true },
      { syntax: "path", deep: true },
      ['option syntax must be "seed" or "path"'],
    ],
    [
      "every bad value is a problem, in OPTION_NAMES order",
      undefined,
      { maxDepth: -1, strict: "yes" },
      { strict: false, maxDepth: 256 },
      ["option strict must be a boolean", "option maxDepth must be a non-negative integer"],
    ],
    ["a bad plan value is ignored too", { templates: "yes" }, undefined, { templates: false }, ["option templates must be a boolean"]],
    ["options that are not an object", undefined, "path", {}, ["options must be an object"]],
  ] as const)("%s", (_name, planOptions, callerOptions, expected, messages) => {
    const { options, problems } = layerOptions(planOptions, callerOptions);
    expect(options).toMatchObject(expected);
    expect(problems.map((problem) => problem.message)).toEqual(messages);
  });

  test("options whose getter throws: one access problem, the layer ignored; layeredOptions throws it with its cause", () => {
    const boom = new Error("boom");
    const options = Object.defineProperty({}, "deep", {
      get: () => {
        throw boom;
      },
    });
    const { options: result, problems } = layerOptions({ syntax: "path" }, options);
    expect(result.syntax).toBe("path");
    expect(problems).toMatchObject([{ code: "access", cause: boom }]);
    const error = (() => {
      try {
        layeredOptions(undefined, options);
      } catch (thrown) {
        return thrown as RefError;
      }
    })();
    expect(error).toBeInstanceOf(RefError);
    expect(error).toMatchObject({ code: "access", cause: boom });
  });

  test("a caller layer reads each option once", () => {
    const reads: string[] = [];
    const options = new Proxy({}, { get: (_target, key) => void reads.push(String(key)) });
    layerOptions(undefined, options);
    expect(reads).toEqual([...OPTION_NAMES]);
    expect(PLAN_OPTION_NAMES.every((name) => (OPTION_NAMES as readonly string[]).includes(name))).toBe(true);
  });

  test("layeredOptions throws the first problem as invalid-options, with normalizeOptions' words", () => {
    expect(() => layeredOptions(undefined, { maxSegments: 1.5, deep: 1 })).toThrow(
      new RefError("invalid-options", "option deep must be a boolean"),
    );
    expect(() => normalizeOptions({ maxSegments: 1.5, deep: 1 } as never)).toThrow("option deep must be a boolean");
  });
});

describe("every entry point layers options by the one rule", () => {
  const optionValue = fc.constantFrom<unknown>(undefined, null, true, false, "seed", "path", "yaml", 0, 3, -1, 1.5, "3");
  const callerOptions = fc.record(Object.fromEntries(OPTION_NAMES.map((name) => [name, optionValue])), { requiredKeys: [] });

  test("planGraph throws invalid-options exactly when lintPlan reports it, with the same message", () => {
    fc.assert(
      fc.property(callerOptions, (options) => {
        const reported = lintPlan(plan, options)
          .filter((d) => d.code === "invalid-options")
          .map((d) => d.message);
        let thrown: RefError | undefined;
        try {
          planGraph(plan, options);
        } catch (error) {
          thrown = error as RefError;
        }
        expect(thrown?.code).toBe(reported.length > 0 ? "invalid-options" : undefined);
        if (thrown !== undefined) expect(reported[0]).toBe(thrown.message);
        expect(reported).toEqual(layerOptions(plan.options, options).problems.map((problem) => problem.message));
      }),
    );
  });

  test("the editor keeps the good options of a layer with a bad one (it used to drop the whole layer)", () => {
    // syntax "path" stands although deep is bad: `.b` is a path segment of the reference.
    const tokens = tokenize("$1.a.b", { syntax: "path", deep: "yes" } as never);
    expect(tokens).toEqual(tokenize("$1.a.b", { syntax: "path" }));
    expect(tokens).not.toEqual(tokenize("$1.a.b"));
  });
});

describe("sameOptionValues", () => {
  test.each(OPTION_NAMES)("tells two options objects apart when only %s differs", (name) => {
    const base = { ...normalizeOptions(undefined) } as Record<string, unknown>;
    const other = {
      ...base,
      [name]: typeof base[name] === "number" ? base[name] + 1 : typeof base[name] === "boolean" ? !base[name] : "path-or-seed",
    };
    expect(sameOptionValues(base, base)).toBe(true);
    expect(sameOptionValues({ ...base }, base)).toBe(true);
    expect(sameOptionValues(other, base)).toBe(false);
    expect(sameOptionValues(base, other)).toBe(false);
  });

  test("absent and undefined are the same; a set option is not", () => {
    expect(sameOptionValues({}, { syntax: undefined })).toBe(true);
    expect(sameOptionValues({}, { deep: false })).toBe(false);
  });
});

describe("one table of options", () => {
  // Names, defaults, requirements and the plan-settable subset all come from the table in
  // src/shared/options.ts: each derived list agrees with the others and with what normalizeOptions does.
  test("every name has a default, a requirement, and a bad value refused with that requirement", () => {
    const defaults = normalizeOptions(undefined);
    expect(Object.keys(defaults)).toEqual([...OPTION_NAMES]);
    for (const name of OPTION_NAMES) {
      expect(OPTION_REQUIREMENTS[name]).toMatch(/\S/);
      expect(() => normalizeOptions({ [name]: {} })).toThrow(
        new RefError("invalid-options", `option ${name} must be ${OPTION_REQUIREMENTS[name]}`),
      );
      expect(normalizeOptions({ [name]: defaults[name] })).toEqual(defaults);
    }
  });

  test("the numeric limits are exactly the names that take a non-negative integer, with the same defaults", () => {
    const limits = OPTION_NAMES.filter((name) => OPTION_REQUIREMENTS[name] === "a non-negative integer");
    expect(Object.keys(DEFAULT_LIMITS)).toEqual(limits);
    const defaults = normalizeOptions(undefined);
    for (const name of limits) expect(DEFAULT_LIMITS[name as keyof typeof DEFAULT_LIMITS]).toBe(defaults[name]);
  });

  test("a plan sets syntax, templates and deep, and no other option", () => {
    expect(PLAN_OPTION_NAMES).toEqual(["syntax", "templates", "deep"]);
  });
});
