/**
 * Linear parsing: each adversarial input is timed at size n and 2n, and the ratio of the two
 * times is reported. Linear work gives a ratio near 2; a quadratic parser would give 4. The four
 * inputs of the issue (a 1 MB string without `$`, 1 MB of digits after `$`, `"$1" + ".a".repeat(n) + "!"`,
 * `"${1} ".repeat(n)`) are parsed with limits raised so the whole input is read; with the default
 * limits each is a result or a fast `limit` error, timed too. Tests assert outcomes only; the times
 * live here.
 *
 * `linearParseScaling()` returns the rows; `linearParseWorkload` has the shape of a bench/workloads/
 * default export, for the bench runner; `node bench-dist/bench/linear-parse.js` prints a table.
 */
import { fileURLToPath } from "node:url";
import { isPlaceholder, parseTemplate, resolveRefs, tryParseRef } from "../src/index.js";
import type { ResolveOptions } from "../src/shared/options.js";
import { collectGarbage, consume, markdownTable, median, type Target, type Workload, type WorkloadReport } from "./harness.js";

/** One input, made at any size. */
interface ScalingCase {
  readonly name: string;
  /** The size of the issue (characters or repetitions); the case is also timed at twice this. */
  readonly n: number;
  readonly make: (n: number) => string;
  readonly run: (text: string) => unknown;
}

/** What one case measured. */
export interface ScalingRow {
  readonly name: string;
  readonly n: number;
  /** Median milliseconds at n and at 2n. */
  readonly msAtN: number;
  readonly msAt2N: number;
  /** msAt2N / msAtN: about 2 when the work is linear (under 1 ms both ways, noise dominates). */
  readonly ratio: number;
}

const raised: ResolveOptions = {
  maxRefLength: 1 << 26,
  maxSegments: 1 << 26,
  maxInterpolations: 1 << 26,
  maxPlaceholders: 1 << 26,
  maxOutputLength: 1 << 28,
};
const MB = 1 << 20;

/** tryParseRef must either parse or fail: both are outcomes; only a raw error would be a bug. */
const parse = (options: ResolveOptions) => (text: string) => tryParseRef(text, options);

const cases: readonly ScalingCase[] = [
  // The four inputs of the issue, parsed in full (limits raised).
  {
    name: "1 MB without $ (resolveRefs, passes through)",
    n: MB,
    make: (n) => "x".repeat(n),
    run: (text) => resolveRefs({ q: text }, {}, raised),
  },
  { name: "digits after $ (parse, limits raised)", n: MB, make: (n) => `$${"7".repeat(n)}`, run: parse(raised) },
  // The issue's size is 100,000 (the tests parse exactly that); timed from 200,000 up (see "[0]" below).
  {
    name: '"$1" + ".a" x n + "!" (path, limits raised)',
    n: 200_000,
    make: (n) => `$1${".a".repeat(n)}!`,
    run: parse({ ...raised, syntax: "path" }),
  },
  {
    name: '"${1} " x n (templates, limits raised)',
    n: 200_000,
    make: (n) => "${1} ".repeat(n),
    run: parse({ ...raised, templates: true }),
  },
  // The same with the default limits: a pass-through or a limit error, at once.
  { name: "digits after $ (default limits: limit error)", n: MB, make: (n) => `$${"7".repeat(n)}`, run: parse({}) },
  {
    name: '"$1" + ".a" x n + "!" (default limits: limit error)',
    n: 100_000,
    make: (n) => `$1${".a".repeat(n)}!`,
    run: parse({ syntax: "path" }),
  },
  { name: '"${1} " x n (default limits: limit error)', n: 200_000, make: (n) => "${1} ".repeat(n), run: parse({ templates: true }) },
  {
    name: '"$5 off " + text (default limits: passes through)',
    n: MB,
    make: (n) => `$5 off ${"x".repeat(n)}`,
    run: (text) => resolveRefs({ q: text }, {}),
  },
  // More shapes that would expose backtracking or per-item rescans.
  {
    name: '"$1??" x n + "$1" (path, limits raised)',
    n: 100_000,
    make: (n) => `${"$1??".repeat(n)}$1`,
    run: parse({ ...raised, syntax: "path" }),
  },
  // Parsed nodes by the hundred thousand: somewhere between 100,000 and 200,000 of them V8's collector
  // moves the growing tree into old space once (a one-time step, not a trend); from 200,000 on, time doubles with n.
  { name: '"[0]" x n (path, limits raised)', n: 200_000, make: (n) => `$1${"[0]".repeat(n)}`, run: parse({ ...raised, syntax: "path" }) },
  {
    name: 'near miss: ".a" x n + " !" (path, strict)',
    n: 100_000,
    make: (n) => `$1${".a".repeat(n)} !`,
    run: parse({ ...raised, syntax: "path", strict: true }),
  },
  {
    name: 'unclosed "${1" + ".a" x n (templates)',
    n: 100_000,
    make: (n) => `\${1${".a".repeat(n)}`,
    run: parse({ ...raised, syntax: "path", templates: true }),
  },
  {
    name: '"x$ " x n (template text with lone $)',
    n: 200_000,
    make: (n) => `${"x$ ".repeat(n)}\${1}`,
    run: (text) => parseTemplate(text, raised),
  },
  {
    name: "isPlaceholder on 1 MB of text",
    n: MB,
    make: (n) => `$1 ${"x".repeat(n)}`,
    run: (text) => isPlaceholder(text, { syntax: "path" }),
  },
];

function timeMs(run: () => unknown, repeats: number): number {
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    collectGarbage();
    const start = performance.now();
    consume(run());
    times.push(performance.now() - start);
  }
  return median(times);
}

/**
 * Time every case at n and 2n (each the median of `repeats` runs, garbage collected before each when
 * node runs with --expose-gc). `scale` shrinks or grows every n (0.1 for a quick look).
 *
 * @example
 * for (const row of linearParseScaling({ repeats: 3 })) console.log(row.name, row.ratio.toFixed(2))
 */
export function linearParseScaling(options: { repeats?: number; scale?: number } = {}): ScalingRow[] {
  const repeats = options.repeats ?? 5;
  const scale = options.scale ?? 1;
  return cases.map((item) => {
    const n = Math.max(1, Math.round(item.n * scale));
    const small = item.make(n);
    const large = item.make(2 * n);
    item.run(item.make(Math.min(n, 1000))); // warm up the code paths, not the cache (long strings are never cached)
    const msAtN = timeMs(() => item.run(small), repeats);
    const msAt2N = timeMs(() => item.run(large), repeats);
    return { name: item.name, n, msAtN, msAt2N, ratio: msAt2N / Math.max(msAtN, 1e-3) };
  });
}

/** Ratios above this count as superlinear: linear work doubles (2), noise and GC add some. */
export const MAX_LINEAR_RATIO = 2.8;
/** Below this many milliseconds at 2n a case is too fast for its ratio to mean anything. */
const NOISE_MS = 2;

/**
 * The measurement as a bench workload (the shape of a bench/workloads/ default export): rows in
 * nanoseconds at 2n, and one target per case that takes measurable time: ratio at most 2.8.
 */
export const linearParseWorkload: Workload = {
  id: "linear",
  title: "Linear parsing: time at n and 2n of adversarial inputs (ratio about 2 when linear)",
  async run(): Promise<WorkloadReport> {
    const rows = linearParseScaling();
    const targets: Target[] = rows
      .filter((item) => item.msAt2N >= NOISE_MS)
      .map((item) => ({
        description: `${item.name}: time(2n) / time(n)`,
        measured: Number(item.ratio.toFixed(2)),
        limit: MAX_LINEAR_RATIO,
        kind: "max",
        unit: "×",
        met: item.ratio <= MAX_LINEAR_RATIO,
      }));
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows: rows.map((item) => ({
        name: item.name,
        medianNs: item.msAt2N * 1e6,
        roundsNs: [item.msAtN * 1e6, item.msAt2N * 1e6],
        note: `n = ${item.n}: ${item.msAtN.toFixed(2)} ms; 2n: ${item.msAt2N.toFixed(2)} ms; ratio ${item.ratio.toFixed(2)}`,
      })),
      baselines: [],
      targets,
      notes: [
        `Each time is the median of 5 runs. Cases under ${NOISE_MS} ms at 2n are listed without a target: their ratio is timer noise.`,
      ],
    };
  },
};

/** A markdown table of the rows. */
export function scalingTable(rows: readonly ScalingRow[]): string {
  return markdownTable(
    ["Input", "n", "time at n", "time at 2n", "ratio"],
    rows.map((item) => [item.name, String(item.n), `${item.msAtN.toFixed(2)} ms`, `${item.msAt2N.toFixed(2)} ms`, item.ratio.toFixed(2)]),
  );
}

// Run directly: node --expose-gc bench-dist/bench/linear-parse.js [scale]
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const scale = process.argv[2] === undefined ? 1 : Number(process.argv[2]);
  console.log(scalingTable(linearParseScaling({ scale })));
}
