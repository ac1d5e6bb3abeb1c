/**
 * What a worker remembers of the runs it has served: a run never changes once submitted, so its
 * options, catalog, diagnostics and graph are read from the database the first time one of its steps
 * runs here, and kept, within bounds (`KNOWN_RUNS` runs, `KNOWN_STEPS` steps of their graphs).
 */
import type { Diagnostic } from "../shared/diagnostic.js";
import { normalizeOptions, type NormalizedOptions } from "../shared/options.js";
import { scheduleGraph, type ScheduleGraph } from "../step/schedule.js";
import type { StoredRunOptions } from "./submit.js";
import { readRetryOptions, type RetryOptionValues } from "../step/settings.js";

/** No policy: a failed try fails its step. */
const NO_RETRY: RetryOptionValues = { retry: undefined, retryByTool: undefined };

/** A stored run's retry policies (a policy that cannot be read is none). */
export function storedRetry(options: StoredRunOptions): RetryOptionValues {
  try {
    return readRetryOptions(options);
  } catch {
    return NO_RETRY;
  }
}

/** The run's tools that need approval, as stored (names only; anything else in the list is no name). */
function storedApprovalTools(options: StoredRunOptions): ReadonlySet<string> {
  const names = options.approvalTools;
  return new Set(Array.isArray(names) ? names.filter((name): name is string => typeof name === "string") : []);
}

/** How many runs a worker remembers (options, catalog, graph): past this, the oldest is read again when needed. */
export const KNOWN_RUNS = 4_096;
/** How many steps (of the runs it remembers) a worker keeps the graph of, at most (one bigger run is kept alone). */
export const KNOWN_STEPS = 200_000;

/** What a worker knows of a run without asking the database again (a submitted run never changes). */
export interface KnownRun {
  readonly graph: ScheduleGraph;
  readonly diagnostics: readonly Diagnostic[];
  /** The tools whose steps wait for a person's approval (absent: none). */
  readonly approvalTools?: ReadonlySet<string>;
}

/** A run as a worker remembers it. */
export interface KnownRunInfo extends KnownRun {
  readonly options: StoredRunOptions;
  /** Its language options, normalised once. */
  readonly language: NormalizedOptions;
  readonly catalog: Record<string, unknown> | null;
  /** The run's retry policies, read back with the shared readers (a stored policy that does not read is no policy). */
  readonly retry: RetryOptionValues;
}

/** The claim's row, with the columns of a run it reads the first time a worker sees it (`options`, `catalog`, `diagnostics`, `graph`). */
export type RunRow = Readonly<Record<string, unknown>>;

/**
 * The runs a worker knows, oldest first.
 *
 * @example
 * const known = runs.get(runId) ?? runs.add(runId, row)
 */
export class KnownRuns {
  readonly #runs = new Map<string, KnownRunInfo>();
  readonly #languages = new Map<string, NormalizedOptions>();
  #steps = 0;

  get(runId: string): KnownRunInfo | undefined {
    return this.#runs.get(runId);
  }

  /** Keep what the claim read of a run (two of its steps may read it at once: the first is kept); past the bounds, the oldest are forgotten. */
  add(runId: string, row: RunRow): KnownRunInfo {
    const kept = this.#runs.get(runId);
    if (kept !== undefined) return kept;
    const options = row.options as StoredRunOptions;
    const known: KnownRunInfo = {
      options,
      language: this.#language(options),
      catalog: row.catalog as Record<string, unknown> | null,
      retry: storedRetry(options),
      approvalTools: storedApprovalTools(options),
      diagnostics: (row.diagnostics ?? []) as Diagnostic[],
      graph: scheduleGraph(((row.graph ?? []) as [number, number[]][]).map(([id, dependencies]) => ({ id: Number(id), dependencies }))),
    };
    const size = known.graph.order.length;
    while (this.#runs.size > 0 && (this.#runs.size >= KNOWN_RUNS || this.#steps + size > KNOWN_STEPS)) {
      const [oldest, info] = this.#runs.entries().next().value!;
      this.#runs.delete(oldest);
      this.#steps -= info.graph.order.length;
    }
    this.#runs.set(runId, known);
    this.#steps += size;
    return known;
  }

  /** Language options normalised once per distinct set (most runs share one). */
  #language(options: StoredRunOptions): NormalizedOptions {
    const key = JSON.stringify(options.language);
    let language = this.#languages.get(key);
    if (language === undefined) {
      if (this.#languages.size >= KNOWN_RUNS) this.#languages.clear();
      language = normalizeOptions(options.language);
      this.#languages.set(key, language);
    }
    return language;
  }
}
