/**
 * Assertions written for mutants that survived the Stryker run over src/grammar/ast.ts, cache.ts,
 * format.ts and language.ts: each test pins a behaviour that no other test pinned exactly (the visitor
 * contract of walkAst, the messages of readableNode and assertNever, long default chains walked and
 * printed without recursion, BoundedCache sizes and resizing, the printer's special cases, the safe
 * `parse` of the language rules). Grouped by source file.
 */
import { describe, expect, test } from "vitest";
import type { AstNode, DefaultNode, LiteralNode, RefAst, ReferenceNode, TemplateNode } from "../src/grammar/ast.js";
import { assertNever, readableNode, referencesIn, walkAst } from "../src/grammar/ast.js";
import { BoundedCache } from "../src/grammar/cache.js";
import { formatRef } from "../src/grammar/format.js";
import { pathLanguage, runRule, seedLanguage } from "../src/grammar/language.js";
import { parseRef, parseTemplate } from "../src/grammar/parse.js";
import { RefError } from "../src/shared/errors.js";
import { thrownBy } from "./helpers/cases.js";

const SPAN = { start: 0, end: 0 };

function reference(id: string, syntax: "seed" | "path" = "path"): ReferenceNode {
  return { type: "reference", span: SPAN, syntax, step: { type: "step", span: SPAN, digits: id, id }, path: [] };
}

/** `$1 ?? $2 ?? … ?? $length ?? "end"`, built directly (a parser would not take text this long). */
function longChain(length: number): DefaultNode {
  let node: DefaultNode | LiteralNode = { type: "literal", span: SPAN, value: "end" };
  for (let i = length; i >= 1; i--) node = { type: "default", span: SPAN, reference: reference(String(i)), fallback: node };
  return node as DefaultNode;
}

const CHAIN_LENGTH = 50_000;
const chain = longChain(CHAIN_LENGTH);

function template(...parts: unknown[]): TemplateNode {
  return { type: "template", span: SPAN, parts } as unknown as TemplateNode;
}

describe("ast.ts: walkAst", () => {
  test("visits every node, parents before children, with each node's parent", () => {
    const ast = parseRef("$1.a ?? $2", { syntax: "path" });
    const seen: [string, string | undefined][] = [];
    walkAst(ast, (node, parent) => seen.push([node.type, parent?.type]));
    expect(seen).toEqual([
      ["default", undefined],
      ["reference", "default"],
      ["step", "reference"],
      ["key", "reference"],
      ["reference", "default"],
      ["step", "reference"],
    ]);
  });

  test.each([undefined, null, "visit", 42, {}])("a visit that is not a function (%s) is a RefError code invalid-args that says so", (visit) => {
    const error = thrownBy(() => walkAst(parseRef("$1"), visit as never)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("invalid-args");
    expect(error.message).toBe("walkAst needs a visit function");
  });

  test.each([
    ["an Error", new TypeError("visitor failed")],
    ["a RangeError", new RangeError("visitor range")],
    ["a non-Error value", { reason: "thrown object" }],
    ["a RefError", new RefError("missing-key", "from the visitor")],
  ])("an error thrown by the visitor (%s) comes out as it is, and the walk stops", (_name, thrown) => {
    const seen: string[] = [];
    const caught = thrownBy(() =>
      walkAst(parseRef("$1.a"), (node) => {
        seen.push(node.type);
        if (node.type === "step") throw thrown;
      }),
    );
    expect(caught).toBe(thrown);
    expect(seen).toEqual(["reference", "step"]);
  });

  test.each([
    ["undefined", undefined, "expected an AST node, not undefined"],
    ["null", null, "expected an AST node, not null"],
    ["a string", "$1", "expected an AST node, not string"],
    ["a number", 7, "expected an AST node, not number"],
  ])("walking %s is a RefError code syntax and never calls the visitor", (_name, node, message) => {
    const seen: unknown[] = [];
    const error = thrownBy(() => walkAst(node as never, (child) => seen.push(child))) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("syntax");
    expect(error.message).toBe(message);
    expect(seen).toEqual([]);
  });

  test("a node that cannot be read is a RefError code access, not the raw TypeError", () => {
    const error = thrownBy(() => walkAst({ type: "reference" } as unknown as AstNode, () => undefined)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("access");
    expect(error.message).toContain("could not read the AST");
  });

  test("a 50,000-long default chain is walked without exhausting the stack, every node once, in order", () => {
    let defaults = 0;
    let references = 0;
    let literals = 0;
    let lastStep = "";
    let ordered = true;
    walkAst(chain, (node) => {
      if (node.type === "default") defaults++;
      else if (node.type === "reference") references++;
      else if (node.type === "literal") literals++;
      else if (node.type === "step") {
        if (Number(node.id) !== Number(lastStep) + 1) ordered = false;
        lastStep = node.id;
      }
    });
    expect({ defaults, references, literals, lastStep, ordered }).toEqual({ defaults: CHAIN_LENGTH, references: CHAIN_LENGTH, literals: 1, lastStep: String(CHAIN_LENGTH), ordered: true });
  });
});

describe("ast.ts: referencesIn and readableNode", () => {
  test("referencesIn finds every reference of a 50,000-long default chain, in source order", () => {
    const found = referencesIn(chain);
    expect(found).toHaveLength(CHAIN_LENGTH);
    expect(found[0]!.step.id).toBe("1");
    expect(found[CHAIN_LENGTH - 1]!.step.id).toBe(String(CHAIN_LENGTH));
  });

  test("readableNode gives back an object node itself", () => {
    const node = parseRef("$1");
    expect(readableNode(node)).toBe(node);
  });

  test.each([
    ["undefined", undefined, "expected an AST node, not undefined"],
    ["null", null, "expected an AST node, not null"],
    ["a string", "x", "expected an AST node, not string"],
    ["a boolean", true, "expected an AST node, not boolean"],
  ])("readableNode(%s) is a RefError code syntax naming what it got", (_name, value, message) => {
    const error = thrownBy(() => readableNode(value)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("syntax");
    expect(error.message).toBe(message);
  });
});

describe("ast.ts: assertNever", () => {
  test.each([
    ["an object node names its type", { type: "mystery" }, "unexpected AST node of type mystery"],
    ["an object without a type says undefined", { kind: "x" }, "unexpected AST node of type undefined"],
    ["null says null", null, "unexpected AST node of type null"],
    ["undefined says undefined", undefined, "unexpected AST node of type undefined"],
    ["a string is its own type", "weird", "unexpected AST node of type weird"],
    ["a number is its own type", 12, "unexpected AST node of type 12"],
  ])("%s, as a RefError code syntax", (_name, value, message) => {
    const error = thrownBy(() => assertNever(value as never)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("syntax");
    expect(error.message).toBe(message);
  });

  test("formatRef of a node of unknown type names that type", () => {
    const error = thrownBy(() => formatRef({ type: "mystery" } as unknown as RefAst)) as RefError;
    expect(error.code).toBe("syntax");
    expect(error.message).toBe("unexpected AST node of type mystery");
  });
});

describe("cache.ts: BoundedCache", () => {
  test("size counts both generations", () => {
    const cache = new BoundedCache<number>(4); // generations of 2
    cache.set("a", 1);
    cache.set("b", 2); // young is full: a and b become the old generation
    cache.set("c", 3);
    expect(cache.size).toBe(3);
    expect(cache.get("c")).toBe(3); // a young hit: nothing moves
    expect(cache.size).toBe(3);
  });

  test("resize(0) drops every entry and keeps none afterwards", () => {
    const cache = new BoundedCache<number>(4);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("c", 3);
    cache.resize(0);
    expect(cache.maxEntries).toBe(0);
    expect(cache.size).toBe(0);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("c")).toBeUndefined();
    cache.set("d", 4);
    expect(cache.size).toBe(0);
    expect(cache.get("d")).toBeUndefined();
  });

  test("resize to a smaller bound keeps the most recent entries", () => {
    const cache = new BoundedCache<number>(10);
    for (const [i, key] of ["a", "b", "c", "d"].entries()) cache.set(key, i);
    cache.resize(2); // generation 1: only the most recent entry stays
    expect(cache.size).toBe(1);
    expect(cache.get("d")).toBe(3);
    expect(cache.get("a")).toBeUndefined();
  });

  test("setting a key again replaces its value without growing the cache", () => {
    const cache = new BoundedCache<string>(10);
    cache.set("a", "first");
    cache.set("a", "second");
    expect(cache.size).toBe(1);
    expect(cache.get("a")).toBe("second");
  });
});

describe("format.ts: formatRef", () => {
  test("a 50,000-long default chain prints without exhausting the stack", () => {
    const text = formatRef(chain);
    expect(text.startsWith("$1 ?? $2 ?? $3 ?? ")).toBe(true);
    expect(text.endsWith(` ?? $${CHAIN_LENGTH} ?? "end"`)).toBe(true);
    expect(text.split(" ?? ")).toHaveLength(CHAIN_LENGTH + 1);
  });

  test.each([
    ["a default chain ending in a node of unknown type", { type: "default", span: SPAN, reference: reference("1"), fallback: { type: "mystery", span: SPAN } }],
    ["an interpolation whose expression is of unknown type", template({ type: "interpolation", span: SPAN, form: "braced", expression: { type: "mystery", span: SPAN } })],
  ])("%s is a RefError code syntax naming the type, not text with a hole", (_name, ast) => {
    const error = thrownBy(() => formatRef(ast as unknown as RefAst)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("syntax");
    expect(error.message).toBe("unexpected AST node of type mystery");
  });

  test.each([
    [
      "a bare interpolation followed by text prints braced, with the text",
      template({ type: "interpolation", span: SPAN, form: "bare", expression: reference("1", "seed") }, { type: "text", span: SPAN, value: " x" }),
      "${1} x",
    ],
    [
      "two bare interpolations print braced, both",
      template({ type: "interpolation", span: SPAN, form: "bare", expression: reference("1", "seed") }, { type: "interpolation", span: SPAN, form: "bare", expression: reference("2", "seed") }),
      "${1}${2}",
    ],
    ["a single text part prints as its text even with a stray form field", template({ type: "text", span: SPAN, value: "abc", form: "bare" }), "abc"],
    ["a template whose only part is a hole (sparse array) prints as nothing", ({ type: "template", span: SPAN, parts: new Array<unknown>(1) }) as unknown as TemplateNode, ""],
    [
      "a default interpolation is not checked as a seed reference, even with a stray syntax field",
      template({ type: "interpolation", span: SPAN, form: "braced", expression: { type: "default", span: SPAN, syntax: "seed", reference: parseRef('$1["}"]', { syntax: "path" }), fallback: { type: "literal", span: SPAN, value: "x" } } }),
      '${1["}"] ?? "x"}',
    ],
  ])("%s", (_name, ast, expected) => {
    expect(formatRef(ast)).toBe(expected);
  });

  test.each([
    ["a $ that starts a later text part is not doubled", "${1}$x"],
    ["a $ after text and an interpolation stays single", "a${1}$ b"],
    ["a leading $ is doubled, a later one is not", "$$a${1}$"],
  ])("%s", (_name, text) => {
    expect(formatRef(parseTemplate(text))).toBe(text);
  });

  test("the lead doubling applies to the first part only (hand-built)", () => {
    const ast = template({ type: "text", span: SPAN, value: "$a" }, { type: "interpolation", span: SPAN, form: "braced", expression: reference("1", "seed") }, { type: "text", span: SPAN, value: "$b" });
    expect(formatRef(ast)).toBe("$$a${1}$b");
  });
});

describe("language.ts: the rules' safe parse", () => {
  test.each([
    ["seed placeholder", seedLanguage.placeholder],
    ["path placeholder", pathLanguage.placeholder],
    ["seed template", seedLanguage.template],
    ["path step", pathLanguage.step],
  ])("%s: parse of a non-string is a RefError code syntax that says a string is needed", (_name, rule) => {
    const error = thrownBy(() => rule.parse(42 as unknown as string)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("syntax");
    expect(error.message).toBe("a reference must be a string");
  });

  test("parse of a string still works", () => {
    const result = seedLanguage.placeholder.parse("$1.a");
    expect(result.status).toBe(true);
  });
});

describe("language.ts: what the rules report, read without the parse cache", () => {
  test.each([
    ["seed", "$1.", 3, ["a key"]],
    ["path", "$1.", 3, ["a key"]],
    ["seed", "$1\n", 2, ["'.'", "EOF"]],
    ["path", "$1\n", 2, ["'.'", "'['", "??", "EOF"]],
    ["path", "$1.a\n", 4, ["'.'", "'['", "??", "EOF"]],
  ] as const)("%s placeholder %j fails at %d expecting %j (sorted, no repeats)", (syntax, text, offset, expected) => {
    const result = runRule((syntax === "seed" ? seedLanguage : pathLanguage).placeholder, text);
    expect(result).toEqual({ ok: false, offset, expected });
  });

  test("the exported rules' parse() counts lines up to the failure, not past it", () => {
    // The failure is at the newline itself: it is still on line 1.
    expect((seedLanguage.placeholder as unknown as { parse(text: string): unknown }).parse("$1\nx")).toEqual({
      status: false,
      index: { offset: 2, line: 1, column: 3 },
      expected: ["'.'", "EOF"],
    });
    expect((pathLanguage.template as unknown as { parse(text: string): unknown }).parse("a\n${1.")).toEqual({
      status: false,
      index: { offset: 6, line: 2, column: 5 },
      expected: ["a key"],
    });
  });
});
