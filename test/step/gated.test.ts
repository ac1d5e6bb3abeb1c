/**
 * The approval rule both executors ask when a step's turn comes (src/step/gated.ts): whether a step of a
 * tool asks before it runs (`asksApproval`: named in `approvalTools`, or its function marked with
 * `requireApproval`), and the mark itself (kept off the function, so a tools object cannot forge it).
 */
import { describe, expect, test } from "vitest";
import { approvalRuleOf, asksApproval, denialOf, denyCall, requireApproval } from "../../src/step/gated.js";

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

describe("denyCall and denialOf", () => {
  test.each([
    ["a denial denyCall made", denyCall("blocked by policy"), "blocked by policy"],
    ["its reason as text", denyCall(42 as unknown as string), "42"],
    ["an object shaped like one is none", { reason: "blocked by policy" }, undefined],
    ["a frozen look-alike is none", Object.freeze({ reason: "x" }), undefined],
    ["true", true, undefined],
    ["a string", "denied", undefined],
    ["null", null, undefined],
  ] as const)("%s", (_name, answer, reason) => {
    expect(denialOf(answer)?.reason).toBe(reason);
  });

  test("a denial cannot be changed after it was made", () => {
    const denial = denyCall("blocked");
    expect(Object.isFrozen(denial)).toBe(true);
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
