/**
 * Snapshots of a step's arguments (src/step/snapshot.ts): what the copy holds (plain containers copied,
 * holes and lengths kept, sharing and cycles kept, getters copied uninvoked, nothing else), and the
 * flags `take` leaves for prepare.ts: `inPlace` (the copy may be resolved in place), `ownDataOnly` (no
 * accessor anywhere in it) and `flat` (no container in it), each about the last copy only.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ArgsSnapshotter } from "../../src/step/snapshot.js";

type Args = Record<string, unknown>;

/** An object with a getter `key` that records whether it ran. */
function withGetter(base: Args, key: string): { args: Args; get: () => unknown; ran: () => boolean } {
  let ran = false;
  const get = (): unknown => {
    ran = true;
    return "$1";
  };
  Object.defineProperty(base, key, { get, enumerable: true, configurable: true });
  return { args: base, get, ran: () => ran };
}

describe("the copy", () => {
  test("plain objects and arrays are new containers with the same own data; other values are the same values", () => {
    const date = new Date(0);
    const map = new Map([[1, 2]]);
    class Point {
      x = 1;
    }
    const point = new Point();
    const args = { q: "$1.city", n: 2, none: null, list: [1, { at: "$2" }], nested: { deep: { x: true } }, date, map, point };
    const copy = new ArgsSnapshotter().take(args);
    expect(copy).toEqual(args);
    expect(copy).not.toBe(args);
    expect(copy["list"]).not.toBe(args.list);
    expect((copy["list"] as unknown[])[1]).not.toBe(args.list[1]);
    expect(copy["nested"]).not.toBe(args.nested);
    expect((copy["nested"] as Args)["deep"]).not.toBe(args.nested.deep);
    expect([copy["date"], copy["map"], copy["point"]]).toEqual([date, map, point]);
    expect(copy["date"]).toBe(date);
    expect(copy["map"]).toBe(map);
    expect(copy["point"]).toBe(point);
    args.list[0] = 99;
    args.nested.deep.x = false;
    expect((copy["list"] as unknown[])[0]).toBe(1);
    expect(copy["nested"]).toEqual({ deep: { x: true } });
  });

  test.each([
    ["a trailing hole", [1, , ,], 3, ["0"]],
    ["only holes", new Array<unknown>(4), 4, []],
    ["a hole inside", ["a", , "c"], 3, ["0", "2"]],
    ["no hole", ["a", "b"], 2, ["0", "1"]],
  ])("an array with %s keeps its length and its holes", (_name, list, length, keys) => {
    const copy = new ArgsSnapshotter().take({ list })["list"] as unknown[];
    expect(copy).not.toBe(list);
    expect(copy.length).toBe(length);
    expect(Object.keys(copy)).toEqual(keys);
  });

  test("a null-prototype object stays one, at the top and nested; `__proto__` stays an own key", () => {
    const top = Object.assign(Object.create(null) as Args, { q: "$1" });
    const nested = Object.assign(Object.create(null) as Args, { x: 1 });
    Object.defineProperty(nested, "__proto__", { value: "$2", enumerable: true, writable: true, configurable: true });
    top["nested"] = nested;
    const copy = new ArgsSnapshotter().take(top);
    expect(Object.getPrototypeOf(copy)).toBe(null);
    const copied = copy["nested"] as Args;
    expect(Object.getPrototypeOf(copied)).toBe(null);
    expect(Object.keys(copied)).toEqual(["x", "__proto__"]);
    expect(Object.getOwnPropertyDescriptor(copied, "__proto__")?.value).toBe("$2");
  });

  test("a shared sub-object stays shared, a cycle to the arguments themselves is a cycle to the copy", () => {
    const shared = { x: "$1" };
    const args: Args = { a: shared, b: [shared] };
    args["self"] = { back: args };
    const copy = new ArgsSnapshotter().take(args);
    expect(copy["a"]).not.toBe(shared);
    expect((copy["b"] as unknown[])[0]).toBe(copy["a"]);
    expect((copy["self"] as Args)["back"]).toBe(copy);
  });

  test("a getter is copied as the same getter, enumerable, and never run; at the top level and nested", () => {
    const top = withGetter({ q: "$0" }, "g");
    const inner = withGetter({ x: 1 }, "h");
    top.args["nested"] = inner.args;
    const copy = new ArgsSnapshotter().take(top.args);
    expect(top.ran()).toBe(false);
    expect(inner.ran()).toBe(false);
    expect(Object.keys(copy)).toEqual(["q", "g", "nested"]);
    expect(Object.getOwnPropertyDescriptor(copy, "g")).toMatchObject({ get: top.get, enumerable: true, configurable: true });
    const nested = copy["nested"] as Args;
    expect(Object.keys(nested)).toEqual(["x", "h"]);
    expect(Object.getOwnPropertyDescriptor(nested, "h")).toMatchObject({ get: inner.get, enumerable: true, configurable: true });
  });

  test("own keys that are not enumerable are not copied (also one named `undefined`), at the top level and nested", () => {
    const hidden = (base: Args): Args => {
      Object.defineProperty(base, "undefined", { value: "$1", enumerable: false });
      Object.defineProperty(base, "secret", { value: "$2", enumerable: false });
      return base;
    };
    const args = hidden({ q: "$0", nested: hidden({ x: 1 }) });
    const copy = new ArgsSnapshotter().take(args);
    expect(Object.getOwnPropertyNames(copy)).toEqual(["q", "nested"]);
    expect(Object.getOwnPropertyNames(copy["nested"])).toEqual(["x"]);
  });

  test("a key that a Proxy lists but no longer has when it is read is left out", () => {
    // Object.keys reads each key's descriptor to see that it is enumerable; the copy reads it once more.
    const target: Args = { gone: "$1", kept: "$2" };
    let reads = 0;
    const vanishing = new Proxy(target, {
      getOwnPropertyDescriptor(object, key) {
        const descriptor = Reflect.getOwnPropertyDescriptor(object, key);
        if (key === "gone" && ++reads === 1) delete object["gone"];
        return descriptor;
      },
    });
    const copy = new ArgsSnapshotter().take(vanishing);
    expect(copy).toEqual({ kept: "$2" });
    expect(Object.keys(copy)).toEqual(["kept"]);
  });

  test("what a hostile container throws is thrown, and the snapshotter copies the next arguments as if new", () => {
    const snapshots = new ArgsSnapshotter();
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("no keys for you");
        },
      },
    );
    expect(() => snapshots.take({ a: { b: 1 }, hostile })).toThrow("no keys for you");
    const copy = snapshots.take({ c: [1] });
    expect(copy).toEqual({ c: [1] });
    expect([snapshots.inPlace, snapshots.ownDataOnly]).toEqual([true, true]);
  });
});

describe("the one-pass copy of arguments without containers", () => {
  /** Every plain container in a value, depth first. */
  const containers = (value: unknown, found: object[] = []): object[] => {
    if (typeof value === "object" && value !== null && !found.includes(value)) {
      found.push(value);
      for (const item of Object.values(value)) containers(item, found);
    }
    return found;
  };

  test("a property: arguments of JSON values, flat or not, are copied equal, with their keys in order and no container of the arguments'", () => {
    const snapshots = new ArgsSnapshotter();
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), fc.string({ unit: "grapheme" }))), (args) => {
        const copy = snapshots.take(args);
        expect(copy).toEqual(args);
        expect(Object.keys(copy)).toEqual(Object.keys(args));
        const theirs = containers(args);
        for (const mine of containers(copy)) expect(theirs).not.toContain(mine);
        // A null prototype (fast-check makes some) stays one, and is never resolved in place.
        expect(Object.getPrototypeOf(copy)).toBe(Object.getPrototypeOf(args));
        expect([snapshots.inPlace, snapshots.ownDataOnly]).toEqual([Object.getPrototypeOf(args) !== null, true]);
      }),
    );
  });

  test("arguments it gives up on halfway (a container after plain values) are copied by the walk from the start, as a Proxy answers the second time", () => {
    let pass = 0;
    const target: Args = { a: "$1", b: 2, c: { d: "$2" } };
    const changing = new Proxy(target, {
      ownKeys(object) {
        pass++;
        return Reflect.ownKeys(object);
      },
      getOwnPropertyDescriptor(object, key) {
        const descriptor = Reflect.getOwnPropertyDescriptor(object, key);
        return key === "a" && pass > 1 && descriptor !== undefined ? { ...descriptor, value: "$3" } : descriptor;
      },
    });
    const copy = new ArgsSnapshotter().take(changing);
    expect(pass).toBe(2);
    expect(copy).toEqual({ a: "$3", b: 2, c: { d: "$2" } });
    expect(copy["c"]).not.toBe(target["c"]);
  });

  test.each([
    ["a getter after plain values", () => withGetter({ q: "$0", n: 1 }, "g").args, false, false],
    ["an array after plain values", () => ({ q: "$0", list: ["$1"] }), true, true],
    ["a class instance and a Date (kept as they are)", () => ({ q: "$0", at: new Date(0), m: new Map() }), true, true],
    ["an own `__proto__` key", () => JSON.parse('{"q":"$0","__proto__":"x"}') as Args, true, true],
  ])("%s: the copy equals the arguments (inPlace %s, ownDataOnly %s)", (_name, make, inPlace, ownDataOnly) => {
    const snapshots = new ArgsSnapshotter();
    const args = make();
    const copy = snapshots.take(args);
    expect(Object.getOwnPropertyNames(copy)).toEqual(Object.keys(args));
    for (const key of Object.keys(args)) expect(Object.getOwnPropertyDescriptor(copy, key)).toMatchObject({ enumerable: true });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect([snapshots.inPlace, snapshots.ownDataOnly]).toEqual([inPlace, ownDataOnly]);
  });
});

describe("the flags of the last copy", () => {
  const cyclic = (): Args => {
    const args: Args = { q: "$0" };
    args["self"] = { back: args };
    return args;
  };
  const cycleBelow = (): Args => {
    const nested: Args = {};
    nested["me"] = nested;
    return { q: "$0", nested };
  };
  test.each([
    ["arguments without a container (a Date, a Map are none)", () => ({ q: "$0", n: 1, at: new Date(0), m: new Map() }), true, true, true],
    ["no arguments", () => ({}), true, true, true],
    ["plain arguments", () => ({ q: "$0", nested: { x: ["$1"] } }), true, true, false],
    ["a getter at the top level", () => withGetter({ q: "$0" }, "g").args, false, false, false],
    ["a getter in a nested object", () => ({ q: "$0", nested: withGetter({ x: 1 }, "h").args }), true, false, false],
    ["a getter in a nested array", () => ({ q: "$0", list: withGetter([1] as unknown as Args, "1").args }), true, false, false],
    ["a null prototype at the top level", () => Object.assign(Object.create(null) as Args, { q: "$0" }), false, true, false],
    ["a null prototype nested", () => ({ q: "$0", nested: Object.assign(Object.create(null) as Args, { x: 1 }) }), true, true, false],
    ["the arguments contained in themselves", cyclic, false, true, false],
    ["a cycle below the top level", cycleBelow, true, true, false],
  ])("%s: inPlace %s, ownDataOnly %s, flat %s", (_name, make, inPlace, ownDataOnly, flat) => {
    const snapshots = new ArgsSnapshotter();
    snapshots.take(make());
    expect([snapshots.inPlace, snapshots.ownDataOnly, snapshots.flat]).toEqual([inPlace, ownDataOnly, flat]);
  });

  test("each take sets the flags afresh: one snapshotter reports each step's copy, not what came before", () => {
    const snapshots = new ArgsSnapshotter();
    const flags = (args: Args): boolean[] => {
      snapshots.take(args);
      return [snapshots.inPlace, snapshots.ownDataOnly, snapshots.flat];
    };
    expect(flags(withGetter({ q: "$0" }, "g").args)).toEqual([false, false, false]);
    expect(flags({ q: "$0" })).toEqual([true, true, true]);
    expect(flags({ nested: withGetter({}, "h").args })).toEqual([true, false, false]);
    expect(flags({ q: "$0" })).toEqual([true, true, true]);
    expect(flags(Object.create(null) as Args)).toEqual([false, true, false]);
    expect(flags({ q: "$0" })).toEqual([true, true, true]);
  });
});
