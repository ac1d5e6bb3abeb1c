/**
 * A plan session: the results of the plans run through it, kept by step id with the tool that made
 * each, so that a later plan of the same conversation refers to them (`$3.items`) instead of the
 * model retyping them. One session per conversation, never per process: it holds one user's data.
 * Bounded by count, bytes and an optional time to live; what falls out is forgotten oldest first,
 * and a reference to it is an `unknown-step` diagnostic that says why. Step ids are never reused in a
 * session, those of forgotten results included. `save()` gives JSON, `createPlanSession({ restore })`
 * reads it back with the same own-data rules as every plan.
 */
import type { EarlierSteps } from "../lint/lint-options.js";
import { RefError } from "../shared/errors.js";
import { isPlainArray, isPlainObject, ownData, ownElements } from "../shared/own-data.js";
import { quoted } from "../shared/text.js";
import { readSpanRef, type SpanRef } from "../step/tracing.js";

/** The most results a session keeps by default. */
export const DEFAULT_SESSION_MAX_RESULTS = 1_000;
/** The most bytes of results (UTF-8 of their JSON text) a session keeps by default. */
export const DEFAULT_SESSION_MAX_BYTES = 16 * 1024 * 1024;
/** The most forgotten step ids a session remembers, to say why a reference to one fails. */
const MAX_FORGOTTEN = 10_000;

/** Options of `createPlanSession`. */
export interface PlanSessionOptions {
  /** Most results kept (default 1,000); the oldest is forgotten first. */
  readonly maxResults?: number;
  /** Most bytes of results kept, as UTF-8 of their JSON text (default 16 MiB); the oldest is forgotten first. */
  readonly maxBytes?: number;
  /** Milliseconds a result is kept after its plan ran (default: no limit). */
  readonly ttlMs?: number;
  /** A session's `save()`, to go on with it (a server route handles each turn in a new request). */
  readonly restore?: unknown;
  /** The clock of the time to live, in milliseconds (default `Date.now`). */
  readonly now?: () => number;
}

/** One kept result. */
interface Kept {
  readonly tool: string;
  /** The result as JSON data (what JSON writes and reads back). */
  readonly value: unknown;
  readonly bytes: number;
  /** When its plan ran (the session's clock). */
  readonly at: number;
  /** The plan of the session it came from (1 for the first). */
  readonly plan: number;
  /** Where the span of the step that made it is, in a traced run (a later step that reads it links to it). */
  readonly span?: SpanRef;
}

/** What a session's `save()` gives: JSON data. */
export interface PlanSessionJSON {
  readonly version: 1;
  readonly nextStepId: number;
  readonly plans: number;
  readonly results: readonly {
    readonly id: number;
    readonly tool: string;
    readonly value: unknown;
    readonly at: number;
    readonly plan: number;
    readonly span?: SpanRef;
  }[];
  readonly forgotten: readonly { readonly id: number; readonly why: string }[];
}

const encoder = new TextEncoder();

/** The results of the plans run in one conversation. Make one per conversation with `createPlanSession`. */
export class PlanSession {
  readonly #kept = new Map<number, Kept>();
  readonly #forgotten = new Map<number, string>();
  readonly #maxResults: number;
  readonly #maxBytes: number;
  readonly #ttlMs: number | undefined;
  readonly #now: () => number;
  #bytes = 0;
  #nextStepId = 1;
  #plans = 0;

  /** @internal Use `createPlanSession`. */
  constructor(options: PlanSessionOptions) {
    this.#maxResults = positive(ownData(options, "maxResults"), "maxResults", DEFAULT_SESSION_MAX_RESULTS);
    this.#maxBytes = positive(ownData(options, "maxBytes"), "maxBytes", DEFAULT_SESSION_MAX_BYTES);
    const ttl = ownData(options, "ttlMs");
    this.#ttlMs = ttl === undefined ? undefined : positive(ttl, "ttlMs", 0);
    const now = ownData(options, "now") ?? Date.now;
    if (typeof now !== "function") throw new RefError("invalid-options", "option now must be a function giving milliseconds");
    this.#now = now as () => number;
    const restore = ownData(options, "restore");
    if (restore !== undefined) this.#restore(restore);
  }

  /** The first step id a new plan of this session may use: ids are never reused. */
  get nextStepId(): number {
    return this.#nextStepId;
  }

  /** How many results are kept now. */
  get size(): number {
    this.#expire();
    return this.#kept.size;
  }

  /**
   * The earlier steps as the linter and the run see them: those kept (with their tool), those
   * forgotten (with why), and the next free id.
   */
  earlier(except?: ReadonlySet<number>): EarlierSteps {
    this.#expire();
    return {
      kept: new Map(
        [...this.#kept].filter(([id]) => except?.has(id) !== true).map(([id, kept]) => [id, { tool: kept.tool, plan: kept.plan }] as const),
      ),
      forgotten: new Map([...this.#forgotten].filter(([id]) => except?.has(id) !== true)),
      nextStepId: this.#nextStepId,
    };
  }

  /** The kept results by step id, for resolving references (JSON data). */
  results(): Map<number, unknown> {
    this.#expire();
    return new Map([...this.#kept].map(([id, kept]) => [id, kept.value] as const));
  }

  /** Where the span of each kept result's step is (traced runs only), by step id. */
  spans(): Map<number, SpanRef> {
    this.#expire();
    const spans = new Map<number, SpanRef>();
    for (const [id, kept] of this.#kept) if (kept.span !== undefined) spans.set(id, kept.span);
    return spans;
  }

  /** A kept result's tool and value, or `undefined`. */
  get(id: number): { readonly tool: string; readonly value: unknown } | undefined {
    this.#expire();
    const kept = this.#kept.get(id);
    return kept === undefined ? undefined : { tool: kept.tool, value: kept.value };
  }

  /**
   * Keep the results of a plan that ran in this session (its step ids and tools, and the results of
   * the steps that succeeded, with where their spans are when the run was traced), and move
   * `nextStepId` past every id it used. A result JSON cannot write is not kept (a reference to it says so).
   */
  record(
    steps: readonly { readonly id: number; readonly tool: string }[],
    results: ReadonlyMap<number, unknown>,
    spans?: ReadonlyMap<number, SpanRef>,
  ): void {
    this.#plans++;
    const at = this.#now();
    for (const { id, tool } of steps) {
      if (id >= this.#nextStepId) this.#nextStepId = id + 1;
      if (!results.has(id)) continue;
      let text: string | undefined;
      try {
        text = JSON.stringify(results.get(id));
      } catch {
        text = undefined;
      }
      if (text === undefined) {
        this.#forget(id, "its result cannot be written as JSON");
        continue;
      }
      const bytes = encoder.encode(text).length;
      this.#kept.delete(id);
      const span = spans?.get(id);
      this.#kept.set(id, {
        tool,
        value: JSON.parse(text) as unknown,
        bytes,
        at,
        plan: this.#plans,
        ...(span === undefined ? {} : { span }),
      });
      this.#bytes += bytes;
    }
    this.#bound();
  }

  /**
   * The session as JSON data, to store between requests and give back as `restore`.
   *
   * @example
   * const saved = JSON.stringify(session.save());
   * const next = createPlanSession({ restore: JSON.parse(saved) });
   */
  save(): PlanSessionJSON {
    this.#expire();
    return {
      version: 1,
      nextStepId: this.#nextStepId,
      plans: this.#plans,
      results: [...this.#kept].map(([id, kept]) => ({
        id,
        tool: kept.tool,
        value: kept.value,
        at: kept.at,
        plan: kept.plan,
        ...(kept.span === undefined ? {} : { span: kept.span }),
      })),
      forgotten: [...this.#forgotten].map(([id, why]) => ({ id, why })),
    };
  }

  #forget(id: number, why: string): void {
    const kept = this.#kept.get(id);
    if (kept !== undefined) {
      this.#kept.delete(id);
      this.#bytes -= kept.bytes;
    }
    this.#forgotten.delete(id);
    this.#forgotten.set(id, why);
    if (this.#forgotten.size > MAX_FORGOTTEN) this.#forgotten.delete(this.#forgotten.keys().next().value!);
  }

  /** Forget the oldest results until both bounds hold. */
  #bound(): void {
    this.#expire();
    for (const [id] of this.#kept) {
      if (this.#kept.size <= this.#maxResults && this.#bytes <= this.#maxBytes) break;
      const over =
        this.#kept.size > this.#maxResults
          ? `the session keeps at most ${this.#maxResults} results (maxResults)`
          : `the session keeps at most ${this.#maxBytes} bytes of results (maxBytes)`;
      this.#forget(id, `it was dropped from the session: ${over}, and it was among the oldest`);
    }
  }

  #expire(): void {
    if (this.#ttlMs === undefined) return;
    const now = this.#now();
    for (const [id, kept] of this.#kept) {
      if (now - kept.at <= this.#ttlMs) break; // kept in the order they came
      this.#forget(id, `it was dropped from the session: results are kept ${this.#ttlMs} ms (ttlMs)`);
    }
  }

  #restore(saved: unknown): void {
    const refuse = (what: string): never => {
      throw new RefError("invalid-options", `option restore must be a session's save(): ${what}`);
    };
    if (!isPlainObject(saved) || ownData(saved, "version") !== 1) refuse("an object with version 1");
    const next = ownData(saved, "nextStepId");
    const plans = ownData(saved, "plans");
    if (typeof next !== "number" || !Number.isSafeInteger(next) || next < 1) refuse("nextStepId must be a positive integer");
    if (typeof plans !== "number" || !Number.isSafeInteger(plans) || plans < 0) refuse("plans must be a non-negative integer");
    const results = ownData(saved, "results");
    const forgotten = ownData(saved, "forgotten");
    if (!isPlainArray(results) || !isPlainArray(forgotten)) refuse("results and forgotten must be arrays");
    for (const [entry] of ownElements(forgotten)) {
      const id = ownData(entry, "id");
      const why = ownData(entry, "why");
      if (!isStepId(id) || typeof why !== "string") refuse("each forgotten entry must be { id, why }");
      this.#forgotten.set(id as number, why as string);
    }
    for (const [entry] of ownElements(results)) {
      const id = ownData(entry, "id");
      const tool = ownData(entry, "tool");
      const at = ownData(entry, "at");
      const plan = ownData(entry, "plan");
      if (
        !isStepId(id) ||
        typeof tool !== "string" ||
        typeof at !== "number" ||
        typeof plan !== "number" ||
        (id as number) >= (next as number)
      ) {
        refuse(`result ${quoted(String(id), 20)} must be { id (below nextStepId), tool, value, at, plan }`);
      }
      let text: string | undefined;
      try {
        text = JSON.stringify(ownData(entry, "value") ?? null);
      } catch {
        refuse(`the value of result ${String(id)} cannot be written as JSON`);
      }
      // Read back from its text: the restored value is plain data, whatever the saved object held.
      // A span reference that does not read as one is dropped: it only ever makes a link.
      const span = readSpanRef(ownData(entry, "span"));
      this.#kept.set(id as number, {
        tool: tool as string,
        value: JSON.parse(text!) as unknown,
        bytes: encoder.encode(text).length,
        at: at as number,
        plan: plan as number,
        ...(span === undefined ? {} : { span }),
      });
      this.#bytes += encoder.encode(text).length;
    }
    this.#nextStepId = next as number;
    this.#plans = plans as number;
    this.#bound();
  }
}

function isStepId(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function positive(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
    throw new RefError("invalid-options", `option ${name} must be a positive integer`);
  return value;
}

/**
 * A plan session for one conversation: give it to `runPlan` (`session` option) or to a plan tool
 * (`planTool(tools, { session })`), and each plan's steps may refer to the results of the earlier
 * plans run through it (`$3.items`, linted against the producing tool's output schema) while those
 * results stay here. Make one per conversation, never at module scope: it holds that user's data.
 *
 * @example
 * const session = createPlanSession({ maxResults: 200 });
 * await runPlan({ steps: [{ id: 1, tool: "search", args: { q: "pumps" } }] }, tools, { session });
 * await runPlan({ steps: [{ id: 2, tool: "summarise", args: { hits: "$1.hits" } }] }, tools, { session });
 */
export function createPlanSession(options: PlanSessionOptions = {}): PlanSession {
  if (!isPlainObject(options)) throw new RefError("invalid-options", "createPlanSession options must be a plain object");
  return new PlanSession(options);
}
