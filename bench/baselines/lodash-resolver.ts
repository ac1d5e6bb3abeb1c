/**
 * Baseline: a resolver built on `lodash.get`, which reads dotted and bracketed paths
 * (`1.items[0].name`). A regular expression still has to find the placeholders.
 */
import get from "lodash.get";
import { interpolated } from "./regex-resolver.js";

type Dict = Readonly<Record<string, unknown>>;

const SEED = /^\$(\d+)(?:\.([\s\S]+))?$/;
const MISSING = Symbol("missing");

/** Seed syntax, top-level values only: `get(results, [step, key])`. */
export function lodashResolve(args: Dict, results: Dict): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const match = typeof value === "string" ? SEED.exec(value) : null;
    if (match === null) {
      out[name] = value;
      continue;
    }
    const path = match[2] === undefined ? [match[1]!] : [match[1]!, match[2]];
    const found: unknown = get(results, path, MISSING);
    if (found === MISSING) throw new Error(`${String(value)} is missing`);
    out[name] = found;
  }
  return out;
}

const SEGMENTS = String.raw`(?:\.[^.[\]{}$?\s]+|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*`;
const WHOLE = new RegExp(String.raw`^\$(\d+${SEGMENTS})$`);
const INTERPOLATION = new RegExp(String.raw`\$\{(\d+${SEGMENTS})\}`, "g");

function lookup(results: Dict, path: string): unknown {
  const found: unknown = get(results, path, MISSING);
  if (found === MISSING) throw new Error(`$${path} is missing`);
  return found;
}

/** Path syntax with templates at any depth: lodash parses the path (`1.users[3].name`). */
export function lodashResolveDeep(args: Dict, results: Dict): Record<string, unknown> {
  return resolveDeepValue(args, results) as Record<string, unknown>;
}

function resolveDeepValue(value: unknown, results: Dict): unknown {
  if (typeof value === "string") {
    if (value.charCodeAt(0) === 36) {
      const whole = WHOLE.exec(value);
      if (whole !== null) return lookup(results, whole[1]!);
    }
    if (!value.includes("${")) return value;
    return value.replace(INTERPOLATION, (_, path: string) => interpolated(lookup(results, path)));
  }
  if (Array.isArray(value)) return value.map((item) => resolveDeepValue(item, results));
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = resolveDeepValue(item, results);
    return out;
  }
  return value;
}
