/**
 * fast-check generators of the evaluator's inputs, shared by the tests that compare another form of
 * resolution with `resolveRefs` (compileArgs, the runner's in-place resolution of snapshots).
 */
import fc from "fast-check";
import type { ResolveOptions } from "../../src/shared/options.js";

// Generated inputs: placeholders of every kind (valid, near-misses, templates, escapes, defaults),
// results whose values look like placeholders, shared sub-objects, cycles and `__proto__` keys.
export const placeholderText = fc.constantFrom(
  "$1",
  "$2",
  "$0",
  "$01",
  "$3",
  "$9",
  "$1.a",
  "$1.b",
  "$2.a",
  "$1.a.b",
  "$1.items",
  "$1.items[0]",
  "$1.items[5]",
  '$1["a"]',
  '$1.a ?? "d"',
  "$9 ?? $1.a",
  "$9.x ?? 4",
  "$1.",
  "$5 off",
  "$",
  "$x",
  "$$1",
  "${1.a}",
  "x ${2} y",
  "${1",
  "a ${9} b",
  "$${1}",
  "${1.items}",
  "plain",
  "",
  "$1.a[0]",
  "$2.$1",
  "$1 ",
  "$99999999999999999999",
);
const scalar = fc.oneof(
  placeholderText,
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.constant(Number.NaN),
  fc.string({ maxLength: 4 }),
);
const tree = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, scalar, scalar, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(fc.constantFrom("a", "b", "q", "items", "__proto__", "x/y", "t~1", "0", "7"), tie("value"), { maxKeys: 4 }),
}));

/** Rebuild a generated value with JSON.parse semantics for `__proto__` (an own key), plus odd containers. */
export function materialize(value: unknown, odd: number): unknown {
  if (Array.isArray(value)) {
    const array = value.map((item) => materialize(item, odd));
    // eslint-disable-next-line @typescript-eslint/no-array-delete -- a hole, on purpose
    if (odd % 7 === 3 && array.length > 1) delete array[0];
    return array;
  }
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = odd % 5 === 4 ? (Object.create(null) as Record<string, unknown>) : {};
    for (const key of Object.keys(value)) {
      Object.defineProperty(out, key, {
        value: materialize((value as Record<string, unknown>)[key], odd + key.length),
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/** All plain containers of a tree, in walk order. */
function containers(root: unknown): object[] {
  const found: object[] = [];
  const walk = (value: unknown): void => {
    if (typeof value !== "object" || value === null || found.includes(value)) return;
    found.push(value);
    for (const key of Object.keys(value)) walk((value as Record<string, unknown>)[key]);
  };
  walk(root);
  return found;
}

export const argsArbitrary = fc
  .tuple(
    fc.dictionary(fc.constantFrom("q", "a", "b", "__proto__", "n", "list", "x/y"), tree.value, { maxKeys: 5 }),
    fc.nat(),
    fc.constantFrom("none", "none", "shared", "cycle", "instance"),
    fc.nat(),
    fc.nat(),
  )
  .map(([raw, odd, twist, from, to]) => {
    const args = materialize(raw, odd) as Record<string, unknown>;
    const all = containers(args);
    const source = all[from % all.length]!;
    const target = all[to % all.length]!;
    if (twist === "shared" && source !== args)
      Object.defineProperty(args, "shared", { value: source, enumerable: true, writable: true, configurable: true });
    if (twist === "cycle" && target !== args) (target as Record<string, unknown>)["loop"] = args;
    if (twist === "instance") args["when"] = new Date(0);
    return args;
  });

const resultValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    placeholderText,
    fc.integer(),
    fc.constant(null),
    fc.string({ maxLength: 3 }),
    tie("object"),
    tie("array"),
  ),
  object: fc.dictionary(fc.constantFrom("a", "b", "items", "x"), tie("value"), { maxKeys: 3 }),
  array: fc.array(tie("value"), { maxLength: 3 }),
}));
export const resultsArbitrary = fc.oneof(
  { weight: 6, arbitrary: fc.dictionary(fc.constantFrom("0", "1", "2", "3"), resultValue.value, { maxKeys: 4 }) },
  {
    weight: 2,
    arbitrary: fc
      .dictionary(fc.constantFrom("0", "1", "2", "3"), resultValue.value, { maxKeys: 4 })
      .map((r) => new Map(Object.entries(r).map(([k, v]) => [Number(k), v]))),
  },
  { weight: 1, arbitrary: fc.array(resultValue.value, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, "results", 3) },
);

export const optionsArbitrary: fc.Arbitrary<ResolveOptions | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.record(
    {
      syntax: fc.constantFrom("seed" as const, "path" as const),
      templates: fc.boolean(),
      deep: fc.boolean(),
      strict: fc.boolean(),
      maxDepth: fc.nat({ max: 4 }),
      maxPlaceholders: fc.nat({ max: 5 }),
      maxSegments: fc.nat({ max: 3 }),
      maxOutputLength: fc.nat({ max: 40 }),
    },
    { requiredKeys: ["syntax", "deep"] },
  ),
);

/** Results as the runner keeps them: a Map by step id. */
export const mapResultsArbitrary: fc.Arbitrary<Map<number, unknown>> = fc
  .dictionary(fc.constantFrom("0", "1", "2", "3"), resultValue.value, { maxKeys: 4 })
  .map((r) => new Map(Object.entries(r).map(([k, v]) => [Number(k), v])));
