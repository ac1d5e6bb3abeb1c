/**
 * Baseline: the resolver one writes by hand with regular expressions, as found in agent frameworks.
 * Seed syntax for workload 1; path syntax, `${…}` templates and deep walking for workload 2. It reads
 * with `Object.hasOwn` and plain property access (fast, but a getter in `args` or `results` runs).
 */

/** `$n` or `$n.key`, the key being the whole rest of the string. */
const SEED = /^\$(\d+)(?:\.([\s\S]+))?$/;

type Dict = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Dict {
  return typeof value === "object" && value !== null;
}

/** Seed syntax, top-level values only. */
export function regexResolve(args: Dict, results: Dict): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const match = typeof value === "string" ? SEED.exec(value) : null;
    if (match === null) {
      out[name] = value;
      continue;
    }
    const step = Number(match[1]);
    const key = match[2];
    if (!Object.hasOwn(results, step)) throw new Error(`${String(value)}: no result for step ${step}`);
    const result = results[step];
    if (key === undefined) {
      out[name] = result;
      continue;
    }
    if (!isObject(result) || !Object.hasOwn(result, key)) throw new Error(`${String(value)}: no key ${key}`);
    out[name] = result[key];
  }
  return out;
}

/** The same, reading only own data properties through descriptors, as plan-refs does (getters never run). */
export function regexResolveOwnData(args: Dict, results: Dict): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(args)) {
    const descriptor = Object.getOwnPropertyDescriptor(args, name);
    if (descriptor === undefined || !("value" in descriptor)) throw new Error(`argument ${name} is not a data property`);
    const value: unknown = descriptor.value;
    const match = typeof value === "string" ? SEED.exec(value) : null;
    if (match === null) {
      out[name] = value;
      continue;
    }
    const stepDescriptor = Object.getOwnPropertyDescriptor(results, Number(match[1]));
    if (stepDescriptor === undefined || !("value" in stepDescriptor)) throw new Error(`${match.input}: no result for step ${match[1]}`);
    const key = match[2];
    if (key === undefined) {
      out[name] = stepDescriptor.value;
      continue;
    }
    const result: unknown = stepDescriptor.value;
    const keyDescriptor = isObject(result) ? Object.getOwnPropertyDescriptor(result, key) : undefined;
    if (keyDescriptor === undefined || !("value" in keyDescriptor)) throw new Error(`${match.input}: no key ${key}`);
    out[name] = keyDescriptor.value;
  }
  return out;
}

// Path syntax: `$1.a.b`, `$1.items[0]`, `$1["a.b"]`; templates: `${1.a}` inside text.
const SEGMENTS = String.raw`(?:\.[^.[\]{}$?\s]+|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*`;
const WHOLE = new RegExp(String.raw`^\$(\d+)(${SEGMENTS})$`);
const INTERPOLATION = new RegExp(String.raw`\$\{(\d+)(${SEGMENTS})\}`, "g");
const SEGMENT = /\.([^.[\]{}$?\s]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;

/** The value at `path` (`.a[0]["b"]`) of step `step`'s result. */
export function lookupPath(results: Dict, step: string, path: string): unknown {
  if (!Object.hasOwn(results, step)) throw new Error(`no result for step ${step}`);
  let value = results[step];
  for (const [, name, index, quoted] of path.matchAll(SEGMENT)) {
    const key = name ?? (quoted === undefined ? index! : (JSON.parse(quoted) as string));
    if (!isObject(value) || !Object.hasOwn(value, key)) throw new Error(`step ${step}: no key ${key}`);
    value = value[key];
  }
  return value;
}

/** Text of an interpolated value: strings as they are, the rest as JSON. */
export function interpolated(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Path syntax with templates, resolved at any depth of plain objects and arrays. */
export function regexResolveDeep(args: Dict, results: Dict): Record<string, unknown> {
  return resolveDeepValue(args, results) as Record<string, unknown>;
}

function resolveDeepValue(value: unknown, results: Dict): unknown {
  if (typeof value === "string") {
    if (value.charCodeAt(0) === 36) {
      const whole = WHOLE.exec(value);
      if (whole !== null) return lookupPath(results, whole[1]!, whole[2]!);
    }
    if (!value.includes("${")) return value;
    return value.replace(INTERPOLATION, (_, step: string, path: string) => interpolated(lookupPath(results, step, path)));
  }
  if (Array.isArray(value)) return value.map((item) => resolveDeepValue(item, results));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = resolveDeepValue(item, results);
    return out;
  }
  return value;
}
