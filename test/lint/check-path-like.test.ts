/**
 * `path-like-key`: a path written in the seed syntax (the default), such as
 * `"$1.hits[0].url"` without `"options": {"syntax": "path"}`, used to lint clean and then fail at run
 * time with `no key "hits[0].url"`. The linter now warns, and the run-time `KeyError` carries the same
 * hint, from one home (src/shared/path-hint.ts). The table rows are in test/cases/lint.json (names
 * starting "path-like-key"); here: the run-time message, and properties over generated keys and plans.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { lintPlan, type Diagnostic, type LintOptions } from "../../src/lint/index.js";
import { resolveRefs } from "../../src/resolve/index.js";
import { KeyError } from "../../src/shared/errors.js";
import { isPathLikeKey, pathLikeAt, pathSyntaxHint } from "../../src/shared/path-hint.js";

function thrown(run: () => unknown): KeyError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(KeyError);
    return error as KeyError;
  }
  throw new Error("expected a KeyError");
}

const twoSteps = (value: string, options?: object) => ({
  ...(options === undefined ? {} : { options }),
  steps: [
    { id: 1, tool: "search", args: {} },
    { id: 2, tool: "fetch", args: { u: value } },
  ],
});
const pathLike = (diagnostics: readonly Diagnostic[]) => diagnostics.filter((d) => d.code === "path-like-key");

describe("the run-time KeyError", () => {
  test("a missing seed key with [ or . carries the hint to set the path syntax", () => {
    const results = { 1: { hits: [{ url: "https://example.org" }], address: { city: "Lisbon" } } };
    const bracket = thrown(() => resolveRefs({ u: "$1.hits[0].url" }, results));
    expect(bracket.code).toBe("missing-key");
    expect(bracket.message).toBe(
      `$1.hits[0].url: step 1's result has no key "hits[0].url" (keys: hits, address); in the seed syntax (the default) "hits[0].url" is one key, not a path; to read key "hits" and then [0].url, set the option syntax: "path" (in a plan: "options": {"syntax": "path"}), in argument /u`,
    );
    const dot = thrown(() => resolveRefs({ c: "$1.address.city" }, results));
    expect(dot.message).toContain(`; ${pathSyntaxHint("address.city")}, in argument /c`);
    // The fix the hint names works.
    expect(resolveRefs({ u: "$1.hits[0].url", c: "$1.address.city" }, results, { syntax: "path" })).toEqual({
      u: "https://example.org",
      c: "Lisbon",
    });
  });

  test("no hint for a key without . or [, nor in the path syntax, nor for a missing step", () => {
    expect(thrown(() => resolveRefs({ u: "$1.town" }, { 1: { city: "x" } })).message).not.toContain("seed syntax");
    expect(thrown(() => resolveRefs({ u: "$1.hits[0].url" }, { 1: { hits: [] } }, { syntax: "path" })).message).not.toContain(
      "seed syntax",
    );
    expect(thrown(() => resolveRefs({ u: '$1["a.b"]' }, { 1: {} }, { syntax: "path" })).message).not.toContain("seed syntax");
    expect(thrown(() => resolveRefs({ u: "$2.a.b" }, { 1: {} })).message).not.toContain("seed syntax");
  });

  test("the hint escapes what it quotes", () => {
    const error = thrown(() => resolveRefs({ u: "$1.a[\u001b]\n" }, { 1: {} }));
    expect(error.message).not.toMatch(/[\u0000-\u001f]/);
    expect(error.message).toContain(pathSyntaxHint("a[\u001b]\n"));
  });
});

describe("properties", () => {
  const keyChars = fc.constantFrom("a", "b", "0", ".", "[", "]", '"', " ", "é", "}");
  const seedKey = fc.array(keyChars, { minLength: 1, maxLength: 10 }).map((chars) => chars.join(""));

  test("without a catalog, a seed placeholder warns exactly when its key has a [, and lint and run time give the same hint", () => {
    fc.assert(
      fc.property(seedKey, (key) => {
        const found = pathLike(lintPlan(twoSteps(`$1.${key}`)));
        expect(found.length).toBe(key.includes("[") ? 1 : 0);
        if (found.length === 0) return;
        expect(found[0]).toMatchObject({
          severity: "warning",
          pointer: "/steps/1/args/u",
          step: 2,
          span: { start: 2, end: 3 + key.length },
        });
        expect(found[0]!.message.endsWith(pathSyntaxHint(key))).toBe(true);
        // What the linter warned about fails at run time (the key is missing) with the same hint.
        expect(thrown(() => resolveRefs({ u: `$1.${key}` }, { 1: { a: 1 } })).message).toContain(`; ${pathSyntaxHint(key)}`);
      }),
      { numRuns: 300 },
    );
  });

  test("with a catalog, the warning follows isPathLikeKey on the schema's declared keys, and never doubles an unknown-key", () => {
    const declared = fc.uniqueArray(seedKey, { maxLength: 4 });
    fc.assert(
      fc.property(seedKey, declared, fc.boolean(), (key, names, closed) => {
        const properties = Object.fromEntries(names.map((name) => [name, {}]));
        const tools: LintOptions["tools"] = {
          search: { output: { type: "object", properties, ...(closed ? { additionalProperties: false } : {}) } },
          fetch: {},
        };
        const diagnostics = lintPlan(twoSteps(`$1.${key}`), { tools });
        const unknown = diagnostics.filter((d) => d.code === "unknown-key");
        const expected = isPathLikeKey(key, new Set(names));
        if (unknown.length > 0) {
          expect(pathLike(diagnostics)).toEqual([]);
          expect(unknown[0]!.message.includes(pathSyntaxHint(key))).toBe(expected);
        } else {
          expect(pathLike(diagnostics).length).toBe(expected ? 1 : 0);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("with the option syntax path (the plan's or the caller's) the warning never appears", () => {
    const text = fc.oneof(
      seedKey.map((key) => `$1.${key}`),
      seedKey.map((key) => `\${1.${key}}`),
      fc.constantFrom("$1.hits[0].url", "$1.a.b", '$1["a.b"]', "$1.a ?? $1.b[0]", "$1.[0]", "x ${1.a[0]} y"),
    );
    const tools: LintOptions["tools"] = { search: { output: { type: "object", properties: { a: {}, hits: {}, "a.b": {} } } } };
    fc.assert(
      fc.property(text, fc.boolean(), fc.boolean(), fc.boolean(), (value, inPlan, templates, withTools) => {
        const plan = twoSteps(value, inPlan ? { syntax: "path", templates } : { templates });
        const options: LintOptions = { ...(inPlan ? {} : { syntax: "path" }), ...(withTools ? { tools } : {}) };
        expect(pathLike(lintPlan(plan, options))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  test("pathLikeAt is the first . or [", () => {
    fc.assert(
      fc.property(seedKey, (key) => {
        const at = pathLikeAt(key);
        expect(at).toBe(key.search(/[.[]/));
      }),
    );
  });
});
