/**
 * Workload 10: plan-refs as an MCP server. The same work, a 10-step plan in 5 dependency levels (2
 * steps a level, each reading both results of the level before) over an upstream MCP server whose tool
 * takes 20 ms, done (a) as one `run_plan` call to `plan-refs mcp serve` and (b) as the 10 `tools/call`s
 * a client makes one after another through the same server's `--expose-tools` (each call's arguments
 * come from the answers before it, as a client without plans must wait for them). Both go through the
 * built executable (dist/cli/main.js) over stdio, with the SDK's own Client; the upstream is
 * test/fixtures/plan-upstream.mjs. No model: what is measured is the calls alone.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { median, type Row, type Workload } from "../harness.js";

const TOOL_MS = 20;
const LEVELS = 5;
const ROUNDS = 7;

const root = new URL("../../../", import.meta.url);
const main = fileURLToPath(new URL("dist/cli/main.js", root));
const upstream = fileURLToPath(new URL("test/fixtures/plan-upstream.mjs", root));

/** Step ids 1–10: level L has steps 2L−1 and 2L; each reads both steps of level L−1 (level 1: literals). */
const plan = {
  steps: Array.from({ length: 2 * LEVELS }, (_, i) => {
    const level = Math.floor(i / 2) + 1;
    const id = i + 1;
    return level === 1
      ? { id, tool: "add", args: { a: id, b: 1 } }
      : { id, tool: "add", args: { a: `$${2 * level - 3}.value`, b: `$${2 * level - 2}.value` } };
  }),
};

type Answer = { structuredContent?: { status?: string; value?: number; results?: Record<string, { value: number }> } };

/** (a) One run_plan call; the two values of the last level. */
async function withPlan(client: Client): Promise<number[]> {
  const answer = (await client.callTool({ name: "run_plan", arguments: plan })) as Answer;
  const results = answer.structuredContent?.results;
  if (answer.structuredContent?.status !== "ok" || results === undefined)
    throw new Error(`workload 10: the plan did not run: ${JSON.stringify(answer)}`);
  return [2 * LEVELS - 1, 2 * LEVELS].map((id) => results[String(id)]!.value);
}

/** (b) The same 10 calls, one after another, through --expose-tools. */
async function withCalls(client: Client): Promise<number[]> {
  let previous: number[] = [];
  for (let level = 1; level <= LEVELS; level++) {
    const values: number[] = [];
    for (let k = 0; k < 2; k++) {
      const id = 2 * level - 1 + k;
      const args = level === 1 ? { a: id, b: 1 } : { a: previous[0]!, b: previous[1]! };
      const answer = (await client.callTool({ name: "add", arguments: args })) as Answer;
      values.push(answer.structuredContent!.value!);
    }
    previous = values;
  }
  return previous;
}

const names = { plan: "one run_plan call (10 steps, 5 levels)", calls: "10 tools/call one after another (--expose-tools)" } as const;

const workload: Workload = {
  id: "10",
  title: `plan-refs mcp serve: one run_plan call against 10 sequential tools/call, 10 steps in 5 levels, ${TOOL_MS} ms a tool call`,
  async run() {
    if (!existsSync(main)) throw new Error("workload 10 runs the built executable: npm run build first");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [main, "mcp", "serve", "--expose-tools", "--mcp", `node ${upstream} --role slow --delay ${TOOL_MS}`],
      stderr: "ignore",
    });
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(transport);
    try {
      const tasks: Record<string, () => Promise<number[]>> = {
        [names.plan]: () => withPlan(client),
        [names.calls]: () => withCalls(client),
      };
      const times = new Map<string, number[]>(Object.keys(tasks).map((name) => [name, []]));
      const answers = new Set<string>();
      for (const run of Object.values(tasks)) await run(); // warm-up
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? Object.keys(tasks) : Object.keys(tasks).reverse();
        for (const name of order) {
          const start = performance.now();
          answers.add(JSON.stringify(await tasks[name]!()));
          times.get(name)!.push((performance.now() - start) * 1e6);
        }
      }
      if (answers.size !== 1) throw new Error(`workload 10: the two ways answered differently: ${[...answers].join(" | ")}`);
      const rows: Row[] = Object.keys(tasks).map((name) => ({
        name,
        medianNs: median(times.get(name)!),
        roundsNs: times.get(name)!,
        note: name === names.plan ? "1 client round trip" : `${2 * LEVELS} client round trips`,
      }));
      const measured = rows[0]!.medianNs / rows[1]!.medianNs;
      return {
        id: this.id,
        title: this.title,
        unit: "ns",
        rows,
        baselines: [names.calls],
        targets: [
          {
            description: "run_plan wall time ÷ 10 sequential tools/call wall time (10 steps, 5 levels)",
            measured,
            limit: 0.75,
            kind: "max",
            unit: "×",
            met: measured <= 0.75,
          },
        ],
        notes: [
          `Both through one plan-refs mcp serve process over stdio and one upstream process; the answers of the two ways are checked equal (${[...answers][0]}). Median of ${ROUNDS} rounds, the order alternating.`,
          `The floor of each: the plan ${LEVELS} levels × ${TOOL_MS} ms = ${LEVELS * TOOL_MS} ms (the two calls of a level at once), the calls ${2 * LEVELS} × ${TOOL_MS} ms = ${2 * LEVELS * TOOL_MS} ms; what is above it is the round trips, the linter and the runner.`,
          "With a model in the loop the sequential client also pays a model round trip per call, and re-reads every result; the plan pays one.",
        ],
      };
    } finally {
      await client.close();
    }
  },
};

export default workload;
