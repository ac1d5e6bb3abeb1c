/**
 * Templates: the shared rows in test/cases/templates.json, then how values JSON cannot
 * express are turned into text (null-prototype objects, Maps, getters, cycles) as TypeScript tables.
 */
import { describe, expect, test } from "vitest";
import { formatRef } from "../../src/grammar/format.js";
import { parseRef, parseTemplate } from "../../src/grammar/parse.js";
import { evaluate } from "../../src/resolve/evaluate.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import { RefError } from "../../src/shared/errors.js";
import { expectError, loadCases, runResolveCase, thrownBy } from "../helpers/cases.js";

const TEMPLATES = { templates: true } as const;

describe("templates.json", () => {
  test.each(loadCases("templates.json"))("$name", (row) => runResolveCase(row));
});

function nullProto(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.assign(Object.create(null) as Record<string, unknown>, entries);
}

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

describe("interpolated values JSON cannot express", () => {
  const rows: [string, unknown, string][] = [
    ["a null-prototype object", nullProto({ a: 1, b: "x" }), '{"a":1,"b":"x"}'],
    ["a null-prototype object nested in an array", [nullProto({ k: nullProto({}) })], '[{"k":{}}]'],
    ["an empty null-prototype object", nullProto({}), "{}"],
    [
      "a Map as an object of its entries",
      new Map<unknown, unknown>([
        ["a", 1],
        [2, [true]],
      ]),
      '{"a":1,"2":[true]}',
    ],
    ["a Date as its ISO string", new Date(0), '"1970-01-01T00:00:00.000Z"'],
    ["an invalid Date as null", new Date(Number.NaN), "null"],
    ["NaN as String gives it", Number.NaN, "NaN"],
    ["Infinity as String gives it", Number.POSITIVE_INFINITY, "Infinity"],
    ["NaN inside JSON is null", { n: Number.NaN, i: Number.NEGATIVE_INFINITY }, '{"n":null,"i":null}'],
    ["undefined", undefined, "undefined"],
    ["undefined values are left out of objects and null in arrays", { a: undefined, b: [undefined] }, '{"b":[null]}'],
    ["a bigint", 10n, "10"],
    ["a bigint inside JSON", { n: 10n }, '{"n":10}'],
    ["a class instance as its own data", new Point(1, 2), '{"x":1,"y":2}'],
    ["an object with toJSON is not asked for it", { toJSON: () => "called", a: 1 }, '{"a":1}'],
    ["a shared (not cyclic) sub-object", ((shared) => ({ a: shared, b: shared }))({ k: 1 }), '{"a":{"k":1},"b":{"k":1}}'],
    ["-0 as 0", -0, "0"],
  ];
  test.each(rows)("%s", (_name, value, text) => {
    expect(resolveRefs({ q: "<${1}>" }, new Map([[1, value]]), TEMPLATES)["q"]).toBe(`<${text}>`);
  });

  test("getters inside an interpolated object are never invoked", () => {
    let calls = 0;
    const value = Object.defineProperty({ a: 1 }, "secret", {
      get() {
        calls++;
        return "leaked";
      },
      enumerable: true,
    });
    expect(resolveRefs({ q: "v=${1}" }, { 1: value }, TEMPLATES)["q"]).toBe('v={"a":1}');
    expect(calls).toBe(0);
  });

  test("a getter at an array index is written as null, not invoked", () => {
    let calls = 0;
    const value = Object.defineProperty([1, 2], "1", {
      get() {
        calls++;
        return "leaked";
      },
    });
    expect(resolveRefs({ q: "v=${1}" }, { 1: value }, TEMPLATES)["q"]).toBe("v=[1,null]");
    expect(calls).toBe(0);
  });

  test("a cyclic result is RefError code cycle, never a crash", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic["self"] = cyclic;
    expectError(
      thrownBy(() => resolveRefs({ q: "v=${1}" }, { 1: cyclic }, TEMPLATES)),
      { code: "cycle", arg: "/q" },
    );
  });

  test("a result nested deeper than maxDepth is RefError code limit", () => {
    let nested: unknown = "leaf";
    for (let i = 0; i < 50; i++) nested = [nested];
    expectError(
      thrownBy(() => resolveRefs({ q: "v=${1}" }, { 1: nested }, { ...TEMPLATES, maxDepth: 10 })),
      { code: "limit", arg: "/q" },
    );
    expect(resolveRefs({ q: "v=${1}" }, { 1: nested }, { ...TEMPLATES, maxDepth: 60 })["q"]).toMatch(/^v=\[{50}"leaf"\]{50}$/);
  });

  test("a Proxy that throws while being written is RefError code access", () => {
    const hostile = new Proxy(
      { a: 1 },
      {
        ownKeys() {
          throw new Error("trap");
        },
      },
    );
    expectError(
      thrownBy(() => resolveRefs({ q: "v=${1}" }, { 1: hostile }, TEMPLATES)),
      { code: "access" },
    );
  });

  test("the raw single interpolation returns the very value, whatever it is", () => {
    const value = new Point(1, 2);
    expect(resolveRefs({ q: "${1}" }, { 1: value }, TEMPLATES)["q"]).toBe(value);
  });
});

describe("parseTemplate", () => {
  test("text and reference parts with spans", () => {
    const template = parseTemplate("Weather in ${1.city} today");
    expect(template.span).toEqual({ start: 0, end: 26 });
    expect(template.parts.map((part) => [part.type, part.span.start, part.span.end])).toEqual([
      ["text", 0, 11],
      ["interpolation", 11, 20],
      ["text", 20, 26],
    ]);
  });

  test("works whatever the templates option says", () => {
    expect(parseTemplate("a ${1} b", { templates: false }).parts).toHaveLength(3);
  });

  test("a whole-string placeholder is one bare part", () => {
    const template = parseTemplate("$1.city");
    expect(template.parts).toHaveLength(1);
    expect(template.parts[0]).toMatchObject({ type: "interpolation", form: "bare", span: { start: 0, end: 7 } });
  });

  test("text without references is one text part, escapes undone", () => {
    expect(parseTemplate("$$a $${b}").parts).toEqual([{ type: "text", span: { start: 0, end: 9 }, value: "$a ${b}" }]);
  });

  test("an unclosed ${ throws RefSyntaxError with the offset", () => {
    expectError(
      thrownBy(() => parseTemplate("abc ${1.city")),
      { code: "syntax", name: "RefSyntaxError", offset: 12 },
    );
  });

  test.each([
    ["Weather in ${1.city} today"],
    ["$${literal} and ${2}"],
    ["$$5 and ${1}"],
    ["${1}"],
    ["a $ b ${1} c $"],
    ["a $${x} ${1}"],
    ["${1} $${ $$${ $$"],
  ])("the printer round-trips %j", (text) => {
    expect(formatRef(parseTemplate(text))).toBe(text);
    expect(formatRef(parseRef(text, TEMPLATES))).toBe(text);
  });

  test("a literal $ right before an interpolation cannot be printed (it would read as $${)", () => {
    const ast = parseTemplate("a ${1}");
    const [text, interpolation] = ast.parts;
    const bad = { ...ast, parts: [{ ...text!, value: "a $" }, interpolation!] } as typeof ast;
    expect(thrownBy(() => formatRef(bad))).toBeInstanceOf(RefError);
  });

  test("evaluate gives a template's text", () => {
    expect(evaluate(parseTemplate("${1.a}-${1.b}"), { 1: { a: "x", b: 2 } })).toBe("x-2");
  });
});
