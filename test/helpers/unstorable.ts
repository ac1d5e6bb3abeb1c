/**
 * Results JSON would drop, change or refuse, each with the reason both executors give
 * (`toStorableJSON`): the rows of runPlan's JSON report and of the workers' stored results.
 */

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

/** One function, so that a row's value equals itself (`toEqual` compares functions by identity). */
const aFunction = (): number => 1;

/** `[name, make a fresh value, the reason in its unserializable error]`. */
export const UNSTORABLE_RESULTS: readonly (readonly [string, () => unknown, string])[] = [
  ["a Map", () => new Map([["a", 1]]), "it contains a Map (JSON writes {})"],
  ["a Set", () => new Set([1]), "it contains a Set (JSON writes {})"],
  ["a Date", () => new Date(0), "it contains a Date (JSON writes a string)"],
  ["NaN", () => ({ n: NaN }), "it contains NaN (JSON writes null)"],
  ["Infinity", () => [Infinity], "it contains Infinity (JSON writes null)"],
  ["-Infinity", () => -Infinity, "it contains -Infinity (JSON writes null)"],
  [
    "a class instance",
    () => new Point(1, 2),
    "it contains an object that is not plain data (a class instance, JSON would not keep it as it is)",
  ],

  ["an array hole", () => [1, , 3], "it contains an array hole (JSON writes null)"],
  ["a getter", () => Object.defineProperty({}, "x", { get: () => 1, enumerable: true }), "it contains a getter"],
  ["a function", () => aFunction, "it contains a function"],
];
