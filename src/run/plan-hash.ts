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
/** What JSON writes as an escape in a string: a quote, a backslash, a control character, a surrogate. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The JSON of a value that is not a container, or `undefined` where JSON has no value (undefined, a function, a symbol). */
function scalarJson(item: unknown): string | undefined {
  if (item === null) return "null";
  switch (typeof item) {
    case "string":
      return NEEDS_ESCAPE.test(item) ? JSON.stringify(item) : `"${item}"`;
    case "number":
      return Number.isFinite(item) ? String(item) : "null"; // a finite number's String is its JSON
    case "boolean":
      return item ? "true" : "false";
    case "bigint":
      return `"${item.toString()}"`;
    default:
      return undefined;
  }
}

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
  // Each frame writes one container: its sorted keys (none for an array), the next entry, whether one was written.
  type Frame = { readonly container: object; readonly descriptors: Record<string, PropertyDescriptor>; readonly keys: string[] | undefined; readonly length: number; next: number; wrote: boolean };
  const stack: Frame[] = [];
  const open = new Set<object>();
  let out = "";
  /** The item's text, or `undefined` where JSON has no value; a container is opened (its frame pushed). */
  const write = (item: unknown): string | undefined => {
    if (typeof item !== "object" || item === null) return scalarJson(item);
    const container = item as object;
    if (open.has(container)) return CYCLE;
    if (isPlainArray(container)) {
      open.add(container);
      stack.push({ container, descriptors: Object.getOwnPropertyDescriptors(container), keys: undefined, length: container.length, next: 0, wrote: false });
      return "[";
    }
    if (isPlainObject(container)) {
      const keys = Object.keys(container).sort();
      open.add(container);
      stack.push({ container, descriptors: Object.getOwnPropertyDescriptors(container), keys, length: keys.length, next: 0, wrote: false });
      return "{";
    }
    return "{}";
  };
  const first = write(value);
  if (first === undefined) return "null";
  out += first;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.next === frame.length) {
      out += frame.keys === undefined ? "]" : "}";
      open.delete(frame.container);
      stack.pop();
      continue;
    }
    const index = frame.next++;
    const key = frame.keys === undefined ? undefined : frame.keys[index]!;
    const descriptor = frame.descriptors[key ?? index] as PropertyDescriptor | undefined;
    const accessor = descriptor !== undefined && !("value" in descriptor);
    const comma = frame.wrote ? "," : "";
    if (key === undefined) {
      frame.wrote = true;
      out += comma + (accessor ? GETTER : (write(descriptor?.value) ?? "null"));
      continue;
    }
    const text = accessor ? GETTER : write(descriptor!.value);
    if (text === undefined) continue; // dropped, as JSON drops it
    frame.wrote = true;
    out += `${comma}${write(key)}:${text}`;
  }
  return out;
}

/** Deeper than this, the data-only writer gives up and the whole value is written by `canonicalJson` (an explicit stack: any depth). */
const FAST_DEPTH = 32;
const TOO_DEEP: unique symbol = Symbol("too deep");

/**
 * `canonicalJson` of a value made of own data properties only (a snapshot with no accessor: the
 * snapshotter says so), read directly instead of through property descriptors: the same text, several
 * times faster on the small arguments plans have.
 */
function dataJson(value: unknown, open: object[]): string | undefined {
  if (typeof value !== "object" || value === null) return scalarJson(value);
  if (open.length >= FAST_DEPTH) throw TOO_DEEP;
  if (open.includes(value)) return CYCLE;
  if (isPlainArray(value)) {
    open.push(value);
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + (dataJson(value[i], open) ?? "null");
    open.pop();
    return `${out}]`;
  }
  if (!isPlainObject(value)) return "{}";
  open.push(value);
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  let out = "{";
  let wrote = false;
  for (const key of keys) {
    const text = dataJson((value as Record<string, unknown>)[key], open);
    if (text === undefined) continue;
    out += `${wrote ? "," : ""}${scalarJson(key)!}:${text}`;
    wrote = true;
  }
  open.pop();
  return `${out}}`;
}

/**
 * One step's part of the plan's canonical text. `dataOnly`: its arguments hold own data properties only
 * (no getter anywhere in them), so they may be read directly.
 */
export function stepText(step: { readonly id: number; readonly tool: string; readonly args: unknown }, dataOnly = false): string {
  if (dataOnly) {
    try {
      return `{"args":${dataJson(step.args, []) ?? "null"},"id":${scalarJson(step.id)!},"tool":${scalarJson(step.tool)!}}`;
    } catch (error) {
      if (error !== TOO_DEEP) throw error;
    }
  }
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
