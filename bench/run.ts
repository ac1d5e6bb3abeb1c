/**
 * `npm run bench`: runs every workload in bench/workloads/ (each file's default export, in the order of
 * the issue's numbers, each in its own node process), prints a table of medians and ratios per workload
 * and the targets, and writes the figures to bench-results/results.json (ignored by git, so a run leaves
 * the working tree clean). `npm run bench -- --update` also replaces the committed bench/results.json
 * (a full run only). `npm run bench -- 1 3` runs only workloads 1 and 3. `--load N` (the same as the
 * environment variable PLAN_REFS_BENCH8_LOAD=N) adds workload 8's load phase: N × 1,000 plans through 4
 * worker processes (`npm run bench -- 8 --load 10`: the 10,000 plans × 10 steps of the targets).
 *
 * A new workload is one more file in bench/workloads/ named `<number>-<name>.ts`; nothing here changes.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem, type as osType, release } from "node:os";
import { fileURLToPath } from "node:url";
import { targetsTable, workloadTable, type Target, type WorkloadReport } from "./harness.js";

const workloadDir = new URL("./workloads/", import.meta.url);
// Compiled to bench-dist/bench/: a run's figures go to bench-results/ (ignored by git); `--update` also
// writes the committed bench/results.json.
const freshDir = fileURLToPath(new URL("../../bench-results/", import.meta.url));
const committedFile = fileURLToPath(new URL("../../bench/results.json", import.meta.url));

/** The workload files, in the order of the numbers (`1-…`, `2-…`), those asked for only. */
function workloadFiles(only: readonly string[]): URL[] {
  return readdirSync(workloadDir)
    .filter((file) => /^\d+-.*\.js$/.test(file))
    .filter((file) => only.length === 0 || only.includes(String(Number.parseInt(file, 10))))
    .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10))
    .map((file) => new URL(file, workloadDir));
}

/** Run one workload in a fresh node process (see run-one.ts) and return its report. */
function runIsolated(file: URL): WorkloadReport {
  const runOne = fileURLToPath(new URL("./run-one.js", import.meta.url));
  const child = spawnSync(process.execPath, ["--expose-gc", runOne, file.href], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 16 << 20,
  });
  if (child.status !== 0) throw new Error(`workload ${fileURLToPath(file)} failed (exit ${child.status ?? child.signal})`);
  return JSON.parse(child.stdout) as WorkloadReport;
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
    // Other processes' load makes every figure noisier; ratios within one run hold up best.
    loadAverageAtStart: loadavg().map((load) => Number(load.toFixed(2))),
  };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const update = argv.includes("--update");
  const load = argv.indexOf("--load");
  // Passed down to the workload processes through their environment.
  if (load >= 0) process.env["PLAN_REFS_BENCH8_LOAD"] = argv.splice(load, 2)[1] ?? "";
  const only = argv.filter((arg) => arg !== "--update");
  const files = workloadFiles(only);
  const about = machine();
  console.log(
    `plan-refs benchmarks — Node ${about.node}, ${about.cpu} (${about.cores} cores), ${about.os}, load average ${about.loadAverageAtStart.join(" ")}\n`,
  );
  const reports: WorkloadReport[] = [];
  const began = performance.now();
  for (const file of files) {
    const started = performance.now();
    const report = runIsolated(file);
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
  const text = `${JSON.stringify(document, null, 2)}\n`;
  mkdirSync(freshDir, { recursive: true });
  writeFileSync(`${freshDir}results.json`, text);
  console.log("Figures written to bench-results/results.json.");
  if (update && only.length === 0) {
    writeFileSync(committedFile, text);
    console.log("--update: bench/results.json replaced with these figures.");
  } else if (update) {
    console.log("A partial run (workloads chosen on the command line) does not update bench/results.json, --update or not.");
  } else {
    console.log("bench/results.json (committed) is left as it is: `npm run bench -- --update` replaces it.");
  }
}

await main();
