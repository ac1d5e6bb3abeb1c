/**
 * Child process of workload 6 (run with --expose-gc): resolves 1,000,000 distinct placeholder strings,
 * ten arguments per call, sampling the heap as it goes, and prints one JSON report on stdout.
 */
import { parseCacheStats } from "../src/grammar/index.js";
import { resolveRefs } from "../src/index.js";
import { regexResolve } from "./baselines/regex-resolver.js";

/** What the child reports to workload 6. */
export interface MemoryReport {
  readonly name: string;
  readonly strings: number;
  /** Highest heapUsed seen while resolving, minus heapUsed after a GC before starting (garbage included: that is the peak). */
  readonly peakGrowthBytes: number;
  /** heapUsed after a final GC, minus the starting figure: what stays behind. */
  readonly retainedBytes: number;
  readonly seconds: number;
  readonly cacheEntries?: number;
  readonly cacheBound?: number;
}

const STRINGS = 1_000_000;
const PER_CALL = 10;
const KEYS = 1000;

type Resolve = (args: Record<string, unknown>, results: Record<string, unknown>) => Record<string, unknown>;

/** `repeat`: how many arguments of one call hold the same string (2 makes every string hot enough to be cached). */
const contenders: Record<string, { name: string; resolve: Resolve; repeat: number }> = {
  resolveRefs: { name: "plan-refs resolveRefs", resolve: (args, results) => resolveRefs(args, results), repeat: 1 },
  resolveRefsTwice: {
    name: "plan-refs resolveRefs, each string twice (cache full)",
    resolve: (args, results) => resolveRefs(args, results),
    repeat: 2,
  },
  regex: { name: "regex resolver", resolve: regexResolve, repeat: 1 },
};

function main(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run me with node --expose-gc");
  const contender = contenders[process.argv[2] ?? ""];
  if (contender === undefined) throw new Error(`unknown contender ${process.argv[2]}`);

  // Step s (0-999) has one shared result with keys k0…k999: `$s.kK` is 1,000,000 distinct strings.
  const shared = Object.fromEntries(Array.from({ length: KEYS }, (_, k) => [`k${k}`, k]));
  const results = Object.fromEntries(Array.from({ length: STRINGS / KEYS }, (_, s) => [String(s), shared]));
  const keys = Array.from({ length: PER_CALL }, (_, i) => `a${i}`);

  gc();
  gc();
  const start = process.memoryUsage().heapUsed;
  let peak = start;
  let checksum = 0;
  const began = performance.now();
  const distinctPerCall = PER_CALL / contender.repeat;
  for (let i = 0; i < STRINGS; i += distinctPerCall) {
    const args: Record<string, unknown> = {};
    for (let j = 0; j < PER_CALL; j++) {
      const n = i + Math.floor(j / contender.repeat);
      args[keys[j]!] = `$${Math.floor(n / KEYS)}.k${n % KEYS}`;
    }
    const out = contender.resolve(args, results);
    checksum += out["a0"] as number;
    if (i % 1000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  const seconds = (performance.now() - began) / 1000;
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  gc();
  gc();
  const retained = process.memoryUsage().heapUsed - start;
  const stats = contender.resolve === regexResolve ? undefined : parseCacheStats();
  const report: MemoryReport = {
    name: contender.name,
    strings: STRINGS,
    peakGrowthBytes: peak - start,
    retainedBytes: retained,
    seconds,
    ...(stats === undefined ? {} : { cacheEntries: stats.size, cacheBound: stats.maxEntries }),
  };
  if (!Number.isFinite(checksum)) throw new Error("unreachable");
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main();
