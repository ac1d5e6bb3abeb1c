/**
 * A plan's identity for resuming: SHA-256 of its canonical JSON (keys sorted, no whitespace) — its
 * steps (id, tool, arguments as snapshotted and linted) and its own `options` — so the same plan has
 * the same hash in every process, whatever order its keys were written in. A resume checks it before
 * anything runs: results of one plan are never fed to another.
 *
 * The canonical text is made synchronously, from the snapshots, before any step runs (a snapshot is
 * resolved in place later); the digest is Web Crypto's, so it works wherever `runPlan` does.
 */
import { isPlainArray, isPlainObject } from "../shared/own-data.js";

/** What the text holds where JSON has no value: a getter (never run), a container already being written. */
const GETTER = '"[getter]"';
const CYCLE = '"[cycle]"';

/**
 * The canonical JSON text of a value: object keys sorted by code unit, no whitespace, what JSON drops
 * dropped (`undefined`, functions and symbols in objects; `null` in arrays, as holes), a BigInt as its
 * decimal digits in a string, an object that is not a plain object or array (a Date, a Map) as `{}`, an
 * accessor as `"[getter]"` (never invoked), a container inside itself as `"[cycle]"`. An explicit stack:
 * any depth is fine. Never throws (but what a Proxy's trap throws).
 *
 * @example
 * canonicalJson({ b: [1, { d: 2, c: "x" }], a: null }) // '{"a":null,"b":[1,{"c":"x","d":2}]}'
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // Each frame writes one container: its entries left to write, and whether a comma comes first.
  type Frame = { readonly container: object; readonly entries: [string | undefined, PropertyDescriptor | undefined][]; next: number; close: string };
  const stack: Frame[] = [];
  const open = new Set<object>();
  const write = (item: unknown, accessor: boolean): boolean => {
    if (accessor) return out.push(GETTER), true;
    if (item === null) return out.push("null"), true;
    switch (typeof item) {
      case "string":
        return out.push(JSON.stringify(item)), true;
      case "number":
        return out.push(Number.isFinite(item) ? JSON.stringify(item) : "null"), true;
      case "boolean":
        return out.push(item ? "true" : "false"), true;
      case "bigint":
        return out.push(`"${item.toString()}"`), true;
      case "object":
        break;
      default:
        return false; // undefined, a function, a symbol
    }
    const container = item as object;
    if (open.has(container)) return out.push(CYCLE), true;
    if (isPlainArray(container)) {
      const entries: Frame["entries"] = [];
      for (let i = 0; i < container.length; i++) entries.push([undefined, Object.getOwnPropertyDescriptor(container, i)]);
      out.push("[");
      open.add(container);
      stack.push({ container, entries, next: 0, close: "]" });
    } else if (isPlainObject(container)) {
      const keys = Object.keys(container).sort();
      out.push("{");
      open.add(container);
      stack.push({ container, entries: keys.map((key) => [key, Object.getOwnPropertyDescriptor(container, key)]), next: 0, close: "}" });
    } else out.push("{}");
    return true;
  };
  if (!write(value, false)) return "null";
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next === frame.entries.length) {
      out.push(frame.close);
      open.delete(frame.container);
      stack.pop();
      continue;
    }
    const [key, descriptor] = frame.entries[frame.next++]!;
    const accessor = descriptor !== undefined && !("value" in descriptor);
    const item: unknown = descriptor?.value;
    const comma = out[out.length - 1] !== "[" && out[out.length - 1] !== "{";
    if (key === undefined) {
      if (comma) out.push(",");
      if (!write(item, accessor)) out.push("null");
    } else {
      const mark = out.length;
      out.push(`${comma ? "," : ""}${JSON.stringify(key)}:`);
      if (!write(item, accessor)) out.length = mark; // dropped, as JSON drops it
    }
  }
  return out.join("");
}

/** One step's part of the plan's canonical text. */
export function stepText(step: { readonly id: number; readonly tool: string; readonly args: unknown }): string {
  return canonicalJson({ args: step.args, id: step.id, tool: step.tool });
}

/** The text hashed: the plan's own options (`{}` when it has none) and its steps' texts in plan order. */
export function planText(options: unknown, steps: readonly string[]): string {
  return `{"options":${options === undefined ? "{}" : canonicalJson(options)},"steps":[${steps.join(",")}]}`;
}

/**
 * The SHA-256 of a text (its UTF-8 bytes), as 64 lowercase hex digits.
 *
 * @example
 * await sha256Hex("") // "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  let hex = "";
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
