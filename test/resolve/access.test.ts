/**
 * Reading results safely (src/resolve/access.ts): what each reader returns, and what its errors say.
 */
import { describe, expect, test } from "vitest";
import { evaluate, KeyError, parseRef, RefError } from "../../src/index.js";
import type { Results } from "../../src/resolve/access.js";
import { accessError, keySample, sizeOf, stackLimit } from "../../src/resolve/access.js";
import { thrownBy } from "../helpers/cases.js";

/** Evaluate a path-syntax reference. */
function ref(text: string, results: unknown): unknown {
  return evaluate(parseRef(text, { syntax: "path" }), results as Results, { source: text });
}

/** The error `run` throws (fails the test when it throws nothing). */
const thrown = (run: () => unknown): RefError => thrownBy(run) as RefError;

const ghostDescriptor = { value: "ghost", writable: true, enumerable: true, configurable: true };

/** An array Proxy that reports a "ghost" own element at every index it does not have: only bounds checks keep it out. */
function ghostArray(items: unknown[]): unknown[] {
  return new Proxy(items, {
    getOwnPropertyDescriptor(target, key) {
      return (
        Reflect.getOwnPropertyDescriptor(target, key) ?? (typeof key === "string" && /^[0-9]+$/.test(key) ? ghostDescriptor : undefined)
      );
    },
  });
}

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

class Thing {
  a = 1;
}

function keyed(count: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]));
}
// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("src/resolve/access.ts", () => {
  describe("accessError / guarded: a throwing read names what was read", () => {
    const boom = (): Error => new Error("boom");
    const throwingObject = new Proxy(
      {},
      {
        getOwnPropertyDescriptor() {
          throw boom();
        },
      },
    );

    test.each([
      ["$1.city", `could not read key "city": boom`],
      ['$1.city ?? "x"', `could not read key "city": boom`],
    ])("%s on an object whose descriptor trap throws", (text, message) => {
      const error = thrown(() => ref(text, { 1: throwingObject }));
      expect(error).toBeInstanceOf(RefError);
      expect(error.code).toBe("access");
      expect(error.message).toBe(message);
      expect((error as Error & { cause?: unknown }).cause).toBeInstanceOf(Error);
    });

    test("a lazily named read and a plainly named read give the same message", () => {
      expect(accessError(() => "the thing", new Error("e")).message).toBe("could not read the thing: e");
      expect(accessError("the thing", new Error("e")).message).toBe("could not read the thing: e");
      expect(accessError(() => "the thing", new Error("e")).code).toBe("access");
    });
  });

  test("stackLimit turns a foreign error into an access error about the input, a RangeError into a limit", () => {
    const access = stackLimit(new TypeError("bad"));
    expect(access.code).toBe("access");
    expect(access.message).toBe("could not read the input: bad");
    expect(stackLimit(new RangeError("Maximum call stack size exceeded")).code).toBe("limit");
  });

  describe("readStep: an array of results is read only within its length", () => {
    const results = ghostArray(["a", "b"]);

    test.each(["$2", "$5", "$99"])("%s is a missing step even when the array reports an element there", (text) => {
      const error = thrown(() => ref(text, results));
      expect(error).toBeInstanceOf(KeyError);
      expect(error.code).toBe("missing-step");
    });

    test("a step beyond the array's length falls back to the default", () => {
      expect(ref('$2 ?? "none"', results)).toBe("none");
      expect(ref("$1", results)).toBe("b");
    });
  });

  describe("readKey: null and undefined cannot take a key", () => {
    test.each([
      [null, "null"],
      [undefined, "undefined"],
    ])("a key of %s is not-indexable", (value, described) => {
      const error = thrown(() => ref("$1.city", { 1: value }));
      expect(error).toBeInstanceOf(KeyError);
      expect(error.code).toBe("not-indexable");
      expect(error.message).toBe(`$1.city: step 1's result is ${described}, which cannot take a key (only objects and Maps have keys)`);
    });

    test.each([null, undefined])("a key of %s falls back to the default", (value) => {
      expect(ref('$1.city ?? "d"', { 1: value })).toBe("d");
    });
  });

  describe("readIndex: an array is read only at safe indexes within its length", () => {
    const results = { 1: ghostArray(["a", "b"]) };

    test.each([
      ["$1[2]", 2],
      ["$1[7]", 7],
      ["$1[99999999999999999999]", 1e20],
    ])("%s is a missing index even when the array reports an element there", (text, key) => {
      const error = thrown(() => ref(text, results)) as KeyError;
      expect(error).toBeInstanceOf(KeyError);
      expect(error.code).toBe("missing-key");
      expect(error.key).toBe(key);
    });

    test("an index at the length is missing, with the length in the message", () => {
      expect(thrown(() => ref("$1[2]", results)).message).toBe("$1[2]: step 1's result has no index 2 (length 2)");
      expect(ref("$1[1]", results)).toBe("b");
      expect(ref('$1[2] ?? "none"', results)).toBe("none");
    });
  });

  describe("keySample: at most `max` own keys, none for a non-container", () => {
    test.each([
      ["a string", "abc"],
      ["a number", 42],
      ["null", null],
      ["undefined", undefined],
      ["a revoked Proxy", revoked()],
    ])("%s lists no keys", (_, value) => {
      expect(keySample(value).keys).toEqual([]);
    });

    test("an object lists its first 9 keys by default, or `max`", () => {
      expect(keySample(keyed(12)).keys).toEqual(["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8"]);
      expect(keySample(keyed(12), 3).keys).toEqual(["k0", "k1", "k2"]);
      expect(keySample({ a: 1, b: 2 }).keys).toEqual(["a", "b"]);
    });

    test("a Map lists its first 9 keys by default, or `max`", () => {
      const map = new Map(Array.from({ length: 12 }, (_, i) => [i + 1, i] as const));
      expect(keySample(map).keys).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9"]);
      expect(keySample(map, 2).keys).toEqual(["1", "2"]);
    });

    test("a missing key on an object lists its keys in the message", () => {
      expect(thrown(() => ref("$1.zip", { 1: { city: "Paris", street: "Main" } })).message).toBe(
        `$1.zip: step 1's result has no key "zip" (keys: city, street)`,
      );
      expect(thrown(() => ref("$1.zip", { 1: {} })).message).toBe(`$1.zip: step 1's result has no key "zip" (it has no keys)`);
    });

    test("a missing step of unreadable results lists no steps", () => {
      const results = new Proxy(
        {},
        {
          ownKeys() {
            throw new Error("no keys");
          },
        },
      );
      expect(thrown(() => ref("$1", results)).message).toBe("$1: no result for step 1 (no step has a result yet)");
    });
  });

  describe("sizeOf: entries of a container, undefined for anything else", () => {
    test.each([
      [
        "a Map",
        new Map([
          ["a", 1],
          ["b", 2],
          ["c", 3],
        ]),
        3,
      ],
      ["a sparse array (its length, not its keys)", [1, , 3], 3],
      ["an array with an extra own key", Object.assign([1, 2], { extra: true }), 2],
      ["an object", { a: 1, b: 2 }, 2],
      ["an empty object", {}, 0],
      ["a string", "abc", undefined],
      ["a number", 42, undefined],
      ["null", null, undefined],
      ["undefined", undefined, undefined],
      ["a revoked Proxy", revoked(), undefined],
    ])("%s", (_, value, size) => {
      expect(sizeOf(value)).toBe(size);
    });

    test("a missing index of a sparse array reports the array's length", () => {
      expect(thrown(() => ref("$1[5]", { 1: [1, , 3] })).message).toBe("$1[5]: step 1's result has no index 5 (length 3)");
    });
  });

  describe("the kind of a value in messages (valueKind, tested in test/shared/text.test.ts)", () => {
    const wantsKey = "which cannot take a key (only objects and Maps have keys)";
    const wantsIndex = "which cannot take an index (only arrays have indexes)";
    test.each([
      ["$1.a", 5n, `$1.a: step 1's result is a bigint, ${wantsKey}`],
      ["$1.a", Symbol("s"), `$1.a: step 1's result is a symbol, ${wantsKey}`],
      ["$1.a", () => 1, `$1.a: step 1's result is a function, ${wantsKey}`],
      ["$1.a", new Date(0), `$1.a: step 1's result is a Date, ${wantsKey}`],
      ["$1.a", new Thing(), `$1.a: step 1's result is a class instance, ${wantsKey}`],
      ["$1.a", [1], `$1.a: step 1's result is an array, ${wantsKey}`],
      ["$1.a", "text", `$1.a: step 1's result is a string, ${wantsKey}`],
      ["$1[0]", new Map([[0, 1]]), `$1[0]: step 1's result is a Map, ${wantsIndex}`],
      ["$1[0]", { 0: 1 }, `$1[0]: step 1's result is an object, ${wantsIndex}`],
      ["$1.x[0]", { x: undefined }, `$1.x[0]: step 1's result is undefined at .x, ${wantsIndex}`],
    ])("%s on %s is not-indexable with its kind in the message", (text, value, message) => {
      const error = thrown(() => ref(text, { 1: value }));
      expect(error.code).toBe("not-indexable");
      expect(error.message).toBe(message);
    });
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("src/resolve/access.ts: results whose prototype cannot be read", () => {
  test("results whose prototype cannot be read: code access, and the message says it was the results", () => {
    const boom = new Error("no prototype for you");
    const results = new Proxy(
      {},
      {
        getPrototypeOf: () => {
          throw boom;
        },
      },
    );
    const error = thrown(() => ref("$1", results));
    expect(error.code).toBe("access");
    expect(error.cause).toBe(boom);
    expect(error.message).toBe("could not read results: no prototype for you");
  });
});
