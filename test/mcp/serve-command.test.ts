/**
 * `plan-refs mcp serve` as a client meets it: the built executable in a child process, over stdio and
 * over Streamable HTTP, reached with the SDK's own Client, serving the tools of three upstream servers
 * (test/fixtures/plan-upstream.mjs: one with an outputSchema, one slow, one that fails), each a real
 * process too. Mistakes refused before anything is served run through `runCli` in-process.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { request } from "node:http";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { requireProgram } from "../helpers/prerequisite.js";
import { runCliInProcess } from "../helpers/cli.js";
import { until } from "../helpers/processes.js";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const MAIN = join(root, "dist/cli/main.js");
const UPSTREAM = join(root, "test/fixtures/plan-upstream.mjs");
const work = tempFolder("mcp-serve");
let logs = 0;

/** The three upstream servers' flags; the slow one logs what it sees to a file of its own. */
function upstreams(): { args: string[]; log: string } {
  const log = join(work, `slow-${++logs}.log`);
  writeFileSync(log, "");
  return {
    args: [
      "--mcp",
      `node ${UPSTREAM} --role geo`,
      "--mcp",
      `node ${UPSTREAM} --role slow --log ${log}`,
      "--mcp",
      `node ${UPSTREAM} --role failing`,
    ],
    log,
  };
}

type Kind = "stdio" | "http";

interface Served {
  readonly client: Client;
  /** Every progress notification the client received, as the transport handed it over, in order. */
  readonly progress: Record<string, unknown>[];
  readonly log: string;
  readonly url: string;
  stderr(): string;
  /** The plan-refs process. */
  readonly pid: number;
  close(): Promise<void>;
}

const started: Served[] = [];
afterAll(async () => {
  await Promise.all(started.splice(0).map((served) => served.close()));
});

/** The serve command's process over HTTP; resolves once it prints its endpoint. */
async function listening(args: readonly string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [MAIN, "mcp", "serve", "--http", "0", ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr.setEncoding("utf8");
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (chunk: string) => {
      err += chunk;
      const match = /listening on (\S+)\n/.exec(err);
      if (match !== null) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`exited (${code}) before listening: ${err}`)));
  });
  return { child, url, stderr: () => err };
}

function recordProgress(
  transport: { onmessage?: ((message: JSONRPCMessage, extra?: never) => void) | undefined },
  into: Record<string, unknown>[],
): void {
  const handle = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    if ("method" in message && message.method === "notifications/progress") into.push(message.params as Record<string, unknown>);
    handle(message, extra);
  };
}

async function serve(kind: Kind, extra: readonly string[] = [], headers: Record<string, string> = {}): Promise<Served> {
  const { args, log } = upstreams();
  const progress: Record<string, unknown>[] = [];
  const client = new Client({ name: "plan-refs-test", version: "1.0.0" });
  let served: Served;
  if (kind === "stdio") {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MAIN, "mcp", "serve", ...args, ...extra],
      stderr: "pipe",
    });
    let err = "";
    transport.stderr!.on("data", (chunk: Buffer) => void (err += chunk.toString("utf8")));
    await client.connect(transport);
    recordProgress(transport, progress);
    served = { client, progress, log, url: "", stderr: () => err, pid: transport.pid!, close: () => client.close() };
  } else {
    const { child, url, stderr } = await listening([...args, ...extra]);
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    await client.connect(transport);
    recordProgress(transport, progress);
    served = {
      client,
      progress,
      log,
      url,
      stderr,
      pid: child.pid!,
      close: async () => {
        await client.close().catch(() => undefined);
        if (child.exitCode === null) {
          child.kill("SIGTERM");
          await once(child, "exit");
        }
      },
    };
  }
  started.push(served);
  return served;
}

type Answer = { isError?: boolean; structuredContent?: Record<string, any>; content: { type: string; text: string }[] };

const call = async (client: Client, name: string, args: unknown, options: Parameters<Client["callTool"]>[2] = {}): Promise<Answer> =>
  (await client.callTool({ name, arguments: args as Record<string, unknown> }, undefined, options)) as Answer;

const ACROSS = {
  steps: [
    { id: 1, tool: "geocode", args: { city: "Oslo" } },
    { id: 2, tool: "weather", args: { lat: "$1.lat", lon: "$1.lon" } },
    { id: 3, tool: "broken", args: {} },
  ],
};

describe.each(["stdio", "http"] as const)("over %s", (kind) => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(kind, ["--expose-tools", "--max-steps", "5"]);
  });

  test("tools/list: run_plan and lint_plan, the upstream tools' names in run_plan's schema, and with --expose-tools the upstream tools as they are", async () => {
    const { tools } = await served.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      "run_plan",
      "lint_plan",
      "geocode",
      "learn",
      "weather",
      "add",
      "tick",
      "wait",
      "broken",
      "exit",
    ]);
    const runPlan = tools[0]!;
    const branches = (
      runPlan.inputSchema as unknown as { properties: { steps: { items: { anyOf: { properties: { tool: { enum: string[] } } }[] } } } }
    ).properties.steps.items.anyOf;
    expect(branches.map((branch) => branch.properties.tool.enum[0])).toEqual([
      "geocode",
      "learn",
      "weather",
      "add",
      "tick",
      "wait",
      "broken",
      "exit",
    ]);
    expect(runPlan.outputSchema).toMatchObject({ type: "object", required: ["status"] });
    expect(runPlan.description).toMatch(/^Run several tool calls as one plan/);
    expect(runPlan.description).toMatch(/\nExample: \{"steps":\[\{"id":1,"tool":"geocode"/);
    expect(tools.find((tool) => tool.name === "geocode")!.outputSchema).toMatchObject({ properties: { lat: { type: "number" } } });
  });

  test("a plan over two upstream servers runs with references across them: the report as structured content and as JSON text", async () => {
    const answer = await call(served.client, "run_plan", ACROSS);
    expect(answer.isError).toBeUndefined();
    expect(answer.structuredContent).toEqual({
      status: "failed",
      results: { "1": { name: "Oslo", lat: 59.91, lon: 10.75 }, "2": { summary: "snow", at: [59.91, 10.75] } },
      errors: {
        "3": { code: "tool-error", message: expect.stringMatching(/the MCP server reported an error: the failing server always fails/) },
      },
    });
    expect(JSON.parse(answer.content[0]!.text)).toEqual(answer.structuredContent);
  });

  test("a plan with lint errors is not run: isError, and the diagnostics with code, pointer and did-you-mean", async () => {
    const answer = await call(served.client, "run_plan", {
      steps: [
        { id: 1, tool: "geocode", args: { cty: "Oslo" } },
        { id: 2, tool: "weather", args: { lat: "$3.lat", lon: "$1.lon" } },
      ],
    });
    expect(answer.isError).toBe(true);
    expect(answer.structuredContent!.status).toBe("invalid");
    const diagnostics = answer.structuredContent!.diagnostics as { code: string; message: string; pointer: string }[];
    expect(diagnostics).toContainEqual({
      code: "unknown-argument",
      message: expect.stringMatching(/did you mean "city"\?/),
      pointer: "/steps/0/args/cty",
    });
    expect(diagnostics.map((diagnostic) => diagnostic.pointer)).toContain("/steps/1/args/lat");
    expect(JSON.parse(answer.content[0]!.text)).toEqual(answer.structuredContent);
  });

  test("lint_plan answers the diagnostics only", async () => {
    const answer = await call(served.client, "lint_plan", { steps: [{ id: 1, tool: "geocod", args: { city: "Oslo" } }] });
    expect(answer.isError).toBeUndefined();
    expect(answer.structuredContent).toEqual({
      errors: 1,
      warnings: 0,
      diagnostics: [
        {
          code: "unknown-tool",
          severity: "error",
          message: expect.stringMatching(/did you mean "geocode"\?/),
          pointer: "/steps/0/tool",
          fix: { replace: "geocode" },
        },
      ],
    });
  });

  test("--max-steps: a longer plan is refused before it runs", async () => {
    const steps = Array.from({ length: 6 }, (_, i) => ({ id: i + 1, tool: "tick", args: { n: i } }));
    const answer = await call(served.client, "run_plan", { steps });
    expect(answer.isError).toBe(true);
    expect(answer.structuredContent).toEqual({
      status: "invalid",
      diagnostics: [{ code: "too-many-steps", message: "the plan has 6 steps; a plan of at most 5 is run", pointer: "/steps" }],
    });
  });

  test("progress: a notification as each step ends, in order, naming the step", async () => {
    served.progress.length = 0;
    const plan = {
      steps: [
        { id: 1, tool: "tick", args: { n: 1 } },
        { id: 2, tool: "tick", args: { n: "$1.n" } },
        { id: 3, tool: "tick", args: { n: "$2.n" } },
      ],
    };
    const answer = await call(served.client, "run_plan", plan, { onprogress: () => undefined });
    expect(answer.structuredContent!.results).toEqual({ "1": { n: 2 }, "2": { n: 3 }, "3": { n: 4 } });
    expect(served.progress.map(({ progressToken: _token, ...rest }) => rest)).toEqual([
      { progress: 1, total: 3, message: "step 1 (tick) done" },
      { progress: 2, total: 3, message: "step 2 (tick) done" },
      { progress: 3, total: 3, message: "step 3 (tick) done" },
    ]);
  });

  test("a cancelled request aborts its run: the slow server sees its request cancelled, and the server goes on", async () => {
    const controller = new AbortController();
    const running = call(served.client, "run_plan", { steps: [{ id: 1, tool: "wait", args: {} }] }, { signal: controller.signal });
    running.catch(() => undefined);
    await until(() => readFileSync(served.log, "utf8").includes("start wait"));
    controller.abort();
    await expect(running).rejects.toThrow(/abort/i);
    await until(() => readFileSync(served.log, "utf8").includes("cancelled wait"));
    const next = await call(served.client, "run_plan", { steps: [{ id: 1, tool: "geocode", args: { city: "Lisbon" } }] });
    expect(next.structuredContent!.status).toBe("ok");
  });

  test("--expose-tools: an upstream tool's call and answer pass through as they are", async () => {
    const answer = await call(served.client, "geocode", { city: "Lisbon" });
    expect(answer).toEqual({
      content: [{ type: "text", text: JSON.stringify({ name: "Lisbon", lat: 38.72, lon: -9.14 }) }],
      structuredContent: { name: "Lisbon", lat: 38.72, lon: -9.14 },
    });
    expect(await call(served.client, "broken", {})).toEqual({
      isError: true,
      content: [{ type: "text", text: "the failing server always fails" }],
    });
    await expect(call(served.client, "geocodee", {})).rejects.toThrow(
      /unknown-tool: no tool "geocodee" on this server; did you mean "geocode"\?/,
    );
  });

  test("an upstream's tools/list_changed refreshes the tools and is passed on to the client", async () => {
    const changed = new Promise<void>((resolve) =>
      served.client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    const answer = await call(served.client, "run_plan", { steps: [{ id: 1, tool: "learn", args: { name: "echo" } }] });
    expect(answer.structuredContent!.results).toEqual({ "1": { learned: "echo" } });
    await changed;
    const { tools } = await served.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("echo");
    expect(JSON.stringify(tools[0]!.inputSchema)).toContain('"echo"');
    const echoed = await call(served.client, "run_plan", { steps: [{ id: 1, tool: "echo", args: { said: "hi" } }] });
    expect(echoed.structuredContent!.results).toEqual({ "1": { said: "hi" } });
  });

  test("an upstream server that exits mid-run fails its steps, not the server", async () => {
    const own = await serve(kind);
    const answer = await call(own.client, "run_plan", {
      steps: [
        { id: 1, tool: "exit", args: {} },
        { id: 2, tool: "geocode", args: { city: "Oslo" } },
      ],
    });
    expect(answer.structuredContent).toMatchObject({
      status: "failed",
      results: { "2": { name: "Oslo" } },
      errors: { "1": { code: "tool-error", message: expect.stringMatching(/closed the connection/) } },
    });
    const again = await call(own.client, "run_plan", {
      steps: [
        { id: 1, tool: "broken", args: {} },
        { id: 2, tool: "geocode", args: { city: "Lisbon" } },
      ],
    });
    expect(again.structuredContent).toMatchObject({
      status: "failed",
      results: { "2": { name: "Lisbon" } },
      errors: { "1": { message: expect.stringMatching(/connection to the MCP server is closed/) } },
    });
    expect(own.stderr()).not.toMatch(/\n\s+at |Unhandled/);
  });
});

describe("over stdio", () => {
  test("a client that disconnects mid-run: the server stops its run and exits 0, with nothing on stderr", async () => {
    const { args, log } = upstreams();
    const child = spawn(process.execPath, [MAIN, "mcp", "serve", ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => void (err += chunk.toString("utf8")));
    const send = (message: unknown): boolean => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "run_plan", arguments: { steps: [{ id: 1, tool: "wait", args: {} }] } },
    });
    await until(() => readFileSync(log, "utf8").includes("start wait"));
    child.stdin.end();
    const [code] = (await once(child, "exit")) as [number];
    expect(code).toBe(0);
    expect(err).toBe("");
    expect(readFileSync(log, "utf8")).toMatch(/cancelled wait/);
  });
});

describe("over HTTP", () => {
  test("the endpoint's URL on stderr; two clients at once each get their own results", async () => {
    const first = await serve("http");
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const second = new Client({ name: "second", version: "1.0.0" });
    await second.connect(new StreamableHTTPClientTransport(new URL(first.url)));
    try {
      const plan = (city: string): unknown => ({
        steps: [
          { id: 1, tool: "geocode", args: { city } },
          { id: 2, tool: "weather", args: { lat: "$1.lat", lon: "$1.lon" } },
        ],
      });
      const [oslo, lisbon] = await Promise.all([call(first.client, "run_plan", plan("Oslo")), call(second, "run_plan", plan("Lisbon"))]);
      expect(oslo.structuredContent!.results).toEqual({
        "1": { name: "Oslo", lat: 59.91, lon: 10.75 },
        "2": { summary: "snow", at: [59.91, 10.75] },
      });
      expect(lisbon.structuredContent!.results).toEqual({
        "1": { name: "Lisbon", lat: 38.72, lon: -9.14 },
        "2": { summary: "sunny", at: [38.72, -9.14] },
      });
    } finally {
      await second.close();
    }
  });

  /** A raw POST of initialize, with the headers given. */
  function post(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (body += chunk));
          res.on("end", () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on("error", reject);
      req.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      );
    });
  }

  test("a client that drops its response stream mid-run: the run is cancelled, and the slow server sees it", async () => {
    const { url, log } = await serve("http");
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const init = await fetch(url, {
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
    await (
      await fetch(url, { method: "POST", headers: session, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) })
    ).text();
    const controller = new AbortController();
    await fetch(url, {
      method: "POST",
      headers: session,
      signal: controller.signal,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "run_plan", arguments: { steps: [{ id: 1, tool: "wait", args: {} }] } },
      }),
    });
    await until(() => readFileSync(log, "utf8").includes("start wait"));
    controller.abort();
    await until(() => readFileSync(log, "utf8").includes("cancelled wait"));
  });

  test("Origin and Host are validated against DNS rebinding", async () => {
    const { url } = await serve("http");
    const port = new URL(url).port;
    const origin = await post(url, { origin: "http://evil.example" });
    expect(origin.status).toBe(403);
    expect(JSON.parse(origin.body).error.message).toMatch(/^forbidden-origin: requests from Origin "http:\/\/evil\.example" are refused/);
    const host = await post(url, { host: `evil.example:${port}` });
    expect(host.status).toBe(403);
    expect(JSON.parse(host.body).error.message).toMatch(/^forbidden-host: /);
    expect((await post(url, { origin: `http://localhost:${port}` })).status).toBe(200);
  });

  test("--token-file: a request without the bearer token (or with another) is refused; with it, served", async () => {
    const tokenFile = join(work, "token");
    writeFileSync(tokenFile, "s3cret-token-of-the-test-0123456789\n");
    const served = await serve("http", ["--token-file", tokenFile], { authorization: "Bearer s3cret-token-of-the-test-0123456789" });
    expect((await served.client.listTools()).tools[0]!.name).toBe("run_plan");
    for (const headers of [
      {},
      { authorization: "Bearer s3cret-token-of-the-test-012345678" },
      { authorization: "Basic czNjcmV0" },
    ] as Record<string, string>[]) {
      const refused = await post(served.url, headers);
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.body).error.message).toMatch(/^unauthorized: /);
    }
  });

  // A network namespace of its own (root only): an address that is not loopback, reachable by nothing outside.
  test("bound to an address other than loopback (in a network namespace of its own), a request without the token is refused", () => {
    requireProgram("unshare", ["-n", "true"], "a network namespace of its own: util-linux's unshare, as root, as CI runs");
    const tokenFile = join(work, "netns-token");
    writeFileSync(tokenFile, "another-token-for-the-namespace-42\n");
    const script = join(work, "netns-client.mjs");
    writeFileSync(
      script,
      `import { spawn } from "node:child_process";
const child = spawn(process.execPath, [${JSON.stringify(MAIN)}, "mcp", "serve", "--mcp", ${JSON.stringify(`node ${UPSTREAM} --role geo`)}, "--http", "0", "--host", "10.200.0.1", "--token-file", ${JSON.stringify(tokenFile)}], { stdio: ["ignore", "ignore", "pipe"] });
let err = "";
const url = await new Promise((resolve) => child.stderr.on("data", (chunk) => { err += chunk; const match = /listening on (\\S+)\\n/.exec(err); if (match) resolve(match[1]); }));
const init = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const without = await fetch(url, { method: "POST", headers, body: init });
const withToken = await fetch(url, { method: "POST", headers: { ...headers, authorization: "Bearer another-token-for-the-namespace-42" }, body: init });
console.log(JSON.stringify({ url, without: without.status, withoutBody: await without.text(), withToken: withToken.status, session: withToken.headers.get("mcp-session-id") !== null }));
child.kill("SIGTERM");
`,
    );
    const result = spawnSync(
      "unshare",
      ["-n", "sh", "-c", `ip link set lo up && ip addr add 10.200.0.1/32 dev lo && exec "${process.execPath}" "${script}"`],
      { encoding: "utf8", timeout: 30_000 },
    );
    expect(result.stderr).toBe("");
    const seen = JSON.parse(result.stdout) as { url: string; without: number; withoutBody: string; withToken: number; session: boolean };
    expect(seen).toMatchObject({
      url: expect.stringMatching(/^http:\/\/10\.200\.0\.1:\d+\/mcp$/),
      without: 401,
      withToken: 200,
      session: true,
    });
    expect(JSON.parse(seen.withoutBody).error.message).toMatch(/^unauthorized: /);
  });

  test("a host other than loopback is refused without --token-file, in one line, before anything starts", async () => {
    const result = await runCliInProcess(["mcp", "serve", "--mcp", `node ${UPSTREAM} --role geo`, "--http", "0", "--host", "0.0.0.0"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "plan-refs: --host 0.0.0.0 is not a loopback address: serving on it needs --token-file FILE (the bearer token clients must send); nothing was served\n",
    );
  });
});

describe("flag mistakes", () => {
  test.each([
    [
      ["serve", "--http", "80000", "--tools", "x.mjs"],
      /^plan-refs mcp: --http must be a port number from 0 to 65535 \(0: any free port\), not "80000"\n/,
    ],
    [["serve", "--tools", "x.mjs", "--token-file", "t"], /^plan-refs mcp: --token-file needs --http PORT\n/],
    [["serve"], /^plan-refs: missing the tools to serve: --mcp "COMMAND", --mcp-url URL or --tools MODULE\n/],
    [["srve"], /^plan-refs mcp: unknown subcommand "srve"; plan-refs mcp has one: serve\n/],
    [["serve", "--tools", "x.mjs", "--max-steps", "0"], /^plan-refs mcp: --max-steps must be a positive integer, not "0"\n/],
  ])("plan-refs mcp %j: exit 2, one line, no stack", async (args, message) => {
    const result = await runCliInProcess(["mcp", ...args], { cwd: work });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(work, "x.mjs"))).toBe(false);
  });
});
