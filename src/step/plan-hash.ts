/**
 * A plan's identity for resuming: SHA-256 of its canonical JSON (keys sorted, no whitespace) — its
 * steps (id, tool, arguments as snapshotted and linted) and its own `options` — so the same plan has
 * the same hash in every process, whatever order its keys were written in. A resume checks it before
 * anything runs: results of one plan are never fed to another.
 *
 * The canonical text is made synchronously, from the snapshots, before any step runs (a snapshot is
 * resolved in place later); the digest is Web Crypto's, so it works wherever `runPlan` does.
 */
import { asRefError } from "../shared/errors.js";
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
  type Frame = {
    readonly container: object;
    readonly descriptors: Record<string, PropertyDescriptor>;
    readonly keys: string[] | undefined;
    readonly length: number;
    next: number;
    wrote: boolean;
  };
  const stack: Frame[] = [];
  const open = new Set<object>();
  let out = "";
  /** The item's text, or `undefined` where JSON has no value; a container is opened (its frame pushed). */
  const write = (item: unknown): string | undefined => {
    if (typeof item !== "object" || item === null) return scalarJson(item);
    const container = item;
    if (open.has(container)) return CYCLE;
    if (isPlainArray(container)) {
      open.add(container);
      stack.push({
        container,
        descriptors: Object.getOwnPropertyDescriptors(container),
        keys: undefined,
        length: container.length,
        next: 0,
        wrote: false,
      });
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
    const descriptor = frame.descriptors[key ?? index];
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
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const DIGIT_0 = 48;
/** The largest integer `#digits` writes (2³⁰ − 1: a small integer, so `| 0` keeps it as it is; larger ones go through `String`). */
const MAX_DIGITS_INT = 0x3fffffff;

/** Where JSON has no value: dropped from an object, `null` in an array. */
function hasNoJson(item: unknown): boolean {
  return item === undefined || typeof item === "function" || typeof item === "symbol";
}

/** An object's own keys in code unit order (what `sort()` gives); a few keys, as arguments have, by insertion (`sort()` cost more than writing them). */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}

/**
 * Writes canonical JSON as UTF-8 bytes, straight into one growing buffer: a plan's text is made of
 * ten thousand small pieces, and as strings they were garbage for the collector to trace (half the
 * time of making them). A value made of own data properties only (a snapshot with no accessor: the
 * snapshotter says so) is read directly instead of through property descriptors: the same text as
 * `canonicalJson`, several times faster on the small arguments plans have.
 */
class CanonicalBytes {
  #bytes: Uint8Array<ArrayBuffer>;
  #at = 0;
  /** The containers being written (a container inside itself is a cycle). */
  readonly #open: object[] = [];

  constructor(capacity: number) {
    this.#bytes = new Uint8Array(Math.max(capacity, 64));
  }

  /** What was written. */
  view(): Uint8Array<ArrayBuffer> {
    return this.#bytes.subarray(0, this.#at);
  }

  /** Take back the last `count` bytes written. */
  unwrite(count: number): void {
    this.#at -= count;
  }

  #room(bytes: number): void {
    if (this.#at + bytes <= this.#bytes.length) return;
    const grown = new Uint8Array(Math.max(2 * this.#bytes.length, this.#at + bytes));
    grown.set(this.#bytes.subarray(0, this.#at));
    this.#bytes = grown;
  }

  byte(code: number): void {
    this.#room(1);
    this.#bytes[this.#at++] = code;
  }

  /** Text known to be ASCII (JSON punctuation, a number's digits), byte for byte: no view of the buffer made. */
  ascii(text: string): void {
    const length = text.length;
    this.#room(length);
    const bytes = this.#bytes;
    let at = this.#at;
    for (let i = 0; i < length; i++) bytes[at++] = text.charCodeAt(i);
    this.#at = at;
  }

  /** Any text, as UTF-8 (at most three bytes per UTF-16 code unit). */
  text(text: string): void {
    this.#room(3 * text.length);
    this.#at += encoder.encodeInto(text, this.#bytes.subarray(this.#at)).written;
  }

  /** A JSON string: printable ASCII without a quote or backslash is copied byte for byte, anything else written by `scalarJson`. */
  string(value: string): void {
    const length = value.length;
    this.#room(length + 2);
    const bytes = this.#bytes;
    let at = this.#at;
    bytes[at++] = QUOTE;
    for (let i = 0; i < length; i++) {
      const code = value.charCodeAt(i);
      if (code < 0x20 || code > 0x7e || code === QUOTE || code === BACKSLASH) return this.text(scalarJson(value)!);
      bytes[at++] = code;
    }
    bytes[at++] = QUOTE;
    this.#at = at;
  }

  /** One step's part of the plan's text; `dataOnly`: its arguments hold own data properties only (see `stepText`). */
  step(id: number, tool: string, args: unknown, dataOnly: boolean): void {
    if (dataOnly) {
      const start = this.#at;
      try {
        this.ascii('{"args":');
        if (hasNoJson(args)) this.ascii("null");
        else this.#data(args);
        this.ascii(',"id":');
        this.#scalar(id);
        this.ascii(',"tool":');
        this.#scalar(tool);
        this.byte(0x7d);
        return;
      } catch (error) {
        if (error !== TOO_DEEP) throw error;
        this.#open.length = 0;
        this.#at = start;
      }
    }
    this.text(canonicalJson({ args, id, tool }));
  }

  #scalar(item: unknown): void {
    if (typeof item === "string") this.string(item);
    else if (typeof item === "number" && item >= 0 && item <= MAX_DIGITS_INT && (item | 0) === item) this.#digits(item);
    else this.ascii(scalarJson(item) ?? "null"); // a number, a boolean, null, a BigInt's digits
  }

  /** A non-negative integer up to `MAX_DIGITS_INT` (ids, counts: most numbers of a plan), its digits written without a string made for them. */
  #digits(n: number): void {
    this.#room(10);
    const bytes = this.#bytes;
    let at = this.#at;
    let width = 1;
    for (let m = n; m >= 10; m = (m / 10) | 0) width++;
    at += width;
    this.#at = at;
    for (let m = n; ;) {
      const q = (m / 10) | 0;
      bytes[--at] = DIGIT_0 + (m - q * 10);
      if (q === 0) return;
      m = q;
    }
  }

  /** A value that has a JSON value, of own data only. */
  #data(value: unknown): void {
    if (typeof value !== "object" || value === null) return this.#scalar(value);
    const open = this.#open;
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- a sentinel #digest catches (no stack to build), never seen outside
    if (open.length >= FAST_DEPTH) throw TOO_DEEP;
    if (open.includes(value)) return this.ascii(CYCLE);
    if (isPlainArray(value)) {
      open.push(value);
      this.byte(0x5b);
      for (let i = 0; i < value.length; i++) {
        if (i > 0) this.byte(COMMA);
        const item: unknown = value[i];
        if (hasNoJson(item)) this.ascii("null");
        else this.#data(item);
      }
      this.byte(0x5d);
      open.pop();
      return;
    }
    if (!isPlainObject(value)) return this.ascii("{}");
    open.push(value);
    const keys = sortedKeys(value);
    this.byte(0x7b);
    let wrote = false;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const item = value[key];
      if (hasNoJson(item)) continue; // dropped, as JSON drops it
      this.#key(key, wrote);
      this.#data(item);
      wrote = true;
    }
    this.byte(0x7d);
    open.pop();
  }

  /** An object's key as JSON, its colon, and the comma before it unless it is the first: one check for room. */
  #key(key: string, comma: boolean): void {
    const length = key.length;
    this.#room(length + 4);
    const bytes = this.#bytes;
    let at = this.#at;
    if (comma) bytes[at++] = COMMA;
    bytes[at++] = QUOTE;
    for (let i = 0; i < length; i++) {
      const code = key.charCodeAt(i);
      if (code < 0x20 || code > 0x7e || code === QUOTE || code === BACKSLASH) {
        if (comma) this.byte(COMMA);
        this.text(scalarJson(key)!);
        return this.byte(0x3a);
      }
      bytes[at++] = code;
    }
    bytes[at++] = QUOTE;
    bytes[at++] = 0x3a;
    this.#at = at;
  }
}

/**
 * One step's part of the plan's canonical text. `dataOnly`: its arguments hold own data properties only
 * (no getter anywhere in them), so they may be read directly.
 */
export function stepText(step: { readonly id: number; readonly tool: string; readonly args: unknown }, dataOnly = false): string {
  if (!dataOnly) return canonicalJson({ args: step.args, id: step.id, tool: step.tool });
  const bytes = new CanonicalBytes(128);
  bytes.step(step.id, step.tool, step.args, true);
  return decoder.decode(bytes.view());
}

/** The text hashed: the plan's own options (`{}` when it has none) and its steps' texts in plan order. */
export function planText(options: unknown, steps: readonly string[]): string {
  return `${planTextHead(options)}${steps.join(",")}]}`;
}

/** The plan's text up to its first step: its own options (`{}` when it has none). */
function planTextHead(options: unknown): string {
  return `{"options":${options === undefined ? "{}" : canonicalJson(options)},"steps":[`;
}

/**
 * A plan's canonical text (the UTF-8 bytes of `planText`) made step by step as the steps are read, and
 * its hash. The steps' arguments are written when they are added, before anything resolves them.
 *
 * @example
 * const text = new PlanText(plan.options, plan.steps.length);
 * for (const step of plan.steps) text.add(step);
 * await text.hash() // the planHash: sha256Hex(planText(plan.options, plan.steps.map((step) => stepText(step))))
 */
export class PlanText {
  readonly #bytes: CanonicalBytes;
  #steps = 0;

  constructor(options: unknown, steps = 0) {
    this.#bytes = new CanonicalBytes(256 + 128 * steps);
    this.#bytes.text(planTextHead(options));
  }

  /** The next step (see `stepText` for `dataOnly`). */
  add(step: { readonly id: number; readonly tool: string; readonly args: unknown }, dataOnly = false): void {
    if (this.#steps++ > 0) this.#bytes.byte(COMMA);
    this.#bytes.step(step.id, step.tool, step.args, dataOnly);
  }

  /** SHA-256 of the text of the steps added so far. */
  hash(): Promise<string> {
    // The closing "]}" is written, and taken back once the digest has its copy of the bytes (Web
    // Crypto copies them before it returns): more steps may still be added, and no second megabyte is made.
    this.#bytes.byte(0x5d);
    this.#bytes.byte(0x7d);
    try {
      return sha256Hex(this.#bytes.view());
    } finally {
      this.#bytes.unwrite(2);
    }
  }
}

/** What `node:crypto` gives that the hash needs. */
export interface SyncHashing {
  createHash(algorithm: "sha256"): { update(data: Uint8Array): { digest(encoding: "hex"): string } };
}

/**
 * A synchronous SHA-256 where the runtime has one (Node's `node:crypto`, reached through
 * `process.getBuiltinModule`: no import, so the module loads wherever Web Crypto does), else `null`.
 */
function syncHashing(): SyncHashing | null {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  let crypto: Partial<SyncHashing> | undefined;
  try {
    crypto = typeof get === "function" ? (get("node:crypto") as Partial<SyncHashing> | undefined) : undefined;
  } catch {
    // A Node built without crypto: no synchronous hash.
  }
  return typeof crypto?.createHash === "function" ? (crypto as SyncHashing) : null;
}

const SYNC_HASHING = syncHashing();

/**
 * A whole plan's hash, made when it is first asked for (most reports never are): its text is written
 * then and hashed synchronously; `undefined` where the runtime has no synchronous SHA-256 (then the
 * text is made at once, by `PlanText`). Only for arguments nothing changes once they are read: flat
 * snapshots (no container in them: each try gets a copy of the top level, and a value that is no
 * container is written as `{}` whatever it holds), which the function keeps until it is first called.
 * `steps`: the plan's steps in order, each with its snapshot; `hashing`: the runtime's synchronous SHA-256.
 *
 * @example
 * const hash = deferPlanHash(plan.options, steps);
 * hash?.() // what `PlanText` gives for the same steps: its `hash()`, synchronously
 */
export function deferPlanHash(
  options: unknown,
  steps: readonly { readonly id: number; readonly tool: string; readonly args: unknown }[],
  hashing: SyncHashing | null = SYNC_HASHING,
): (() => string) | undefined {
  if (hashing === null) return undefined;
  const head = planTextHead(options); // the options are the caller's object: their text is made now
  // What the text needs, and no more of the steps (a report may be kept long, unread).
  let kept: { readonly ids: Float64Array; readonly tools: string[]; readonly args: unknown[] } | undefined = {
    ids: Float64Array.from(steps, (step) => step.id),
    tools: steps.map((step) => step.tool),
    args: steps.map((step) => step.args),
  };
  let hash: string | undefined;
  return () => {
    if (kept === undefined) return hash!;
    const { ids, tools, args } = kept;
    const bytes = new CanonicalBytes(256 + 128 * args.length);
    bytes.text(head);
    try {
      for (let i = 0; i < args.length; i++) {
        if (i > 0) bytes.byte(COMMA);
        bytes.step(ids[i]!, tools[i]!, args[i], true);
      }
    } catch (error) {
      // Only a hostile value's Proxy trap throws here (it answered when the step was read).
      throw asRefError(error, "the plan's arguments, for its hash");
    }
    bytes.byte(0x5d);
    bytes.byte(0x7d);
    hash = hashing.createHash("sha256").update(bytes.view()).digest("hex");
    kept = undefined; // the steps let go once hashed
    return hash;
  };
}

/**
 * The SHA-256 of a text (its UTF-8 bytes) or of bytes, as 64 lowercase hex digits.
 *
 * @example
 * await sha256Hex("") // "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
 */
export async function sha256Hex(text: string | Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", typeof text === "string" ? encoder.encode(text) : text);
  let hex = "";
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
