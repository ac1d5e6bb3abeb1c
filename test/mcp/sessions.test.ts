/**
 * `plan-refs mcp serve --sessions` as a client meets it, with the SDK's own Client: over stdio the
 * built executable is started as a process (the flag, the connection's session and its end are the
 * process's own), over Streamable HTTP `servePlanHttp` is started in this process on a free port (one
 * session per MCP session id is what HTTP adds). Turn 1's plan fetches a large result and the answer
 * only describes it; turn 2's plan refers to it and the tool gets it whole; a second client's plan
 * cannot refer to the first client's steps.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, test } from "vitest";
import { PlanService } from "../../src/mcp/plan-server.js";
import { servePlanHttp } from "../../src/mcp/serve-http.js";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const MAIN = join(root, "dist/cli/main.js");
const work = tempFolder("mcp-sessions");

const ROWS = Array.from({ length: 400 }, (_, i) => ({ id: i, name: `pump model ${i} with a long description`, price: 100 + i }));

/** The tools, the same in both: `search` answers the large rows, `cheapest` says what it received. */
const TOOLS_SOURCE = `
const ROWS = ${JSON.stringify(ROWS)};
export function search() { return { rows: ROWS }; }
export function cheapest({ rows }) { return { count: rows.length, price: Math.min(...rows.map((row) => row.price)), same: JSON.stringify(rows) === JSON.stringify(ROWS) }; }
`;
const TOOLS = join(work, "tools.mjs");
writeFileSync(TOOLS, TOOLS_SOURCE);

type Answer = { isError?: boolean; structuredContent?: Record<string, any>; content: { type: string; text: string }[] };
const runPlan = async (client: Client, plan: unknown): Promise<Answer> =>
  (await client.callTool({ name: "run_plan", arguments: plan as Record<string, unknown> })) as Answer;

const TURN_1 = { steps: [{ id: 1, tool: "search", args: { q: "pumps" } }] };
const TURN_2 = { steps: [{ id: 2, tool: "cheapest", args: { rows: "$1.rows" } }] };

const clients: Client[] = [];
const closing: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  for (const close of closing.splice(0)) await close();
});

async function stdioClient(): Promise<Client> {
  const client = new Client({ name: "sessions-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [MAIN, "mcp", "serve", "--tools", TOOLS, "--sessions"], stderr: "pipe" }),
  );
  clients.push(client);
  return client;
}

let httpUrl: URL | undefined;
async function httpClient(): Promise<Client> {
  if (httpUrl === undefined) {
    const { search, cheapest } = (await import(TOOLS)) as Record<string, (args: any) => unknown>;
    const service = await PlanService.create({ tools: { search: search!, cheapest: cheapest! }, options: { sessions: true } });
    const served = await servePlanHttp(service, { port: 0 });
    closing.push(async () => {
      await served.close();
      await service.close();
    });
    httpUrl = new URL(served.url);
  }
  const client = new Client({ name: "sessions-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(httpUrl));
  clients.push(client);
  return client;
}

describe.each([
  ["stdio: plan-refs mcp serve --sessions", stdioClient],
  ["http: servePlanHttp with sessions", httpClient],
] as const)("%s", (_name, connect) => {
  test("turn 2 refers to turn 1's large result: the answer only describes it, the tool gets it whole", async () => {
    const client = await connect();
    const first = await runPlan(client, TURN_1);
    expect(first.isError).toBeUndefined();
    expect(first.structuredContent).toMatchObject({
      status: "ok",
      nextStepId: 2,
      described: { "1": { tool: "search", type: "object", keys: { rows: "array of 400" } } },
    });
    expect(JSON.stringify(first)).not.toContain("pump model 7 with");
    const second = await runPlan(client, TURN_2);
    expect(second.isError).toBeUndefined();
    expect(second.structuredContent).toMatchObject({
      status: "ok",
      nextStepId: 3,
      described: { "2": { value: { count: 400, price: 100, same: true } } },
    });
  });

  test("two clients, two sessions: the second cannot refer to the first's step 1", async () => {
    const [one, two] = [await connect(), await connect()];
    expect((await runPlan(one, TURN_1)).structuredContent).toMatchObject({ status: "ok", nextStepId: 2 });
    const refused = await runPlan(two, TURN_2);
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.structuredContent)).toContain("unknown-step");
    // The first client's session still has it.
    expect((await runPlan(one, TURN_2)).structuredContent).toMatchObject({
      status: "ok",
      described: { "2": { value: { count: 400, price: 100, same: true } } },
    });
  });
});
