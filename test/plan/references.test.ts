/**
 * The reference scanner (scanArgs, and scanSnapshot for the runner's own copies), a building block of the linter: every placeholder of a
 * step's args, with its pointer and references.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { scanArgs, scanSnapshot } from "../../src/plan/references.js";
import { normalizeOptions, type ResolveOptions } from "../../src/shared/options.js";
import { argsArbitrary, optionsArbitrary } from "../helpers/arbitraries.js";

describe("scanArgs", () => {
  const scan = (args: unknown, options?: ResolveOptions) => scanArgs(args, normalizeOptions(options));

  test("top-level placeholders in document order, with pointers and references", () => {
    const result = scan({ b: "$2.x", a: "plain", "c/d": "$1", n: 5 });
    expect(result.refs.map((r) => [r.pointer, r.text, r.references.map((n) => n.step.id)])).toEqual([
      ["/b", "$2.x", ["2"]],
      ["/c~1d", "$1", ["1"]],
    ]);
    expect(result.malformed).toEqual([]);
  });

  test("every reference of a default chain and of a template", () => {
    const path = scan({ q: '$1.a ?? $2.b ?? "x"' }, { syntax: "path" });
    expect(path.refs[0]?.references.map((n) => n.step.id)).toEqual(["1", "2"]);
    const template = scan({ q: "${3} and ${4.k}" }, { templates: true });
    expect(template.refs[0]?.references.map((n) => n.step.id)).toEqual(["3", "4"]);
  });

  test("nested placeholders are not resolved without deep, and are with it", () => {
    const args = { f: { city: "$1.city" }, l: ["$2"] };
    const flat = scan(args);
    expect(flat.refs).toEqual([]);
    expect(flat.unresolvedNested.map((n) => n.pointer)).toEqual(["/f/city", "/l/0"]);
    const deep = scan(args, { deep: true });
    expect(deep.refs.map((r) => r.pointer)).toEqual(["/f/city", "/l/0"]);
    expect(deep.unresolvedNested).toEqual([]);
  });

  test("malformed strings are classified strictly; plain text is not", () => {
    const result = scan({ a: "$1.", b: "$1 .x", c: "$5 off", d: "price $1", e: "$x" });
    expect(result.malformed.map((m) => [m.pointer, m.error.code])).toEqual([
      ["/a", "syntax"],
      ["/b", "syntax"],
      ["/c", "syntax"],
    ]);
  });

  test("template-like text while templates are off, only where the resolver reads", () => {
    const result = scan({ a: "in ${1.city}", b: "${HOME}", c: { d: "in ${2}" } });
    expect(result.templateLike.map((t) => t.pointer)).toEqual(["/a"]);
    expect(scan({ a: "in ${1.city}" }, { templates: true }).templateLike).toEqual([]);
    expect(scan({ c: { d: "in ${2}" } }, { deep: true }).templateLike.map((t) => t.pointer)).toEqual(["/c/d"]);
  });

  test("too deep for maxDepth: reported with deep only, at the first container past the limit", () => {
    const args = { a: { b: { c: { d: "$1" } } } };
    expect(scan(args, { deep: true, maxDepth: 2 }).tooDeep).toBe("/a/b/c");
    expect(scan(args, { maxDepth: 2 }).tooDeep).toBeUndefined();
    expect(scan(args, { deep: true }).tooDeep).toBeUndefined();
  });

  test("deeply nested args do not overflow the stack", () => {
    let args: unknown = "$1";
    for (let i = 0; i < 50_000; i++) args = { x: args };
    const result = scan({ root: args }, { deep: true, maxDepth: 100_000 });
    expect(result.refs.length).toBe(1);
    expect(result.refs[0]?.pointer.split("/").length).toBe(50_002);
  });

  test("getters are never invoked", () => {
    let ran = false;
    const args = {
      get q() {
        ran = true;
        return "$1";
      },
    };
    expect(scan(args).refs).toEqual([]);
    expect(ran).toBe(false);
  });
});

describe("scanSnapshot (the runner's scan of its own snapshots)", () => {
  test("gives what scanArgs gives on values with own data properties only (generated)", () => {
    fc.assert(
      fc.property(argsArbitrary, optionsArbitrary, (args, given) => {
        const options = normalizeOptions(given);
        expect(scanSnapshot(args, options)).toEqual(scanArgs(args, options));
      }),
      { numRuns: 1000 },
    );
  });
});
