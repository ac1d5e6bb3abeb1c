/**
 * The approval rule both executors ask when a step's turn comes (src/step/gated.ts): whether a step of a
 * tool asks before it runs (`asksApproval`: named in `approvalTools`, or its function marked with
 * `requireApproval`), and the mark itself (kept off the function, so a tools object cannot forge it).
 */
import { describe, expect, test } from "vitest";
import { RefError } from "../../src/shared/errors.js";
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

  // Each function is marked inside its test: what a rule answers is decided when requireApproval runs.
  test.each([
    ["no rule: every call asks", undefined, { amount: 1 }, true],
    ["true: every call asks", true, { amount: 1 }, true],
    ["a rule: it answers for each call (held)", (args: Record<string, unknown>) => Number(args["amount"]) > 100, { amount: 500 }, true],
    ["a rule: it answers for each call (runs)", (args: Record<string, unknown>) => Number(args["amount"]) > 100, { amount: 5 }, false],
  ] as const)("requireApproval(fn, %s)", (_name, rule, args, holds) => {
    const fn = (): string => "paid";
    const same = rule === undefined ? requireApproval(fn) : requireApproval(fn, rule);
    expect(same).toBe(fn);
    expect(approvalRuleOf(fn)?.(args, { id: 1, tool: "pay" })).toBe(holds);
    expect(asksApproval(undefined, "pay", fn)).toBe(true);
  });

  test("false leaves the function unmarked", () => {
    const fn = (): number => 1;
    expect(requireApproval(fn, false)).toBe(fn);
    expect(approvalRuleOf(fn)).toBeUndefined();
    expect(asksApproval(undefined, "pay", fn)).toBe(false);
  });

  test.each([
    ["a string", "pay", true, "requireApproval takes a tool function"],
    ["an object", { call: (): number => 1 }, true, "requireApproval takes a tool function"],
    ["undefined", undefined, true, "requireApproval takes a tool function"],
    ["a string rule", (): number => 1, "yes", "requireApproval's rule must be a boolean or a function of the step's resolved arguments"],
    ["a number rule", (): number => 1, 1, "requireApproval's rule must be a boolean or a function of the step's resolved arguments"],
    ["a null rule", (): number => 1, null, "requireApproval's rule must be a boolean or a function of the step's resolved arguments"],
    [
      "an object rule",
      (): number => 1,
      { holds: true },
      "requireApproval's rule must be a boolean or a function of the step's resolved arguments",
    ],
  ] as const)("what is no function or no rule is refused with invalid-options: %s", (_name, fn, rule, message) => {
    let thrown: unknown;
    try {
      requireApproval(fn as never, rule as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RefError);
    expect(thrown).toMatchObject({ code: "invalid-options", message });
    if (typeof fn === "function") expect(approvalRuleOf(fn)).toBeUndefined();
  });
});
