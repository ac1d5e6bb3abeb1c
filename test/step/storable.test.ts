/**
 * What a step's result may be wherever it is written as JSON (src/step/storable.ts): `toStorableJSON`
 * gives the text, or the exact reason of the step's `unserializable` error for each kind of value JSON
 * would drop, change or refuse, and never throws, whatever the result (a Proxy that throws or lies).
 */
import { describe, expect, test } from "vitest";
import { MAX_RESULT_DEPTH, toStorableJSON } from "../../src/step/storable.js";
import { UNSTORABLE_RESULTS } from "../helpers/unstorable.js";

/** `levels` arrays, each inside the one before: the innermost is at depth `levels - 1`. */
function nested(levels: number): unknown {
  let value: unknown[] = [];
  for (let level = 1; level < levels; level++) value = [value];
  return value;
}

describe("toStorableJSON", () => {
  test.each([
    ["a string", "Lisbon", '"Lisbon"'],
    ["a boolean", false, "false"],
    ["a number", 21.5, "21.5"],
    ["null", null, "null"],
    ["a plain object", { city: "Lisbon", tags: ["a"] }, '{"city":"Lisbon","tags":["a"]}'],
    ["an object without prototype", Object.assign(Object.create(null) as object, { a: 1 }), '{"a":1}'],
    ["undefined itself: no text", undefined, null],
    ["a property whose value is undefined is left out, as JSON leaves it out", { a: undefined, b: 1 }, '{"b":1}'],
    [
      "an object met twice, not inside itself, is no cycle",
      ((shared) => ({ a: shared, b: [shared] }))({ x: 1 }),
      '{"a":{"x":1},"b":[{"x":1}]}',
    ],
  ])("%s is written", (_name, value, text) => {
    expect(toStorableJSON(value)).toEqual({ ok: true, text });
  });

  test.each([
    ...UNSTORABLE_RESULTS.map(([name, make, reason]) => [name, make(), reason] as const),
    ["a BigInt", { n: 1n }, "it contains a BigInt"],
    ["a symbol", [Symbol("s")], "it contains a symbol"],
    ["undefined in an array", [1, undefined], "it contains undefined in an array (JSON writes null)"],
    ["a cycle", ((cycle: Record<string, unknown>) => ((cycle["self"] = { back: cycle }), cycle))({}), "it contains a cycle"],
    ["an array inside itself", ((list: unknown[]) => (list.push([list]), list))([]), "it contains a cycle"],
  ] as const)("%s is refused", (_name, value, reason) => {
    expect(toStorableJSON(value)).toEqual({ ok: false, reason });
  });

  test(`nesting: ${MAX_RESULT_DEPTH} levels are written, one more is refused`, () => {
    const deepest = toStorableJSON(nested(MAX_RESULT_DEPTH));
    expect(deepest.ok).toBe(true);
    expect(deepest).toMatchObject({ text: `${"[".repeat(MAX_RESULT_DEPTH)}${"]".repeat(MAX_RESULT_DEPTH)}` });
    expect(toStorableJSON(nested(MAX_RESULT_DEPTH + 1))).toEqual({
      ok: false,
      reason: `it is nested deeper than ${MAX_RESULT_DEPTH} levels`,
    });
    expect(toStorableJSON({ inside: nested(MAX_RESULT_DEPTH) })).toEqual({
      ok: false,
      reason: `it is nested deeper than ${MAX_RESULT_DEPTH} levels`,
    });
  });

  test("a Proxy that throws is refused with the first line of what it threw, cut, never a throw", () => {
    const throwing = (message: string): object =>
      new Proxy(
        {},
        {
          ownKeys() {
            throw new Error(message);
          },
        },
      );
    expect(toStorableJSON({ a: throwing("keys are secret\nat line 2") })).toEqual({ ok: false, reason: "keys are secret" });
    expect(toStorableJSON(throwing("x".repeat(500)))).toEqual({ ok: false, reason: `${"x".repeat(200)}…` });
  });

  test("a key whose property vanishes while it is read (a Proxy) is skipped, not an error", () => {
    let reads = 0;
    const lying = new Proxy(
      { a: 1 },
      {
        getOwnPropertyDescriptor(target, key) {
          reads++;
          // Object.keys sees it (read 1); the check's own read finds nothing (read 2); JSON.stringify sees it again.
          return reads === 2 ? undefined : Reflect.getOwnPropertyDescriptor(target, key);
        },
      },
    );
    expect(toStorableJSON(lying)).toEqual({ ok: true, text: '{"a":1}' });
  });
});
