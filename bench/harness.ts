/**
 * The benchmark harness: timing with tinybench, the shapes every workload reports, and the table
 * printer. Timings are medians; every ratio compares two tasks measured in the same run.
 */
import { Bench } from "tinybench";

/** One measured task: the median time of one operation, in nanoseconds. */
export interface Row {
  readonly name: string;
  readonly medianNs: number;
  /** Medians of each round (the reported median is the median of these). */
  readonly roundsNs: readonly number[];
  /** What one operation is, when it is not one call (for example "per node"). */
  readonly note?: string;
}

/** A target of the issue, checked on the figures of this run. */
export interface Target {
  readonly description: string;
  readonly measured: number;
  readonly limit: number;
  /** `max`: measured must be at most the limit; `min`: at least. */
  readonly kind: "max" | "min";
  readonly unit: string;
  readonly met: boolean;
}

/** What a workload hands back to the runner. */
export interface WorkloadReport {
  readonly id: string;
  readonly title: string;
  /** Unit of `Row.medianNs` when it is not time (memory workloads report bytes). */
  readonly unit: "ns" | "bytes";
  readonly rows: readonly Row[];
  /** Names of the rows that the other rows are compared with. */
  readonly baselines: readonly string[];
  readonly targets: readonly Target[];
  readonly notes: readonly string[];
}

/** A workload: one file in bench/workloads/ whose default export is this. */
export interface Workload {
  /** The workload number ("1", "2", …). */
  readonly id: string;
  readonly title: string;
  run(): Promise<WorkloadReport>;
}

/** Somewhere results go so that the engine cannot drop the work. */
export let sink: unknown;
/** Keep `value` alive (see `sink`). */
export function consume(value: unknown): void {
  sink = value;
}

export interface MeasureOptions {
  /** Calls of the task per timed sample (short operations are batched so the timer's cost vanishes). */
  readonly batch: number;
  /** Time budget per task and round, in milliseconds. */
  readonly time: number;
  /** Rounds; tasks are interleaved round by round so that drifting machine load hits them all alike. */
  readonly rounds: number;
  /** Least timed calls per task and round (default 8); slow tasks (a 100,000-step plan) use fewer. */
  readonly iterations?: number;
  /** Least warm-up calls per task and round (tinybench's default when absent). */
  readonly warmupIterations?: number;
  /** The tasks return promises, awaited one at a time (each call's time runs until its promise settles). */
  readonly async?: boolean;
  /**
   * Untimed calls after each forced collection, before the timed ones: at least this many (default 3)
   * and for at least 100 ms. Right after `gc()` a task runs slower than it settles at (the collector
   * has shrunk the heap it grows back, and may have flushed compiled code): measured, the first calls
   * of runPlan on 10,000 steps took up to 6 times their settled time, more than a task that allocates
   * less. tinybench warms every task up first and then times them all, each right after its setup's
   * collection, so its own warm-up cannot settle them.
   */
  readonly settleCalls?: number;
}

/** Time each task; returns one row per task, in the order given. */
export async function measure(tasks: Readonly<Record<string, () => unknown>>, options: MeasureOptions): Promise<Row[]> {
  const names = Object.keys(tasks);
  const rounds = new Map<string, number[]>(names.map((name) => [name, []]));
  for (let round = 0; round < options.rounds; round++) {
    const calls = new Map<string, () => Promise<void> | void>();
    const settle = options.settleCalls ?? 3;
    // Each task starts from a collected heap (when run with --expose-gc), so none pays for another's
    // garbage, then makes a few untimed calls so that the heap has grown back to its running size.
    const setup = async (task?: { name: string }, mode?: "run" | "warmup"): Promise<void> => {
      collectGarbage();
      const call = task === undefined ? undefined : calls.get(task.name);
      if (mode !== "run" || call === undefined) return;
      const start = performance.now();
      for (let i = 0; i < settle || performance.now() - start < 100; i++) await call();
    };
    const bench = new Bench({
      time: options.time,
      warmupTime: Math.max(50, options.time / 3),
      iterations: options.iterations ?? 8,
      ...(options.warmupIterations === undefined ? {} : { warmupIterations: options.warmupIterations }),
      throws: true,
      setup,
    });
    // Rotate the order each round: no task always runs first (or last).
    const order = names.map((_, i) => names[(i + round) % names.length]!);
    for (const name of order) {
      const task = tasks[name]!;
      const batch = options.batch;
      const call =
        options.async === true
          ? async () => {
              for (let i = 0; i < batch; i++) sink = await task();
            }
          : () => {
              for (let i = 0; i < batch; i++) sink = task();
            };
      calls.set(name, call);
      bench.add(name, call);
    }
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result;
      if (result.state !== "completed") throw new Error(`task ${task.name} did not complete (${result.state})`);
      rounds.get(task.name)!.push((result.latency.p50 * 1e6) / options.batch);
    }
  }
  return names.map((name) => {
    const values = rounds.get(name)!;
    return { name, medianNs: median(values), roundsNs: values };
  });
}

/** A full garbage collection, when node runs with --expose-gc (`npm run bench` does). */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc !== undefined) {
    gc();
    gc();
  }
}

/** A ratio of two tasks' times measured in interleaved pairs. */
export interface PairedRatio {
  /** The median of the pairs' ratios. */
  readonly median: number;
  /** The 25th and 75th percentiles of the pairs' ratios (how much they spread). */
  readonly low: number;
  readonly high: number;
  readonly pairs: number;
}

/**
 * The ratio of `numerator`'s time to `denominator`'s, robust to drifting machine load: after
 * `warmup` calls of each, `pairs` pairs, each a forced collection and then `calls` timed calls of one
 * task right beside `calls` of the other (which goes first alternates), so that both meet the same
 * load and the same heap; the result is the median of the pairs' ratios (one pair that met a burst
 * of load moves it by one place, not by its size). Time is this process's CPU time
 * (`process.cpuUsage`, user and system), not the clock: what other processes on a shared machine take
 * of the cores is not counted against either task. The tasks are awaited.
 */
export async function pairedRatio(
  numerator: () => unknown,
  denominator: () => unknown,
  options: { readonly pairs: number; readonly calls: number; readonly warmup: number },
): Promise<PairedRatio> {
  const timed = async (task: () => unknown): Promise<number> => {
    const start = process.cpuUsage();
    for (let i = 0; i < options.calls; i++) consume(await task());
    const used = process.cpuUsage(start);
    return used.user + used.system;
  };
  for (let i = 0; i < options.warmup; i++) {
    consume(await numerator());
    consume(await denominator());
  }
  const ratios: number[] = [];
  for (let pair = 0; pair < options.pairs; pair++) {
    collectGarbage();
    // An untimed call of each after the collection (see MeasureOptions.settleCalls).
    consume(await numerator());
    consume(await denominator());
    if (pair % 2 === 0) {
      const a = await timed(numerator);
      ratios.push(a / (await timed(denominator)));
    } else {
      const b = await timed(denominator);
      ratios.push((await timed(numerator)) / b);
    }
  }
  const sorted = [...ratios].sort((x, y) => x - y);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { median: median(ratios), low: at(0.25), high: at(0.75), pairs: ratios.length };
}

/** A target on a ratio measured in pairs (`pairedRatio`). */
export function pairedTarget(description: string, ratio: PairedRatio, kind: "max" | "min", limit: number): Target {
  return {
    description,
    measured: ratio.median,
    limit,
    kind,
    unit: "×",
    met: kind === "max" ? ratio.median <= limit : ratio.median >= limit,
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The row named `name` (a typo in a workload is a bug, not a missing figure). */
export function row(rows: readonly Row[], name: string): Row {
  const found = rows.find((r) => r.name === name);
  if (found === undefined) throw new Error(`no row named ${name}`);
  return found;
}

/** A target on a ratio of two rows' medians: `numerator / denominator`. */
export function ratioTarget(
  rows: readonly Row[],
  description: string,
  numerator: string,
  denominator: string,
  kind: "max" | "min",
  limit: number,
): Target {
  const measured = row(rows, numerator).medianNs / row(rows, denominator).medianNs;
  return { description, measured, limit, kind, unit: "×", met: kind === "max" ? measured <= limit : measured >= limit };
}

export function formatTime(ns: number): string {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

export function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return `${mb.toFixed(1)} MB`;
}

/** A Markdown table (it reads well in a terminal and pastes into the README as it is). */
export function markdownTable(header: readonly string[], lines: readonly (readonly string[])[]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...lines.map((line) => (line[i] ?? "").length)));
  const format = (cells: readonly string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`;
  return [format(header), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...lines.map(format)].join("\n");
}

/** The table of one workload: medians, then the ratio of each row to each baseline (time ÷ baseline time). */
export function workloadTable(report: WorkloadReport): string {
  const format = report.unit === "bytes" ? formatBytes : formatTime;
  const header = ["task", report.unit === "bytes" ? "peak heap growth" : "median", ...report.baselines.map((b) => `÷ ${b}`)];
  const lines = report.rows.map((r) => [
    r.note === undefined ? r.name : `${r.name} (${r.note})`,
    format(r.medianNs),
    ...report.baselines.map((b) => `${(r.medianNs / row(report.rows, b).medianNs).toFixed(2)}×`),
  ]);
  return markdownTable(header, lines);
}

export function targetsTable(targets: readonly (Target & { workload: string })[]): string {
  return markdownTable(
    ["workload", "target", "measured", "limit", "met"],
    targets.map((t) => [
      t.workload,
      t.description,
      `${t.measured.toFixed(2)}${t.unit}`,
      `${t.kind === "max" ? "≤" : "≥"} ${t.limit}${t.unit}`,
      t.met ? "yes" : "NO",
    ]),
  );
}
