/** The one reading policy for untrusted values: own data properties only, getters never run. */
import { describe, expect, test } from "vitest";
import {
  defineOwn,
  isPlainArray,
  isPlainObject,
  MISSING,
  ownData,
  ownDataEntries,
  ownElements,
  readOwnData,
} from "../../src/shared/own-data.js";

const trap = (): never => {
  throw new Error("getter ran");
};
const withGetter = Object.defineProperty({ a: 1 }, "g", { get: trap, enumerable: true });

describe("src/shared/own-data.ts", () => {
  test("plain objects and arrays only", () => {
    expect([{}, Object.create(null)].map(isPlainObject)).toEqual([true, true]);
    expect([[], new Map(), new Date(), null, "x", Object.create({})].map(isPlainObject)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect([[1], new (class extends Array {})(), {}].map(isPlainArray)).toEqual([true, false, false]);
  });

  test("readOwnData and ownData: accessors and inherited members are missing, getters never run", () => {
    expect(readOwnData(withGetter, "a")).toBe(1);
    expect(readOwnData(withGetter, "g")).toBe(MISSING);
    expect(readOwnData({}, "toString")).toBe(MISSING);
    expect(readOwnData([5], 0)).toBe(5);
    expect(ownData(withGetter, "g")).toBeUndefined();
    expect(ownData({}, "constructor")).toBeUndefined();
    expect(ownData("text", "length")).toBeUndefined();
    expect(ownData(null, "a")).toBeUndefined();
    expect(ownData(JSON.parse('{"__proto__":1}'), "__proto__")).toBe(1);
  });

  test("ownDataEntries and ownElements leave accessors and holes out", () => {
    expect(ownDataEntries(withGetter)).toEqual([["a", 1]]);

    const sparse = ["a", , "c"];
    Object.defineProperty(sparse, 3, { get: trap, enumerable: true });
    expect(ownElements(sparse)).toEqual([
      ["a", 0],
      ["c", 2],
      [undefined, 3],
    ]);
    expect(ownElements({ 0: "x" })).toEqual([]);
    const huge: unknown[] = [];
    huge.length = 2 ** 32 - 1;
    expect(ownElements(huge)).toEqual([]);
  });

  test("defineOwn writes __proto__ as a plain key", () => {
    const target: Record<string, unknown> = {};
    defineOwn(target, "__proto__", 1);
    expect(Object.keys(target)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
  });

  const fullData = (value: unknown) => ({ value, writable: true, enumerable: true, configurable: true });

  test.each([
    ["a plain object", () => ({}), Object.prototype],
    ["a null-prototype object", () => Object.create(null) as Record<string, unknown>, null],
    ["an array", () => [], Array.prototype],
  ])(
    "defineOwn on %s: every key, __proto__ and inherited names included, becomes a writable, enumerable, configurable own data property",
    (_kind, make, proto) => {
      const target = make();
      const keys = ["a", "__proto__", "toString", "constructor", "0", "hasOwnProperty"];
      keys.forEach((key, i) => defineOwn(target, key, i));
      expect(Object.getPrototypeOf(target)).toBe(proto);
      for (const [i, key] of keys.entries()) expect(Object.getOwnPropertyDescriptor(target, key), key).toEqual(fullData(i));
      // Written again: overwritten in place, order kept.
      defineOwn(target, "__proto__", "again");
      defineOwn(target, "a", "again");
      expect(Object.getOwnPropertyDescriptor(target, "__proto__")).toEqual(fullData("again"));
      expect(Object.getOwnPropertyDescriptor(target, "a")).toEqual(fullData("again"));
      expect(Object.keys(target)).toEqual(["0", "a", "__proto__", "toString", "constructor", "hasOwnProperty"]);
    },
  );

  test("defineOwn's plain writes are safe: the built-in prototypes have no setter but __proto__ (none polluted in this run)", () => {
    // A plain assignment runs an inherited setter; defineOwn assigns every key but __proto__, so this must hold.
    for (const proto of [Object.prototype, Array.prototype]) {
      const setters = Object.getOwnPropertyNames(proto).filter((key) => Object.getOwnPropertyDescriptor(proto, key)!.set !== undefined);
      expect(setters).toEqual(proto === Object.prototype ? ["__proto__"] : []);
    }
  });
});
