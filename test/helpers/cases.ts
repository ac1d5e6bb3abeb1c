/**
 * Loading and running the shared, language-neutral case files in test/cases/. The files are read with
 * `JSON.parse` (not a bundler import) so that a `"__proto__"` key stays an own key, as a JSON parser
 * in any language would give it.
 *
 * A resolve row is `{ name, input | args, results?, resultsKind?, options?, expected? | error?, … }`:
 * - `input` is shorthand for `args: { "q": input }`, and `expected` is then the value of `q`.
 * - `resultsKind: "map"` turns the `results` object into a `Map` keyed by step number; `"object"` (the
 *   default) and arrays are used as `JSON.parse` gives them.
 * - `passThrough: true`: every output value is the very same value as the argument (`===`), and
 *   `expected` defaults to `args`.
 * - `shared` / `copied`: JSON Pointers at which the output is (`shared`) or is not (`copied`) the same
 *   object as in `args` (structural sharing under `deep`).
 * - `fromResults`: `{ outputPointer: resultsPointer }`, the output value is the very same value as the
 *   one in `results` (no copy).
 * - `error`: `{ code, name?, arg?, step?, key?, ref?, segment?, span?, offset?, message?, messageIncludes? }`.
 */
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { RefError } from "../../src/shared/errors.js";
import { resolveRefs } from "../../src/resolve/resolve-refs.js";
import type { ResolveOptions } from "../../src/shared/options.js";
import type { Results } from "../../src/resolve/access.js";

/** What an error row expects. Only the fields present are checked. */
export interface ErrorSpec {
  readonly code: string;
  readonly name?: string;
  readonly arg?: string | null;
  readonly step?: number | null;
  readonly key?: string | number | null;
  readonly ref?: string;
  readonly segment?: number | null;
  readonly span?: { start: number; end: number } | null;
  readonly offset?: number;
  readonly expected?: string[];
  readonly message?: string;
  readonly messageIncludes?: string | string[];
}

/** One row of a resolve case file. */
export interface ResolveCase {
  readonly name: string;
  readonly input?: unknown;
  readonly args?: unknown;
  readonly results?: unknown;
  readonly resultsKind?: "object" | "map";
  readonly options?: ResolveOptions;
  readonly expected?: unknown;
  readonly passThrough?: boolean;
  readonly shared?: string[];
  readonly copied?: string[];
  readonly fromResults?: Record<string, string>;
  readonly error?: ErrorSpec;
}

/** A case file: a comment and its rows. */
interface CaseFile<T> {
  readonly $comment?: string;
  readonly cases: T[];
}

/** Read `test/cases/<file>` and return its rows. */
export function loadCases<T = ResolveCase>(file: string): T[] {
  const text = readFileSync(new URL(`../cases/${file}`, import.meta.url), "utf8");
  const parsed = JSON.parse(text) as CaseFile<T>;
  const names = new Set<string>();
  for (const row of parsed.cases) {
    const name = (row as { name?: unknown }).name;
    if (typeof name !== "string" || names.has(name)) throw new Error(`${file}: every row needs a unique name (${String(name)})`);
    names.add(name);
  }
  return parsed.cases;
}

/** The value at a JSON Pointer (`""` is the root), reading Maps by step number or key. */
export function pointerGet(root: unknown, pointer: string): unknown {
  if (pointer === "") return root;
  let value = root;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (value instanceof Map) value = value.has(Number(token)) ? value.get(Number(token)) : value.get(token);
    else if (typeof value === "object" && value !== null && Object.hasOwn(value, token)) value = (value as Record<string, unknown>)[token];
    else throw new Error(`no value at ${pointer}`);
  }
  return value;
}

/** The args of a row (with the `input` shorthand expanded). */
export function argsOf(row: ResolveCase): unknown {
  return "input" in row ? { q: row.input } : row.args;
}

/** The results of a row, as the row's `resultsKind` asks. */
export function resultsOf(row: ResolveCase): unknown {
  const results = "results" in row ? row.results : {};
  if (row.resultsKind === "map") {
    return new Map(Object.entries(results as Record<string, unknown>).map(([step, value]) => [Number(step), value]));
  }
  return results;
}

/** Check a thrown value against an error spec. */
export function expectError(thrown: unknown, spec: ErrorSpec): void {
  expect(thrown).toBeInstanceOf(RefError);
  const error = thrown as RefError & Record<string, unknown>;
  expect(error.code).toBe(spec.code);
  if (spec.name !== undefined) expect(error.name).toBe(spec.name);
  for (const field of ["arg", "step", "key", "ref", "segment", "span", "offset", "expected"] as const) {
    if (field in spec) {
      const want = spec[field];
      // JSON has no undefined: `null` in a row means "absent" for the optional fields.
      const nullable = field !== "step";
      expect(error[field], field).toEqual(want === null && nullable ? undefined : want);
    }
  }
  if (spec.message !== undefined) expect(error.message).toBe(spec.message);
  const includes =
    spec.messageIncludes === undefined ? [] : Array.isArray(spec.messageIncludes) ? spec.messageIncludes : [spec.messageIncludes];
  for (const part of includes) expect(error.message).toContain(part);
}

/** Run `fn` and return what it threw (fails the test when it does not throw). */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error, but nothing was thrown");
}

/** Run one resolve row through `resolveRefs` and check everything it states. */
export function runResolveCase(row: ResolveCase): void {
  const args = argsOf(row);
  const results = resultsOf(row);
  const call = (): Record<string, unknown> => resolveRefs(args as Record<string, unknown>, results as Results, row.options);
  if (row.error !== undefined) {
    expectError(thrownBy(call), row.error);
    return;
  }
  const output = call();
  expect(output).not.toBe(args);
  expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
  expect(Object.keys(output)).toEqual(Object.keys(args as object));
  if ("input" in row) {
    expect(output["q"]).toEqual(row.passThrough ? row.input : row.expected);
  } else {
    expect(output).toEqual(row.passThrough && !("expected" in row) ? args : row.expected);
  }
  if (row.passThrough) {
    for (const key of Object.keys(args as object)) expect(output[key], key).toBe((args as Record<string, unknown>)[key]);
  }
  for (const pointer of row.shared ?? []) expect(pointerGet(output, pointer), `shared ${pointer}`).toBe(pointerGet(args, pointer));
  for (const pointer of row.copied ?? []) expect(pointerGet(output, pointer), `copied ${pointer}`).not.toBe(pointerGet(args, pointer));
  for (const [at, from] of Object.entries(row.fromResults ?? {}))
    expect(pointerGet(output, at), `from results ${at}`).toBe(pointerGet(results, from));
}
