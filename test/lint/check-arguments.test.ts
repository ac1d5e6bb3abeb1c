/**
 * Arguments against the tools' input schemas (the rows with exact ranges are in test/cases/lint.json):
 * the property that a plan built to fit a random input schema lints clean of the three argument codes
 * and that breaking one literal gives exactly one; hostile catalogs (a pathological pattern, getters,
 * huge schemas) that must neither hang nor crash the linter.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { lintPlan, type Diagnostic } from "../../src/lint/index.js";
import { compileInputSchema, inputIssues, MAX_SCHEMA_NODES, nestedQuantifier } from "../../src/lint/input-schema.js";
import { toolInput } from "../../src/lint/check-arguments.js";

const ARGUMENT_CODES = new Set(["missing-argument", "unknown-argument", "invalid-argument"]);

/** A schema with a value that fits it, and the JSON Pointers of its leaves with a value that breaks each. */
interface Built {
  readonly schema: Record<string, unknown>;
  readonly value: unknown;
  readonly leaves: readonly { readonly path: string; readonly wrong: unknown }[];
}

const word = fc.stringMatching(/^[a-z]{1,6}$/);

const leaf: fc.Arbitrary<Built> = fc.oneof(
  word.map((value) => ({ schema: { type: "string" }, value, leaves: [{ path: "", wrong: 42 }] })),
  fc
    .uniqueArray(word, { minLength: 1, maxLength: 4 })
    .chain((values) =>
      fc.constantFrom(...values).map((value) => ({ schema: { type: "string", enum: values }, value, leaves: [{ path: "", wrong: true }] })),
    ),
  fc
    .tuple(fc.integer({ min: -5, max: 5 }), fc.nat(10))
    .chain(([minimum, span]) =>
      fc
        .integer({ min: minimum, max: minimum + span })
        .map((value) => ({ schema: { type: "integer", minimum, maximum: minimum + span }, value, leaves: [{ path: "", wrong: "x" }] })),
    ),
  fc.boolean().map((value) => ({ schema: { type: "boolean" }, value, leaves: [{ path: "", wrong: "x" }] })),
  fc.tuple(fc.nat(3), fc.nat(3)).chain(([minLength, span]) =>
    fc.stringMatching(new RegExp(`^[a-z]{${minLength},${minLength + span}}$`)).map((value) => ({
      schema: { type: "string", minLength, maxLength: minLength + span },
      value,
      leaves: [{ path: "", wrong: null }],
    })),
  ),
);

const KEYS = ["a", "b", "city", "c/d", "e~f", "days"];
const token = (key: string | number): string => String(key).replaceAll("~", "~0").replaceAll("/", "~1");

function objectOf(children: fc.Arbitrary<Built>): fc.Arbitrary<Built> {
  return fc
    .tuple(fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 1, maxLength: 4 }), fc.boolean())
    .chain(([keys, closed]) =>
      fc.tuple(
        fc.constant(keys),
        fc.constant(closed),
        fc.tuple(...keys.map(() => children)),
        fc.array(fc.boolean(), { minLength: keys.length, maxLength: keys.length }),
      ),
    )
    .map(([keys, closed, built, required]) => {
      const properties: Record<string, unknown> = {};
      const value: Record<string, unknown> = {};
      const leaves: { path: string; wrong: unknown }[] = [];
      keys.forEach((key, i) => {
        properties[key] = built[i]!.schema;
        value[key] = built[i]!.value;
        for (const item of built[i]!.leaves) leaves.push({ path: `/${token(key)}${item.path}`, wrong: item.wrong });
      });
      const schema = {
        type: "object",
        properties,
        required: keys.filter((_, i) => required[i]),
        ...(closed ? { additionalProperties: false } : {}),
      };
      return { schema, value, leaves };
    });
}

const node: fc.Arbitrary<Built> = fc.letrec<{ node: Built }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    objectOf(tie("node")),
    fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map((items) => {
      // An array of one item schema: every element is built from the first one's schema.
      const schema = { type: "array", items: items[0]!.schema };
      return { schema, value: [items[0]!.value], leaves: items[0]!.leaves.map((item) => ({ path: `/0${item.path}`, wrong: item.wrong })) };
    }),
  ),
})).node;

const root = objectOf(node);

function argumentDiagnostics(schema: unknown, args: unknown): Diagnostic[] {
  return lintPlan({ steps: [{ id: 1, tool: "t", args }] }, { tools: { t: { input: schema as Record<string, unknown> } } }).filter((d) =>
    ARGUMENT_CODES.has(d.code),
  );
}

function setAt(value: unknown, path: string, replacement: unknown): unknown {
  const copy = structuredClone(value);
  const tokens = path
    .slice(1)
    .split("/")
    .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
  let target = copy as Record<string, unknown>;
  for (const t of tokens.slice(0, -1)) target = target[t] as Record<string, unknown>;
  target[tokens[tokens.length - 1]!] = replacement;
  return copy;
}

describe("a plan built to fit a random input schema", () => {
  test("lints with none of the argument codes", { tags: ["compiles-schemas"] }, () => {
    fc.assert(
      fc.property(root, (built) => {
        expect(argumentDiagnostics(built.schema, built.value)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  test("breaking one literal gives exactly one diagnostic, there", { tags: ["compiles-schemas"] }, () => {
    fc.assert(
      fc.property(
        root.filter((built) => built.leaves.length > 0),
        fc.nat(),
        (built, pick) => {
          const broken = built.leaves[pick % built.leaves.length]!;
          const diagnostics = argumentDiagnostics(built.schema, setAt(built.value, broken.path, broken.wrong));
          expect(diagnostics.map((d) => [d.code, d.pointer])).toEqual([["invalid-argument", `/steps/0/args${broken.path}`]]);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("hostile catalogs", () => {
  test("a pathological pattern does not hang the linter: it is not tested, and said so", () => {
    // (a+)+$ on forty "a"s and a "!" backtracks 2^40 times: this test would not finish if it ran.
    const schema = {
      type: "object",
      properties: { s: { type: "string", pattern: "^(a+)+$" }, t: { type: "string", pattern: "^(a|aa)*$" } },
    };
    const diagnostics = lintPlan(
      { steps: [{ id: 1, tool: "t", args: { s: `${"a".repeat(40)}!`, t: `${"a".repeat(40)}!` } }] },
      { tools: { t: { input: schema } } },
    );
    expect(diagnostics.map((d) => [d.code, d.severity])).toEqual([["invalid-catalog", "warning"]]);
    expect(diagnostics[0]!.message).toContain('pattern "^(a+)+$" is not tested');
    expect(diagnostics[0]!.message).toContain('pattern "^(a|aa)*$" is not tested');
  });

  test("a safe pattern is tested; a long string is not tested against any pattern", () => {
    const compiled = compileInputSchema({ type: "object", properties: { s: { type: "string", pattern: "^[a-z]+$" } } });
    if (!compiled.ok) throw new Error(compiled.reason);
    expect(compiled.untested).toEqual([]);
    expect(inputIssues(compiled, { s: "A" }).map((issue) => issue.kind)).toEqual(["invalid"]);
    expect(inputIssues(compiled, { s: "A".repeat(2_000) })).toEqual([]);
  });

  test.each([
    ["^(a+)+$", true],
    ["(a|a)*", true],
    ["((ab)*c)+", true],
    ["(x{2,})+", true],
    ["^[a-z0-9-]+$", false],
    ["^(https?|ftp)://", false],
    ["^\\d{4}-\\d{2}-\\d{2}$", false],
    ["(ab)+", false],
    ["[(a+)]+", false],
    ["\\(a+\\)+", false],
    ["(a{2})+", false],
    ["(a{2,3})+", true],
    // A character class is skipped whole, escapes in it included: its ( ) | are no group.
    ["[(]a+)+", false],
    ["[\\](]a+)+", false],
    ["[|]", false],
    ["\\(a+)+", false],
    // What makes a group risky: a variable count inside (?, *, +, {n,}, {n,m}), an alternation, a risky group.
    ["(a?)+", true],
    ["(a|b)*", true],
    ["((a+))+", true],
    ["((a))+", false],
    ["x|(a)+", false],
    ["(ab{2,}c)+", true],
    ["(a{x)+", false],
    // What repeats it: more than once.
    ["(a+){2}", true],
    ["(a+){1}", false],
    ["(a+){1,}", true],
    ["(a+){0,1}", false],
    ["(a+){1,1}", false],
    ["(a+)?", false],
    ["(a+)+?", true],
    ["(a+)?+", false],
  ])("nestedQuantifier(%s) is %s", (pattern, expected) => {
    expect(nestedQuantifier(pattern)).toBe(expected);
  });

  test("a schema too large to compile is one invalid-catalog warning, not a crash", () => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i <= MAX_SCHEMA_NODES; i++) properties[`p${i}`] = { type: "string" };
    const diagnostics = lintPlan(
      { steps: [{ id: 1, tool: "t", args: { p0: 1 } }] },
      { tools: { t: { input: { type: "object", properties } } } },
    );
    expect(diagnostics.map((d) => d.code)).toEqual(["invalid-catalog"]);
    expect(diagnostics[0]!.message).toContain(`more than ${MAX_SCHEMA_NODES} nodes`);
  });

  test("a getter in a schema never runs, and a getter in the arguments is not read", () => {
    let ran = false;
    const schema = {
      type: "object",
      properties: { a: { type: "integer" } },
      get required() {
        ran = true;
        return ["a"];
      },
    };
    const args = {
      get a() {
        ran = true;
        return "x";
      },
    };
    const diagnostics = lintPlan({ steps: [{ id: 1, tool: "t", args }] }, { tools: { t: { input: schema } } });
    expect(ran).toBe(false);
    expect(diagnostics.filter((d) => ARGUMENT_CODES.has(d.code))).toEqual([]);
  });

  test("names of Object.prototype members are arguments like any other: absent unless the step has them as its own", () => {
    // The validator reads ordinary-object copies of the arguments (fast), looking at own keys only.
    const schema = JSON.parse(
      '{"type": "object", "properties": {"constructor": {"type": "string"}, "valueOf": {"type": "integer"}}, "required": ["constructor", "toString"]}',
    ) as Record<string, unknown>;
    const absent = lintPlan({ steps: [{ id: 1, tool: "t", args: {} }] }, { tools: { t: { input: schema } } });
    expect(absent.filter((d) => ARGUMENT_CODES.has(d.code)).map((d) => [d.code, d.message])).toEqual([
      ["missing-argument", 'tool "t" needs arguments "constructor" (a string) and "toString"'],
    ]);
    const args = JSON.parse('{"constructor": 3, "toString": "x", "valueOf": "y"}') as unknown;
    const present = lintPlan({ steps: [{ id: 1, tool: "t", args }] }, { tools: { t: { input: schema } } });
    expect(present.filter((d) => ARGUMENT_CODES.has(d.code)).map((d) => [d.code, d.pointer])).toEqual([
      ["invalid-argument", "/steps/0/args/constructor"],
      ["unknown-argument", "/steps/0/args/toString"],
      ["invalid-argument", "/steps/0/args/valueOf"],
    ]);
  });

  test("two tools with the same $id both compile", () => {
    const input = (type: string) => ({ $id: "https://example.com/args", type: "object", properties: { a: { type } } });
    const diagnostics = lintPlan(
      {
        steps: [
          { id: 1, tool: "x", args: { a: 1 } },
          { id: 2, tool: "y", args: { a: 1 } },
        ],
      },
      { tools: { x: { input: input("integer") }, y: { input: input("string") } } },
    );
    expect(diagnostics.map((d) => [d.code, d.pointer])).toEqual([["invalid-argument", "/steps/1/args/a"]]);
  });
});

describe("toolInput: the declared names kept for open-schema warnings", () => {
  // Only where other names are allowed and none of them is checked by a keyword: a closed schema
  // already refuses the others (its own error), and a schema for the others judges them itself.
  test.each([
    ["open: properties only", { type: "object", properties: { q: {}, n: {} } }, ["q", "n"]],
    ["open: additionalProperties true", { properties: { q: {} }, additionalProperties: true }, ["q"]],
    ["closed by additionalProperties", { properties: { q: {} }, additionalProperties: false }, undefined],
    [
      "closed by unevaluatedProperties",
      { $schema: "https://json-schema.org/draft/2020-12/schema", properties: { q: {} }, unevaluatedProperties: false },
      undefined,
    ],
    [
      "closed by unevaluatedProperties next to an open additionalProperties",
      {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        properties: { q: {} },
        additionalProperties: true,
        unevaluatedProperties: false,
      },
      undefined,
    ],
    ["the others have a schema", { properties: { q: {} }, additionalProperties: { type: "string" } }, undefined],
    ["the others have patterns", { properties: { q: {} }, patternProperties: { "^x": {} } }, undefined],
    ["no declared names", { type: "object" }, undefined],
    ["a schema that does not compile", { properties: { q: {} }, type: "no-such-type" }, undefined],
    ["a boolean schema", true, undefined],
  ])("%s", (_name, schema, names) => {
    const openNames = toolInput(schema).openNames;
    expect(openNames === undefined ? undefined : [...openNames]).toEqual(names);
  });
});
