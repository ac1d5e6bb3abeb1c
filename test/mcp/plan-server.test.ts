/**
 * `createPlanServer` embedded in a program: the SDK's Client and the plan server in one process over the
 * SDK's in-memory transport, with tool functions of the test's own and an upstream SDK server (also in
 * memory) whose tools change: the plan places, the options, the collisions, a changed listing that
 * cannot be served, and a client that goes away mid-run.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, test } from "vitest";
import { createPlanServer, McpSetupError, type PlanServer, type PlanServerConfig } from "../../src/mcp/index.js";
import { PlanService } from "../../src/mcp/plan-server.js";
import { servePlanHttp } from "../../src/mcp/serve-http.js";
import type { ToolContext } from "../../src/run/index.js";

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

/** A client connected to a new plan server. */
async function connected(config: PlanServerConfig): Promise<{ client: Client; server: PlanServer }> {
  const server = await createPlanServer(config);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  closing.push(
    () => client.close(),
    () => server.close(),
  );
  return { client, server };
}

/** A promise and its resolver. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

type Answer = { isError?: boolean; structuredContent?: Record<string, any> };
const runPlan = async (client: Client, plan: unknown, options: Parameters<Client["callTool"]>[2] = {}): Promise<Answer> =>
  (await client.callTool({ name: "run_plan", arguments: plan as Record<string, unknown> }, undefined, options)) as Answer;

/** An upstream SDK server in memory whose tool list the test changes; its connected client. */
async function upstream(names: string[]): Promise<{ client: Client; server: Server; names: string[] }> {
  const server = new Server({ name: "upstream", version: "1" }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: names.map((name) => ({ name, inputSchema: { type: "object" as const } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: "text", text: JSON.stringify({ from: request.params.name }) }],
  }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "plan-refs", version: "1" });
  await client.connect(clientSide);
  closing.push(
    () => client.close(),
    () => server.close(),
  );
  return { client, server, names };
}

describe("createPlanServer", () => {
  test("tool functions of one's own, with their catalog: a plan runs, a run's events become progress", async () => {
    const tools = { double: ({ n }: Record<string, unknown>) => ({ n: (n as number) * 2 }) };
    const catalog = {
      double: {
        input: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        output: { type: "object", properties: { n: { type: "number" } } },
      },
    };
    const { client } = await connected({ tools, catalog });
    const progress: unknown[] = [];
    const answer = await runPlan(
      client,
      {
        steps: [
          { id: 1, tool: "double", args: { n: 2 } },
          { id: 2, tool: "double", args: { n: "$1.n" } },
        ],
      },
      { onprogress: (p) => void progress.push(p) },
    );
    expect(answer.structuredContent).toEqual({ status: "ok", results: { "1": { n: 4 }, "2": { n: 8 } } });
    expect(progress).toEqual([
      { progress: 1, total: 2, message: "step 1 (double) done" },
      { progress: 2, total: 2, message: "step 2 (double) done" },
    ]);
    // The plan's own output, resolved against the results, comes with the report.
    const withOutput = await runPlan(client, {
      steps: [{ id: 1, tool: "double", args: { n: 3 } }],
      output: { total: "$1.n", unit: "apples" },
    });
    expect(withOutput.structuredContent).toEqual({ status: "ok", output: { total: 6, unit: "apples" } });
    const { tools: listed } = await client.listTools();
    expect(Object.keys((listed[0]!.inputSchema as { properties: object }).properties)).toContain("output");
  });

  test("maxPlans: a plan beyond the limit waits for a place, then runs", async () => {
    const gate = deferred();
    const started: string[] = [];
    const tools = {
      hold: async () => {
        started.push("hold");
        await gate.promise;
        return 1;
      },
      quick: () => {
        started.push("quick");
        return 2;
      },
    };
    const { client } = await connected({ tools, options: { maxPlans: 1 } });
    const first = runPlan(client, { steps: [{ id: 1, tool: "hold", args: {} }] });
    const second = runPlan(client, { steps: [{ id: 1, tool: "quick", args: {} }] });
    // The server handles requests in order: once lint_plan is answered, both plans have been taken up.
    await client.callTool({ name: "lint_plan", arguments: { steps: [] } });
    expect(started).toEqual(["hold"]);
    gate.resolve();
    expect((await first).structuredContent!.results).toEqual({ "1": 1 });
    expect((await second).structuredContent!.results).toEqual({ "1": 2 });
    expect(started).toEqual(["hold", "quick"]);
  });

  test("a client that goes away mid-run: the run is aborted (the tool sees its signal), nothing is left unhandled", async () => {
    const aborted = deferred<unknown>();
    const running = deferred();
    const tools = {
      wait: (_args: Record<string, unknown>, context: ToolContext) =>
        new Promise((_resolve, reject) => {
          running.resolve();
          context.signal.addEventListener("abort", () => {
            aborted.resolve(context.signal.reason);
            reject(context.signal.reason);
          });
        }),
    };
    const { client } = await connected({ tools });
    const call = runPlan(client, { steps: [{ id: 1, tool: "wait", args: {} }] }, { onprogress: () => undefined });
    call.catch(() => undefined);
    await running.promise;
    await client.close();
    await aborted.promise;
    await expect(call).rejects.toThrow(/closed/i);
  });

  test.each([
    [{ options: { maxSteps: 0 } }, "option maxSteps must be a positive integer"],
    [{ options: { maxPlans: 1.5 } }, "option maxPlans must be a positive integer"],
    [{ options: { dialect: "openai-strict" } }, "the plan server takes no option dialect"],
    [{ options: { maxResultChars: -1 } }, "option maxResultChars must be a positive integer"],
    [{ clients: [{}] }, "clients[0] is not a connected MCP client"],
    [{ tools: [] }, "option tools must be an object of tool functions"],
  ] as [PlanServerConfig, string][])("%j: McpSetupError invalid-options", async (config, message) => {
    const error = await createPlanServer(config).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(McpSetupError);
    expect(error).toMatchObject({ code: "invalid-options", message: expect.stringContaining(message) });
  });

  test("a tool name two sources offer, or an upstream tool named run_plan with exposeTools: tool-collision", async () => {
    const a = await upstream(["geocode"]);
    const b = await upstream(["geocode"]);
    await expect(
      createPlanServer({
        clients: [
          { client: a.client, label: "a" },
          { client: b.client, label: "b" },
        ],
      }),
    ).rejects.toMatchObject({
      code: "tool-collision",
      message: expect.stringContaining('"geocode" is offered by two MCP servers, "a" and "b"'),
    });
    await expect(createPlanServer({ clients: [a.client], tools: { geocode: () => 1 } })).rejects.toMatchObject({ code: "tool-collision" });
    const c = await upstream(["run_plan"]);
    await expect(createPlanServer({ clients: [c.client], options: { exposeTools: true } })).rejects.toMatchObject({
      code: "tool-collision",
      message: expect.stringContaining('offers a tool named "run_plan"'),
    });
  });

  test("an upstream's changed tools: served and passed on; a change that cannot be served keeps the old tools and warns", async () => {
    const up = await upstream(["one"]);
    const warnings: string[] = [];
    const warned = deferred();
    const onWarning = (message: string): void => {
      warnings.push(message);
      warned.resolve();
    };
    const { client } = await connected({
      clients: [{ client: up.client, label: "up" }],
      tools: { local: () => 0 },
      options: { exposeTools: true, onWarning },
    });
    const changed = deferred();
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.resolve());
    up.names.push("two");
    await up.server.sendToolListChanged();
    await changed.promise;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["run_plan", "lint_plan", "one", "two"]);
    expect((await runPlan(client, { steps: [{ id: 1, tool: "two", args: {} }] })).structuredContent!.results).toEqual({
      "1": { from: "two" },
    });

    // "local" is a tool of the plan server's own: the upstream may not offer it too.
    up.names.push("local");
    await up.server.sendToolListChanged();
    await warned.promise;
    expect(warnings).toEqual([
      expect.stringMatching(
        /^the changed tools of MCP server "up" cannot be served \(the previous ones are kept\): .*tool "local" is offered by MCP server "up" and by the plan server's own tools/,
      ),
    ]);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["run_plan", "lint_plan", "one", "two"]);
  });
});

describe("servePlanHttp", () => {
  test("a session with no request open for idleMs is ended (a client gone without a DELETE holds no place)", async () => {
    const service = await PlanService.create({ tools: { hello: () => "hi" } });
    const http = await servePlanHttp(service, { port: 0, idleMs: 20 });
    closing.push(
      () => http.close(),
      () => service.close(),
    );
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const init = await fetch(http.url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    const session = { ...headers, "mcp-session-id": init.headers.get("mcp-session-id")! };
    await init.text();
    const ping = async (): Promise<number> =>
      (await fetch(http.url, { method: "POST", headers: session, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) })).status;
    // Ended by the sweep, once idle: the session's requests are then refused, 404 as the transport does for an unknown one.
    while ((await ping()) === 200) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await ping()).toBe(404);
  });

  test("idleMs must be a positive integer", async () => {
    const service = await PlanService.create({ tools: { hello: () => "hi" } });
    closing.push(() => service.close());
    await expect(servePlanHttp(service, { port: 0, idleMs: 0 })).rejects.toMatchObject({ code: "invalid-options" });
  });
});
