/**
 * `npm run bench`: runs every workload in bench/workloads/ (each file's default export, in the order of
 * the numbers), prints a table of medians and ratios per workload and the targets, and writes
 * the figures to bench/results.json. `npm run bench -- 1 3` runs only workloads 1 and 3.
 *
 * A new workload is one more file in bench/workloads/ named `<number>-<name>.ts`; nothing here changes.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem, type as osType, release } from "node:os";
import { fileURLToPath } from "node:url";
import { targetsTable, workloadTable, type Target, type Workload, type WorkloadReport } from "./harness.js";

const workloadDir = new URL("./workloads/", import.meta.url);
// Compiled to bench-dist/bench/: results go next to the sources, in bench/.
const resultsFile = fileURLToPath(new URL("../../bench/results.json", import.meta.url));

async function loadWorkloads(only: readonly string[]): Promise<Workload[]> {
  const files = readdirSync(workloadDir)
    .filter((file) => /^\d+-.*\.js$/.test(file))
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
  const workloads: Workload[] = [];
  for (const file of files) {
    const module = (await import(new URL(file, workloadDir).href)) as { default?: Workload };
    if (module.default === undefined) throw new Error(`bench/workloads/${file} has no default export`);
    if (only.length === 0 || only.includes(module.default.id)) workloads.push(module.default);
  }
  return workloads;
}

function machine() {
  const cpu = cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    os: `${osType()} ${release()}`,
    cpu: cpu[0]?.model.trim() ?? "unknown",
    cores: cpu.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
  };
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const workloads = await loadWorkloads(only);
  const about = machine();
  console.log(`plan-refs benchmarks — Node ${about.node}, ${about.cpu} (${about.cores} cores), ${about.os}\n`);
  const reports: WorkloadReport[] = [];
  const began = performance.now();
  for (const workload of workloads) {
    const started = performance.now();
    const report = await workload.run();
    reports.push(report);
    console.log(`## Workload ${report.id}: ${report.title}\n`);
    console.log(workloadTable(report));
    for (const note of report.notes) console.log(`\n- ${note}`);
    console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
  }
  const targets: (Target & { workload: string })[] = reports.flatMap((r) => r.targets.map((t) => ({ ...t, workload: r.id })));
  if (targets.length > 0) console.log(`## Targets\n\n${targetsTable(targets)}\n`);
  const seconds = (performance.now() - began) / 1000;
  console.log(`Total ${seconds.toFixed(0)} s.`);
  const document = { date: new Date().toISOString(), machine: about, seconds, workloads: reports, targets };
  if (only.length === 0) {
    writeFileSync(resultsFile, `${JSON.stringify(document, null, 2)}\n`);
    console.log(`Figures written to bench/results.json.`);
  } else {
    console.log("A partial run (workloads chosen on the command line) does not overwrite bench/results.json.");
  }
}

await main();
