/**
 * User mistakes that used to end in a stack trace or a misleading message: `readTools` without its
 * callback, a plan nested a million levels deep, and a template with many interpolations (counted
 * against `maxInterpolations`, not against the path segments of one reference).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { DEFAULT_LIMITS } from "../../src/shared/options.js";
import { lintPlan, lintPlanText, readTools, RefError, resolveRefs, tryParseRef } from "../../src/index.js";
import { parseJsonText } from "../../src/plan/index.js";
import { locatePositions } from "../../src/lint/text-positions.js";
import { MAX_NESTING } from "../../src/plan/json-text.js";
import { runCliInProcess } from "../helpers/cli.js";
import { tempFolder } from "../helpers/temp.js";

const tmp = tempFolder("mistakes");

function file(name: string, content: string): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
}

describe("readTools without a callback", () => {
  test.each([[undefined], [null], ["not a function"]])(
    "a RefError invalid-options naming the callback, not a raw TypeError (%s)",
    (callback) => {
      const call = (): unknown => readTools("x", callback as never);
      expect(call).toThrow(RefError);
      expect(call).toThrow(/readTools needs a callback for the problems it finds/);
      try {
        call();
      } catch (error) {
        expect((error as RefError).code).toBe("invalid-options");
      }
    },
  );
});

describe("a plan nested deeper than the parser that finds positions can go", () => {
  const million = "[".repeat(1_000_000) + "]".repeat(1_000_000);

  test("lintPlanText: one `limit` diagnostic at the bracket that goes too deep, naming the depth", () => {
    const diagnostics = lintPlanText(million);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: "limit", severity: "error", offset: { start: MAX_NESTING, end: MAX_NESTING + 1 } });
    expect(diagnostics[0]!.message).toBe(
      `arrays and objects are nested more than ${MAX_NESTING} levels deep (the limit of the JSON reader, MAX_NESTING)`,
    );
    expect(diagnostics[0]!.message).not.toMatch(/call stack/);
  });

  test("deep inside the arguments too", () => {
    const plan = `{"steps": [{"id": 1, "tool": "a", "args": {"q": ${"[".repeat(100_000)}${"]".repeat(100_000)}}}]}`;
    expect(lintPlanText(plan).map((d) => d.code)).toEqual(["limit"]);
  });

  test("exactly at the limit is linted as usual; lintPlan on the value (no positions) needs no limit", () => {
    // The plan object, "steps", the step and "args" are four levels: then the arguments' own.
    const nested = (levels: number): string =>
      `{"steps": [{"id": 1, "tool": "a", "args": {"q": ${"[".repeat(levels)}${"]".repeat(levels)}}}]}`;
    expect(lintPlanText(nested(MAX_NESTING - 4))).toEqual([]);
    expect(lintPlanText(nested(MAX_NESTING - 3)).map((d) => d.code)).toEqual(["limit"]);
    expect(lintPlan(JSON.parse(million))).toMatchObject([{ code: "invalid-plan" }]);
  });

  test("parseJsonText on a deep document that is not JSON, and locatePositions on a deep one, never overflow the stack", () => {
    const broken = parseJsonText(`${"[".repeat(1_000_000)}x`);
    expect(broken).toMatchObject({ ok: false, error: { offset: MAX_NESTING, line: 1, column: MAX_NESTING + 1 } });
    expect(locatePositions(million, [{ pointer: "/0/0" }])).toEqual([{ start: MAX_NESTING, end: MAX_NESTING + 1 }]);
  });

  test("plan-refs lint: exit 1 with the limit at its line and column, no stack trace", async () => {
    const result = await runCliInProcess(["lint", file("deep.plan.json", million)]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(
        `^\\S+deep\\.plan\\.json:1:${MAX_NESTING + 1} error limit arrays and objects are nested more than ${MAX_NESTING} levels deep`,
      ),
    );
    expect(result.stdout).not.toMatch(/Maximum call stack/);
    expect(result.stderr).toBe("");
  });
});

describe("interpolations have their own limit, maxInterpolations", () => {
  const template = (count: number, each = "${1.a}"): string => Array.from({ length: count }, () => each).join(" ");

  test("300 interpolations resolve (each is one reference, within maxSegments on its own)", () => {
    expect(resolveRefs({ q: template(300) }, { 1: { a: "x" } }, { templates: true })).toEqual({ q: template(300, "x") });
    const plan = {
      steps: [
        { id: 1, tool: "a", args: {} },
        { id: 2, tool: "b", args: { q: template(300) } },
      ],
      options: { templates: true },
    };
    expect(lintPlan(plan)).toEqual([]);
  });

  test("one over the default: a `limit` error that counts interpolations and names the option", () => {
    const over = DEFAULT_LIMITS.maxInterpolations + 1;
    const result = tryParseRef(template(over), { templates: true });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe("limit");
      expect(result.error.message).toBe(
        `template has ${over} interpolations, over maxInterpolations (${DEFAULT_LIMITS.maxInterpolations})`,
      );
    }
    expect(tryParseRef(template(over), { templates: true, maxInterpolations: over }).ok).toBe(true);
    expect(() => resolveRefs({ q: template(3) }, { 1: { a: "x" } }, { templates: true, maxInterpolations: 2 })).toThrow(
      /template has 3 interpolations, over maxInterpolations \(2\)/,
    );
  });

  test("maxSegments still bounds each interpolation's own path", () => {
    const long = `\${1${".a".repeat(5)}}`;
    expect(tryParseRef(`x ${long}`, { templates: true, syntax: "path", maxSegments: 4 })).toMatchObject({
      ok: false,
      error: { code: "limit", message: expect.stringMatching(/reference has 5 path segments/) },
    });
    expect(tryParseRef(`${long} ${long} ${long}`, { templates: true, syntax: "path", maxSegments: 5 }).ok).toBe(true);
  });

  test("a bad maxInterpolations is an invalid-options error", () => {
    expect(() => resolveRefs({}, {}, { maxInterpolations: -1 })).toThrow(/option maxInterpolations must be a non-negative integer/);
  });
});

describe("a mistyped command", () => {
  test.each([
    ["lnt", "lint"],
    ["rnu", "run"],
    ["Graph", "graph"],
    ["wroker", "worker"],
  ])("plan-refs %s: unknown, with a did-you-mean %s (as flags have), exit 2", async (typed, meant) => {
    const result = await runCliInProcess([typed, "plan.json"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n")[0]).toBe(`plan-refs: unknown command "${typed}"; did you mean ${meant}?`);
  });

  test("nothing close: no suggestion", async () => {
    const result = await runCliInProcess(["zzzzzz"]);
    expect(result.code).toBe(2);
    expect(result.stderr.split("\n")[0]).toBe('plan-refs: unknown command "zzzzzz"');
  });
});
