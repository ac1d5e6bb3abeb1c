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
    const rows: Row[] = reports.map((report) => ({ name: report.name, medianNs: report.peakGrowthBytes, roundsNs: [report.peakGrowthBytes] }));
    return {
      id: this.id,
      title: this.title,
      unit: "bytes",
      rows,
      baselines: [regex.name],
      targets: ours.map((report) => {
        const peakMb = report.peakGrowthBytes / (1024 * 1024);
        return { description: `peak heap growth: ${report.name}`, measured: peakMb, limit: LIMIT_MB, kind: "max" as const, unit: " MB", met: peakMb < LIMIT_MB };
      }),
      notes: reports.map(
        (r) =>
          `${r.name}: ${r.strings.toLocaleString("en")} strings in ${(r.seconds).toFixed(1)} s; heap growth after a final GC ${(r.retainedBytes / (1024 * 1024)).toFixed(1)} MB` +
          (r.cacheEntries === undefined ? "" : `; parse cache ${r.cacheEntries.toLocaleString("en")} entries (bound ${r.cacheBound!.toLocaleString("en")})`),
      ),
    };
  },
};

export default workload;
