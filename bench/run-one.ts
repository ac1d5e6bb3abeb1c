/**
 * Runs one workload file in this process and prints its report as JSON on stdout. `run.ts` starts one
 * such process per workload, so that no workload inherits another's compiled code, inline-cache
 * states or parse-cache contents.
 */
import type { Workload } from "./harness.js";

const file = process.argv[2];
if (file === undefined) throw new Error("usage: run-one.js <workload file URL>");
const module = (await import(file)) as { default?: Workload };
if (module.default === undefined) throw new Error(`${file} has no default export`);
const report = await module.default.run();
process.stdout.write(`${JSON.stringify(report)}\n`);
