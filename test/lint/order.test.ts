/**
 * Diagnostics in document order (src/lint/order.ts): by where their pointer leads, then by span start,
 * then by span end; lintPlan (pointers) and lintPlanText (file offsets) agree on ties.
 */
import { describe, expect, test } from "vitest";
import { lintPlan, lintPlanText } from "../../src/lint/lint-plan.js";
import { draft } from "../../src/lint/draft.js";
import { sortByOffset, sortByPointer } from "../../src/lint/order.js";

describe("sortByPointer", () => {
  const plan = { steps: [{ id: 1, args: { b: "x", a: "y" } }] };
  test("by the position of the pointer's keys in the value, not by the pointer's text", () => {
    const sorted = sortByPointer(plan, [
      draft("limit", "error", "a", { pointer: "/steps/0/args/a" }),
      draft("limit", "error", "b", { pointer: "/steps/0/args/b" }),
    ]);
    expect(sorted.map((d) => d.message)).toEqual(["b", "a"]);
  });

  test("at one pointer: span start, then span end (as sortByOffset orders them in a file), then as given", () => {
    const at = (message: string, start: number, end: number) =>
      draft("limit", "error", message, { pointer: "/steps/0/args/a", span: { start, end } });
    const sorted = sortByPointer(plan, [at("long", 0, 9), at("later", 3, 4), at("short", 0, 2), at("short again", 0, 2)]);
    expect(sorted.map((d) => d.message)).toEqual(["short", "short again", "long", "later"]);
    const offsets = sortByOffset([at("long", 0, 9), at("later", 3, 4), at("short", 0, 2)].map((d) => ({ ...d, offset: d.span })));
    expect(offsets.map((d) => d.message)).toEqual(["short", "long", "later"]);
  });

  test("array items by index as numbers; a key the value lacks after the ones it has; a pointer's ancestor first", () => {
    const value = { steps: Array.from({ length: 11 }, (_, i) => ({ id: i, args: { a: 1 } })), output: {} };
    const at = (pointer: string) => draft("limit", "error", pointer, { pointer });
    const sorted = sortByPointer(
      value,
      ["/steps/10", "/steps/2/args/zzz", "/steps/2/args/a", "/steps/2", "/output", "", "/nothing"].map(at),
    );
    expect(sorted.map((d) => d.pointer)).toEqual([
      "",
      "/steps/2",
      "/steps/2/args/a",
      "/steps/2/args/zzz",
      "/steps/10",
      "/output",
      "/nothing",
    ]);
  });

  test("past a primitive the rest of the pointer is ignored; a hostile value keeps what was computed", () => {
    const at = (message: string, pointer: string, start?: number) =>
      draft("limit", "error", message, { pointer, ...(start === undefined ? {} : { span: { start, end: start + 1 } }) });
    expect(sortByPointer({ a: "x", b: 1 }, [at("b", "/b"), at("a deeper", "/a/0/1"), at("a", "/a")]).map((d) => d.message)).toEqual([
      "a deeper",
      "a",
      "b",
    ]);
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("trap");
        },
      },
    );
    expect(sortByPointer({ x: trap, y: 1 }, [at("y", "/y"), at("x2", "/x/k", 2), at("x1", "/x/k", 1)]).map((d) => d.message)).toEqual([
      "x1",
      "x2",
      "y",
    ]);
  });

  test("without a span a diagnostic comes before those with one at the same pointer", () => {
    const plain = draft("limit", "error", "plain", { pointer: "/steps/0/args/a" });
    const spanned = draft("limit", "error", "spanned", { pointer: "/steps/0/args/a", span: { start: 0, end: 0 } });
    expect(sortByPointer(plan, [spanned, plain]).map((d) => d.message)).toEqual(["plain", "spanned"]);
  });
});

describe("sortByOffset", () => {
  test("by start, then end, then as given; no offset counts as 0", () => {
    const item = (name: string, start?: number, end?: number) => ({
      name,
      ...(start === undefined ? {} : { offset: { start, end: end! } }),
    });
    const sorted = sortByOffset([
      item("c", 5, 9),
      item("b", 5, 6),
      item("none"),
      item("a", 0, 3),
      item("b again", 5, 6),
      item("zero", 0, 0),
    ]);
    expect(sorted.map((d) => d.name)).toEqual(["none", "zero", "a", "b", "b again", "c"]);
  });
});

test("lintPlan and lintPlanText list two diagnostics on one placeholder in the same order", () => {
  // A forward reference (span of `$9`) and a type mismatch (span of the whole placeholder), both at offset 0.
  const catalog = {
    geocode: { output: { type: "object", properties: { a: { type: "object" } } } },
    weather: { input: { type: "object", properties: { q: { type: "string" } } } },
  };
  const plan = {
    options: { syntax: "path" },
    steps: [
      { id: 0, tool: "weather", args: { q: "$9.a ?? 3" } },
      { id: 9, tool: "geocode", args: {} },
    ],
  };
  const fromValue = lintPlan(plan, { tools: catalog });
  const fromText = lintPlanText(JSON.stringify(plan), { tools: catalog }).map(({ range: _r, offset: _o, ...rest }) => rest);
  expect(fromValue.map((d) => d.code)).toEqual(["forward-ref", "type-mismatch"]);
  expect(fromText).toEqual(fromValue);
});
