/**
 * Comparing another form of resolution with `resolveRefs` (compileArgs, the runner's in-place
 * resolution of snapshots): what a call gave, and one assertion that two outcomes are the same.
 */
import { expect } from "vitest";
import { RefError } from "../../src/shared/errors.js";

export type Outcome = { ok: true; value: Record<string, unknown> } | { ok: false; error: unknown };

export function outcome(run: () => Record<string, unknown>): Outcome {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * The containers of an output in walk order, each as the index of its first appearance (aliasing) and
 * whether it is the very object found at the same place in `args` (structural sharing).
 */
export function sharing(output: unknown, args: unknown): string[] {
  const seen = new Map<object, number>();
  const profile: string[] = [];
  const walk = (value: unknown, original: unknown, pointer: string, depth: number): void => {
    if (typeof value !== "object" || value === null || depth > 12) return;
    const first = seen.get(value);
    const proto: unknown = Object.getPrototypeOf(value);
    const kind = proto === null ? "null-prototype" : proto === Object.prototype ? "object" : Array.isArray(value) ? "array" : "other";
    profile.push(`${pointer}:${first ?? seen.size}:${value === original ? "same" : "new"}:${kind}`);
    if (first !== undefined) return;
    seen.set(value, seen.size);
    if (!Array.isArray(value) && !(Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)) return;
    for (const key of Object.keys(value)) {
      const inner =
        typeof original === "object" && original !== null && Object.hasOwn(original, key)
          ? (original as Record<string, unknown>)[key]
          : undefined;
      walk((value as Record<string, unknown>)[key], inner, `${pointer}/${key}`, depth + 1);
    }
  };
  walk(output, args, "", 0);
  return profile;
}

/**
 * `actual` is what `resolveRefs` gave as `expected`: the same output (plain prototype, keys in order,
 * each non-object value the very same) or the same error (class, code, argument pointer, message).
 * With `args`, containers are also shared with `args` exactly where resolveRefs shares them.
 */
export function expectSameOutcome(actual: Outcome, expected: Outcome, args?: unknown): void {
  if (expected.ok) {
    if (!actual.ok) throw actual.error;
    expect(actual.value).toStrictEqual(expected.value);
    expect(Object.getPrototypeOf(actual.value)).toBe(Object.prototype);
    expect(Object.keys(actual.value)).toEqual(Object.keys(expected.value));
    for (const key of Object.keys(expected.value))
      expect(Object.is(actual.value[key], expected.value[key]) || typeof expected.value[key] === "object", key).toBe(true);
    if (args !== undefined) expect(sharing(actual.value, args)).toEqual(sharing(expected.value, args));
    return;
  }
  expect(actual.ok, "succeeded where resolveRefs threw").toBe(false);
  if (actual.ok) return;
  const want = expected.error as RefError;
  const got = actual.error as RefError;
  expect(got).toBeInstanceOf(RefError);
  expect({ name: got.name, code: got.code, arg: got.arg, message: got.message }).toEqual({
    name: want.name,
    code: want.code,
    arg: want.arg,
    message: want.message,
  });
}
