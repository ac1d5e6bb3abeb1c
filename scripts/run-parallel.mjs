#!/usr/bin/env node
/**
 * Runs npm scripts at the same time and fails if any fails: `node scripts/run-parallel.mjs typecheck lint build`.
 * `npm test` starts with the typecheck, the linter and the build, three programs that each keep one core busy
 * for most of their run, so on 2 cores together they take about as long as the longest (they read src/ and
 * write nothing the others read: the build writes dist/, which the linter ignores). Each script's output is
 * held and printed whole when it ends, in the order given, so the lines of two scripts never interleave.
 */
import { spawn } from "node:child_process";

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  process.stderr.write("usage: node scripts/run-parallel.mjs SCRIPT [SCRIPT ...] (npm scripts of this package)\n");
  process.exit(2);
}

/** One npm script, its output kept: what it printed and how it ended. */
function runScript(name) {
  return new Promise((resolve) => {
    const output = [];
    const child = spawn("npm", ["run", "--silent", name], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("error", (error) => resolve({ name, code: 1, output: [Buffer.from(`npm run ${name}: ${error.message}\n`)] }));
    child.on("close", (code, signal) => resolve({ name, code: code ?? 1, signal, output }));
  });
}

const results = await Promise.all(scripts.map(runScript));
let failed = 0;
for (const result of results) {
  process.stdout.write(Buffer.concat(result.output));
  if (result.code !== 0) {
    failed += 1;
    process.stderr.write(`npm run ${result.name} failed (${result.signal ?? `exit code ${result.code}`})\n`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
