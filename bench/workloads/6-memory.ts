/**
 * Workload 6: peak heap while resolving 1,000,000 distinct placeholder strings. Each contender runs in
 * its own child process (`node --expose-gc bench-dist/bench/memory-child.js <contender>`), so that one
 * run's garbage never counts against another.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { MemoryReport } from "../memory-child.js";
import { type Row, type Workload } from "../harness.js";

const LIMIT_MB = 64;

function runChild(contender: string): MemoryReport {
  const child = fileURLToPath(new URL("../memory-child.js", import.meta.url));
  const output = execFileSync(process.execPath, ["--expose-gc", child, contender], { encoding: "utf8", maxBuffer: 1 << 20 });
  return JSON.parse(output) as MemoryReport;
}

const workload: Workload = {
  id: "6",
  title: "peak heap while resolving 1,000,000 distinct placeholder strings",
  async run() {
    const ours = [runChild("resolveRefs"), runChild("resolveRefsTwice")];
    const regex = runChild("regex");
    const reports = [...ours, regex];
    const rows: Row[] = reports.map((report) => ({
      name: report.name,
      medianNs: report.peakGrowthBytes,
      roundsNs: [report.peakGrowthBytes],
    }));
    return {
      id: this.id,
      title: this.title,
      unit: "bytes",
      rows,
      baselines: [regex.name],
      // The workload is the first: distinct strings, each resolved once. The second is a stress
      // case (every string hot enough to be cached) that shows the bound at work; its peak is mostly
      // evicted entries the engine has not collected yet, so it is reported, not held to the target.
      targets: [ours[0]!].map((report) => {
        const peakMb = report.peakGrowthBytes / (1024 * 1024);
        return {
          description: `peak heap growth: ${report.name}`,
          measured: peakMb,
          limit: LIMIT_MB,
          kind: "max" as const,
          unit: " MB",
          met: peakMb < LIMIT_MB,
        };
      }),
      notes: [
        "Peak heap growth: the highest heapUsed sampled every 1,000 strings, minus heapUsed after a GC before the run; garbage not yet collected counts.",
        "The stress row resolves each string twice, so each is admitted to the parse cache (on its second sighting) and the cache churns at its bound: the entries kept stay bounded (see the heap after a final GC), while the peak mostly measures evicted entries that V8 collects later.",
      ].concat(
        reports.map(
          (r) =>
            `${r.name}: ${r.strings.toLocaleString("en")} strings in ${r.seconds.toFixed(1)} s; heap growth after a final GC ${(r.retainedBytes / (1024 * 1024)).toFixed(1)} MB` +
            (r.cacheEntries === undefined
              ? ""
              : `; parse cache ${r.cacheEntries.toLocaleString("en")} entries (bound ${r.cacheBound!.toLocaleString("en")})`),
        ),
      ),
    };
  },
};

export default workload;
