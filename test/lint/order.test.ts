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
    const sorted = sortByPointer(plan, [draft("limit", "error", "a", { pointer: "/steps/0/args/a" }), draft("limit", "error", "b", { pointer: "/steps/0/args/b" })]);
    expect(sorted.map((d) => d.message)).toEqual(["b", "a"]);
  });

  test("at one pointer: span start, then span end (as sortByOffset orders them in a file), then as given", () => {
    const at = (message: string, start: number, end: number) => draft("limit", "error", message, { pointer: "/steps/0/args/a", span: { start, end } });
    const sorted = sortByPointer(plan, [at("long", 0, 9), at("later", 3, 4), at("short", 0, 2), at("short again", 0, 2)]);
    expect(sorted.map((d) => d.message)).toEqual(["short", "short again", "long", "later"]);
    const offsets = sortByOffset([at("long", 0, 9), at("later", 3, 4), at("short", 0, 2)].map((d) => ({ ...d, offset: d.span })));
    expect(offsets.map((d) => d.message)).toEqual(["short", "long", "later"]);
  });
});

test("lintPlan and lintPlanText list two diagnostics on one placeholder in the same order", () => {
  // A forward reference (span of `$9`) and a type mismatch (span of the whole placeholder), both at offset 0.
  const catalog = {
    geocode: { output: { type: "object", properties: { a: { type: "object" } } } },
    weather: { input: { type: "object", properties: { q: { type: "string" } } } },
  };
  const plan = { options: { syntax: "path" }, steps: [{ id: 0, tool: "weather", args: { q: "$9.a ?? 3" } }, { id: 9, tool: "geocode", args: {} }] };
  const fromValue = lintPlan(plan, { tools: catalog });
  const fromText = lintPlanText(JSON.stringify(plan), { tools: catalog }).map(({ range: _r, offset: _o, ...rest }) => rest);
  expect(fromValue.map((d) => d.code)).toEqual(["forward-ref", "type-mismatch"]);
  expect(fromText).toEqual(fromValue);
});
