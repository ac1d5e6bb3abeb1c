/**
 * Properties of the linter: it never throws, whatever it is given; its positions always lie
 * inside the text and cover exactly the failing characters, escapes included; and the lint-clean
 * property: a plan with no lint errors never makes `resolveRefs` throw a `RefSyntaxError` or a
 * missing-step `KeyError` when every step has a result.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { lintPlan, lintPlanText, type Diagnostic, type LintOptions } from "../../src/lint/index.js";
import { referencesIn } from "../../src/grammar/ast.js";
import { tryParseRef } from "../../src/grammar/parse.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import { KeyError, RefSyntaxError } from "../../src/shared/errors.js";
import { pointerTokens } from "../../src/shared/pointer.js";

const CODES = new Set([
  "json-syntax",
  "invalid-plan",
  "duplicate-step-id",
  "unknown-step",
  "self-ref",
  "forward-ref",
  "cycle",
  "malformed-ref",
  "non-canonical-step",
  "path-like-key",
  "unknown-tool",
  "unknown-key",
  "not-indexable",
  "type-mismatch",
  "missing-argument",
  "unknown-argument",
  "invalid-argument",
  "invalid-catalog",
  "nested-placeholder",
  "templates-off",
  "limit",
  "invalid-options",
]);

/** Strings close to the reference language, valid and not: what agents actually write, and their mistakes. */
const refText = fc.oneof(
  fc.constantFrom(
    "$1",
    "$01",
    "$2.city",
    "$1 .city",
    "$1.",
    "$5 off",
    "$",
    "$x",
    "${1.city}",
    "in ${2} at ${1.a}",
    "${1.city",
    "$${1}",
    "$$1",
    "$1.a[0]",
    '$1["k"]',
    '$1.a ?? "d"',
    "$1.a ?? $9.b",
    "$9.a ?? 3",
    "$99999999999999999999",
    "$1.a.b",
    "x ${01.y}",
    "${3}",
    "$3.a ?? $3.b",
  ),
  fc
    .tuple(
      fc.constantFrom("$", "${", "text ${", "$$", "$0"),
      fc.nat({ max: 12 }),
      fc.array(fc.constantFrom(".a", ".city", "[0]", '["q"]', ' ?? "d"', " ?? $1", " ?? $7", "}", " ", ".", "[", "?", "${2}"), {
        maxLength: 3,
      }),
    )
    .map(([head, n, tail]) => `${head}${n}${tail.join("")}`),
  fc.string({ maxLength: 8 }),
);

const argValue = fc.oneof(
  { weight: 5, arbitrary: refText },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.array(refText, { maxLength: 2 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom("x", "y"), refText, { maxKeys: 2 }) },
);

const args = fc.dictionary(fc.constantFrom("q", "a", "b", "c/d", "e~f"), argValue, { maxKeys: 3 });

/** Plans whose steps use ids 0..12 (sometimes repeated), with random language options. */
const planArb = fc.record(
  {
    options: fc.record({ syntax: fc.constantFrom("seed", "path"), templates: fc.boolean(), deep: fc.boolean() }, { requiredKeys: [] }),
    steps: fc.array(fc.record({ id: fc.nat({ max: 12 }), tool: fc.constantFrom("geocode", "weather"), args }), { maxLength: 6 }),
  },
  { requiredKeys: ["steps"] },
);

const catalog: LintOptions["tools"] = {
  geocode: { output: { type: "object", properties: { city: { type: "string" }, a: { type: "object" } }, additionalProperties: false } },
  weather: { input: { type: "object", properties: { q: { type: "string" } } }, output: { type: "array", items: { type: "number" } } },
};

/** The value a JSON Pointer leads to, if it exists (own data properties only). */
function resolvePointer(root: unknown, pointer: string): { found: boolean } {
  let node = root;
  for (const token of pointerTokens(pointer)) {
    if (typeof node !== "object" || node === null) return { found: false };
    const descriptor = Object.getOwnPropertyDescriptor(node, token);
    if (descriptor === undefined) return { found: false };
    node = descriptor.value;
  }
  return { found: true };
}

function checkShape(diagnostics: readonly Diagnostic[]): void {
  for (const d of diagnostics) {
    expect(CODES.has(d.code)).toBe(true);
    expect(["error", "warning", "info"]).toContain(d.severity);
    expect(typeof d.message).toBe("string");
    expect(d.pointer === "" || d.pointer.startsWith("/")).toBe(true);
  }
}

describe("never throws", () => {
  test("lintPlan on arbitrary JSON values: well-formed diagnostics whose pointers exist", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const diagnostics = lintPlan(value);
        checkShape(diagnostics);
        for (const d of diagnostics) expect(resolvePointer(value, d.pointer).found).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  test("lintPlan on generated plans, with and without a catalog", () => {
    fc.assert(
      fc.property(planArb, fc.boolean(), (plan, withTools) => {
        const diagnostics = lintPlan(plan, withTools ? { tools: catalog } : undefined);
        checkShape(diagnostics);
        for (const d of diagnostics) expect(resolvePointer(plan, d.pointer).found).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  test("lintPlanText on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), (text) => {
        checkRanges(text, lintPlanText(text));
      }),
      { numRuns: 300 },
    );
  });

  test("lintPlanText on plan texts with a character inserted or deleted", () => {
    fc.assert(
      fc.property(planArb, fc.nat(), fc.constantFrom("", "{", "}", "[", "]", ",", '"', "\\", ":", "x", "\n"), (plan, at, insert) => {
        const text = JSON.stringify(plan, null, 2);
        const i = at % (text.length + 1);
        const mutated = text.slice(0, i) + insert + text.slice(insert === "" ? i + 1 : i);
        checkRanges(mutated, lintPlanText(mutated, { tools: catalog }));
      }),
      { numRuns: 300 },
    );
  });
});

/** Every position inside the text, consistent with its offsets (counted here, independently). */
function checkRanges(text: string, diagnostics: readonly Diagnostic[]): void {
  checkShape(diagnostics);
  for (const d of diagnostics) {
    const offset = d.offset!;
    expect(0 <= offset.start && offset.start <= offset.end && offset.end <= text.length).toBe(true);
    expect(d.range!.start).toEqual(position(text, offset.start));
    expect(d.range!.end).toEqual(position(text, offset.end));
  }
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lines = before.split(/\r\n|\r|\n/);
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/** JSON text with some characters of strings (and keys) written as \u escapes, chosen by `mask`. */
function stringifyEscaped(value: unknown, mask: number, indent: string): string {
  const str = (s: string): string => {
    let out = '"';
    for (let i = 0; i < s.length; i++) {
      const ch = s[i]!;
      const plain = JSON.stringify(ch).slice(1, -1);
      out += (mask >> (i % 31)) & 1 ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}` : plain;
    }
    return `${out}"`;
  };
  const walk = (node: unknown, depth: number): string => {
    const pad = indent === "" ? "" : `\n${indent.repeat(depth + 1)}`;
    const close = indent === "" ? "" : `\n${indent.repeat(depth)}`;
    if (typeof node === "string") return str(node);
    if (Array.isArray(node)) return node.length === 0 ? "[]" : `[${node.map((item) => pad + walk(item, depth + 1)).join(",")}${close}]`;
    if (typeof node === "object" && node !== null) {
      const keys = Object.keys(node);
      return keys.length === 0
        ? "{}"
        : `{${keys.map((key) => `${pad}${str(key)}: ${walk((node as Record<string, unknown>)[key], depth + 1)}`).join(",")}${close}}`;
    }
    return JSON.stringify(node);
  };
  return walk(value, 0);
}

describe("positions", () => {
  test("a span's file characters decode to exactly the span of the string value, whatever is escaped", () => {
    fc.assert(
      fc.property(planArb, fc.integer(), fc.constantFrom("", "  ", "\t"), (plan, mask, indent) => {
        const text = stringifyEscaped(plan, mask, indent);
        const value = JSON.parse(text) as unknown;
        const diagnostics = lintPlanText(text, { tools: catalog });
        checkRanges(text, diagnostics);
        for (const d of diagnostics) {
          if (d.span === undefined) continue;
          let node = value;
          for (const token of pointerTokens(d.pointer)) node = (node as Record<string, unknown>)[token];
          expect(typeof node).toBe("string");
          const raw = text.slice(d.offset!.start, d.offset!.end);
          expect(JSON.parse(`"${raw}"`)).toBe((node as string).slice(d.span.start, d.span.end));
        }
      }),
      { numRuns: 300 },
    );
  });

  test("lintPlanText agrees with lintPlan on the parsed value, in the same order", () => {
    fc.assert(
      fc.property(planArb, fc.integer(), fc.constantFrom("", "  "), (plan, mask, indent) => {
        const text = stringifyEscaped(plan, mask, indent);
        const fromText = lintPlanText(text, { tools: catalog }).map(({ range: _r, offset: _o, ...rest }) => rest);
        expect(fromText).toEqual(lintPlan(JSON.parse(text), { tools: catalog }));
      }),
      { numRuns: 200 },
    );
  });
});

describe("the lint-clean property", () => {
  const results = fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 13, maxLength: 13 });

  /** Resolve every step with a result for every step; return what was thrown that must not be. */
  function forbiddenThrow(
    plan: { steps: { id: number; args: Record<string, unknown> }[]; options?: object },
    values: unknown[],
    strict: boolean,
  ): unknown {
    const byStep = Object.fromEntries(plan.steps.map((step) => [String(step.id), values[step.id]]));
    for (const step of plan.steps) {
      try {
        resolveRefs(step.args, byStep, { ...plan.options, strict });
      } catch (error) {
        if (error instanceof RefSyntaxError || (error instanceof KeyError && error.code === "missing-step")) return error;
      }
    }
    return undefined;
  }

  for (const strict of [false, true]) {
    test(
      `a plan without lint errors resolves without RefSyntaxError or missing-step (strict: ${strict})`,
      { tags: ["counts-cases"] },
      () => {
        let clean = 0;
        let cleanWithRefs = 0;
        fc.assert(
          fc.property(planArb, results, (plan, values) => {
            const diagnostics = lintPlan(plan, strict ? { strict } : undefined);
            if (diagnostics.some((d) => d.severity === "error")) return;
            clean++;
            if (JSON.stringify(plan.steps).includes("$")) cleanWithRefs++;
            expect(forbiddenThrow(plan, values, strict)).toBeUndefined();
          }),
          { numRuns: 1500 },
        );
        // The property must not hold vacuously: many generated plans are clean and use references.
        expect(clean).toBeGreaterThan(100);
        expect(cleanWithRefs).toBeGreaterThan(50);
      },
    );
  }

  test("the other direction: a placeholder whose only reference is an unknown step never resolves", { tags: ["counts-cases"] }, () => {
    let seen = 0;
    fc.assert(
      fc.property(planArb, results, (plan, values) => {
        const byStep = Object.fromEntries(plan.steps.map((step) => [String(step.id), values[step.id]]));
        for (const d of lintPlan(plan)) {
          if (d.code !== "unknown-step" || d.severity !== "error") continue;
          let text: unknown = plan;
          for (const token of pointerTokens(d.pointer)) text = (text as Record<string, unknown>)[token];
          // With more than one reference an earlier one may resolve and the unknown step never be read.
          const parsed = tryParseRef(text as string, plan.options);
          if (!parsed.ok || referencesIn(parsed.value).length !== 1) continue;
          seen++;
          expect(() => resolveRefs({ q: text }, byStep, plan.options)).toThrow(
            expect.objectContaining({ name: "KeyError", code: "missing-step" }),
          );
        }
      }),
      { numRuns: 500 },
    );
    expect(seen).toBeGreaterThan(50);
  });
});
