/**
 * The approval rule both executors ask when a step's turn comes (src/step/gated.ts): whether a step of a
 * tool asks before it runs (`asksApproval`: named in `approvalTools`, or its function marked with
 * `requireApproval`), and the mark itself (kept off the function, so a tools object cannot forge it).
 */
import { describe, expect, test } from "vitest";
import { approvalRuleOf, asksApproval, requireApproval } from "../../src/step/gated.js";

const plain = (): string => "sent";
const marked = requireApproval(() => "paid");
const ruled = requireApproval(
  () => "paid",
  (args) => Number(args.amount) > 100,
);

describe("asksApproval", () => {
  test.each([
    ["named in approvalTools, unmarked", new Set(["send"]), "send", plain, true],
    ["marked, named nowhere", undefined, "pay", marked, true],
    ["marked with a rule: it asks (the rule answers)", new Set<string>(), "pay", ruled, true],
    ["named and marked", new Set(["pay"]), "pay", marked, true],
    ["unmarked, approvalTools names other tools", new Set(["pay"]), "send", plain, false],
    ["unmarked, no approvalTools", undefined, "send", plain, false],
    ["no function (a tool this executor lacks), named", new Set(["send"]), "send", undefined, true],
    ["no function, named nowhere", undefined, "send", undefined, false],
    ["a value that is no function is never marked", undefined, "send", { marked: true }, false],
  ] as const)("%s", (_name, approvalTools, tool, fn, expected) => {
    expect(asksApproval(approvalTools, tool, fn)).toBe(expected);
  });
});

describe("requireApproval and approvalRuleOf", () => {
  test("the mark is on the function it was given, and nowhere on the function object", () => {
    expect(approvalRuleOf(marked)?.({}, { id: 1, tool: "pay" })).toBe(true);
    expect(approvalRuleOf(ruled)?.({ amount: 50 }, { id: 1, tool: "pay" })).toBe(false);
    expect(approvalRuleOf(plain)).toBeUndefined();
    expect(Object.getOwnPropertyNames(marked).sort()).toEqual(Object.getOwnPropertyNames(() => undefined).sort());
  });

  test("false leaves the function unmarked; what is no function or no rule is refused with invalid-options", () => {
    const fn = (): number => 1;
    expect(approvalRuleOf(requireApproval(fn, false))).toBeUndefined();
    expect(() => requireApproval("pay" as never)).toThrow(expect.objectContaining({ code: "invalid-options" }));
    expect(() => requireApproval(fn, "yes" as never)).toThrow(expect.objectContaining({ code: "invalid-options" }));
  });
});
