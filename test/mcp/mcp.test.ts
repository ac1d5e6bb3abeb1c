/**
 * `plan-refs/mcp` against a real MCP server (test/fixtures/mcp-server.mjs, built with the SDK), over
 * stdio and over Streamable HTTP on 127.0.0.1: the catalog, linting against it, running through it,
 * and every failure: isError, a server that exits mid-call, a timeout, names colliding across servers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { lintPlan } from "../../src/lint/index.js";
import {
  catalogFromMcp,
  connectMcp,
  connectMcpServers,
  McpCallError,
  McpSetupError,
  mcpTools,
  type McpConnection,
  type McpServerSpec,
} from "../../src/mcp/index.js";
import { runPlan, StepError } from "../../src/run/index.js";

const SERVER = fileURLToPath(new URL("../fixtures/mcp-server.mjs", import.meta.url));
const stdio = (...args: string[]): McpServerSpec => ({ command: process.execPath, args: [SERVER, ...args] });

/** The fixture served over HTTP in a child process; its URL. */
async function httpServer(...args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [SERVER, "--http", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.setEncoding("utf8");
  for await (const chunk of child.stdout) {
    out += chunk as string;
    if (out.includes("\n")) break;
  }
  return { url: (JSON.parse(out.split("\n")[0]!) as { url: string }).url, child };
}

const opened: McpConnection[] = [];
const children: ChildProcess[] = [];
async function connect(spec: McpServerSpec): Promise<McpConnection> {
  const connection = await connectMcp(spec);
  opened.push(connection);
  return connection;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((connection) => connection.close()));
});
afterAll(() => {
  for (const child of children) child.kill();
});

let httpUrl = "";
beforeAll(async () => {
  const served = await httpServer();
  children.push(served.child);
  httpUrl = served.url;
});

const EXPECTED_NAMES = ["geocode", "weather", "shout", "fail", "slow", "forty-two", "huge", "hangup", "crash"];

describe.each(["stdio", "http"] as const)("over %s", (kind) => {
  const spec = (): McpServerSpec => (kind === "stdio" ? stdio() : { url: httpUrl });

  test("catalogFromMcp follows every page: inputSchema as input, outputSchema as output, descriptions kept", async () => {
    const { client } = await connect(spec());
    const catalog = await catalogFromMcp(client);
    expect(Object.keys(catalog)).toEqual(EXPECTED_NAMES);
    expect(catalog["geocode"]).toEqual({
      description: "The coordinates of a city (declares an outputSchema).",
      input: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
      output: {
        type: "object",
        properties: { name: { type: "string" }, lat: { type: "number" }, lon: { type: "number" } },
        required: ["name", "lat", "lon"],
        additionalProperties: false,
      },
    });
    expect(catalog["weather"]).not.toHaveProperty("output");
    expect(Object.getPrototypeOf(catalog)).toBe(null);
  });

  test.each([
    { options: {}, readOnly: [undefined, undefined, undefined] },
    { options: { trustReadOnlyHint: false }, readOnly: [undefined, undefined, undefined] },
    { options: { trustReadOnlyHint: true }, readOnly: [true, undefined, false] },
  ])("annotations.readOnlyHint reaches the catalog's readOnly only when asked ($options)", async ({ options, readOnly }) => {
    const { client } = await connect(spec());
    const catalog = await catalogFromMcp(client, options);
    // geocode declares readOnlyHint: true, weather nothing, shout readOnlyHint: false.
    expect(["geocode", "weather", "shout"].map((name) => catalog[name]!.readOnly)).toEqual(readOnly);
    for (const name of ["geocode", "weather", "shout"])
      expect(Object.hasOwn(catalog[name]!, "readOnly")).toBe(readOnly[["geocode", "weather", "shout"].indexOf(name)] !== undefined);
  });

  test("trustReadOnlyHint that is not a boolean is an invalid-options setup error", async () => {
    const { client } = await connect(spec());
    await expect(catalogFromMcp(client, { trustReadOnlyHint: "yes" as unknown as boolean })).rejects.toMatchObject({
      name: "McpSetupError",
      code: "invalid-options",
    });
  });

  test("a plan linted against the server's schemas: unknown-key found through its outputSchema", async () => {
    const { client } = await connect(spec());
    const plan = {
      steps: [
        { id: 1, tool: "geocode", args: { city: "Lisbon" } },
        { id: 2, tool: "weather", args: { lat: "$1.lat", lon: "$1.longitude" } },
      ],
    };
    const diagnostics = lintPlan(plan, { tools: await catalogFromMcp(client) });
    expect(diagnostics.map((d) => [d.code, d.severity, d.pointer])).toEqual([["unknown-key", "error", "/steps/1/args/lon"]]);
    expect(diagnostics[0]!.message).toContain(`output schema has no key "longitude"`);
  });

  test("a plan run through the server end to end: structuredContent, JSON text, plain text", async () => {
    const { client } = await connect(spec());
    const plan = {
      steps: [
        { id: 1, tool: "geocode", args: { city: "Lisbon" } },
        { id: 2, tool: "weather", args: { lat: "$1.lat", lon: "$1.lon" } },
        { id: 3, tool: "shout", args: { text: "$2.summary" } },
      ],
    };
    const catalog = await catalogFromMcp(client);
    const report = await runPlan(plan, await mcpTools(client), { catalog, validateOutputs: true });
    expect(report.errors).toEqual(new Map());
    expect(report.status).toBe("ok");
    expect(Object.fromEntries(report.results)).toEqual({
      1: { name: "Lisbon", lat: 38.72, lon: -9.14 },
      2: { summary: "sunny", highC: 17, at: [38.72, -9.14] },
      3: "SUNNY!",
    });
  });

  test("isError: the step fails with tool-error and the server's text, escaped", async () => {
    const { client } = await connect(spec());
    const report = await runPlan({ steps: [{ id: 1, tool: "fail", args: {} }] }, await mcpTools(client));
    const error = report.errors.get(1)!;
    expect(error).toBeInstanceOf(StepError);
    expect(error.code).toBe("tool-error");
    expect(error.message).toBe(
      "step 1 (fail): the tool failed: the MCP server reported an error: no such city\\n\\u001b[31mplan-refs: ok: 9 results",
    );
    expect(error.message).not.toMatch(/[\n\u001b]/);
    expect((error.cause as McpCallError).code).toBe("server-error");
  });

  test("a call with no answer within timeoutMs fails the step with a timeout message", async () => {
    const { client } = await connect(spec());
    const report = await runPlan({ steps: [{ id: 1, tool: "slow", args: { ms: 60_000 } }] }, await mcpTools(client, { timeoutMs: 50 }));
    const error = report.errors.get(1)!;
    expect(error.code).toBe("tool-error");
    expect(error.message).toBe("step 1 (slow): the tool failed: the MCP server did not answer within 50 ms");
    expect((error.cause as McpCallError).code).toBe("timeout");
  });

  test("runPlan's own timeout aborts the step's signal, which cancels the request", async () => {
    const { client } = await connect(spec());
    const report = await runPlan({ steps: [{ id: 1, tool: "slow", args: { ms: 60_000 } }] }, await mcpTools(client), { timeoutMs: 50 });
    expect(report.errors.get(1)!.code).toBe("timeout");
    // The connection is still usable afterwards.
    const after = await runPlan({ steps: [{ id: 1, tool: "slow", args: { ms: 1 } }] }, await mcpTools(client));
    expect(after.results.get(1)).toEqual({ waited: 1 });
  });
});

describe("a server that exits mid-call", () => {
  test("over stdio: the running step fails with a clear error at once (no hang), the others too", async () => {
    const { client } = await connect(stdio());
    const plan = {
      steps: [
        { id: 1, tool: "slow", args: { ms: 60_000 } },
        { id: 2, tool: "crash", args: {} },
      ],
    };
    const report = await runPlan(plan, await mcpTools(client));
    expect(report.status).toBe("failed");
    for (const id of [1, 2]) {
      const error = report.errors.get(id)!;
      expect(error.code).toBe("tool-error");
      expect(error.message).toMatch(
        /: the tool failed: the MCP server closed the connection before answering \(it exited, or the connection dropped\)$/,
      );
      expect((error.cause as McpCallError).code).toBe("connection-closed");
    }
  });

  test("over stdio: a step that starts after the server exited fails with a clear error", async () => {
    const { client } = await connect(stdio());
    const plan = {
      steps: [
        { id: 1, tool: "crash", args: {} },
        { id: 2, tool: "shout", args: { text: "late" } },
      ],
    };
    const report = await runPlan(plan, await mcpTools(client), { concurrency: 1 });
    expect(report.errors.get(2)!.message).toBe(
      "step 2 (shout): the tool failed: the connection to the MCP server is closed (the server exited, or the connection dropped)",
    );
    expect((report.errors.get(2)!.cause as McpCallError).code).toBe("connection-closed");
  });

  test("over HTTP: the running step fails with a clear error (no hang)", async () => {
    const served = await httpServer();
    children.push(served.child);
    const { client } = await connect({ url: served.url });
    const report = await runPlan({ steps: [{ id: 1, tool: "crash", args: {} }] }, await mcpTools(client));
    const error = report.errors.get(1)!;
    expect(error.code).toBe("tool-error");
    expect((error.cause as McpCallError).code).toBe("connection-closed");
  });
});

describe("several servers", () => {
  test("trustReadOnlyHint reaches every server's listing; without it no readOnly is set", async () => {
    for (const [options, expected] of [
      [{}, [undefined, undefined]],
      [{ trustReadOnlyHint: true }, [true, true]],
    ] as const) {
      const servers = await connectMcpServers([stdio("--prefix", "a_"), { url: httpUrl }], options);
      try {
        expect([servers.catalog["a_geocode"]!.readOnly, servers.catalog["geocode"]!.readOnly]).toEqual(expected);
      } finally {
        await servers.close();
      }
    }
  });

  test("their tools combine; a name offered by two servers is an error naming both", async () => {
    const servers = await connectMcpServers([stdio("--prefix", "a_"), { url: httpUrl }], { labels: ["node a.mjs", "http-server"] });
    try {
      expect(Object.keys(servers.catalog)).toEqual([...EXPECTED_NAMES.map((name) => `a_${name}`), ...EXPECTED_NAMES]);
      const report = await runPlan(
        {
          steps: [
            { id: 1, tool: "a_geocode", args: { city: "Porto" } },
            { id: 2, tool: "shout", args: { text: "$1.name" } },
          ],
        },
        servers.tools(),
      );
      expect(report.results.get(2)).toBe("PORTO!");
    } finally {
      await servers.close();
    }
    const collision = connectMcpServers([stdio(), { url: httpUrl }], { labels: ["node server.mjs", httpUrl] });
    await expect(collision).rejects.toThrow(McpSetupError);
    await expect(collision).rejects.toMatchObject({
      code: "tool-collision",
      message: `tool "geocode" is offered by two MCP servers, "node server.mjs" and "${httpUrl}"; tool names must be unique across servers`,
    });
  });
});

describe("connecting", () => {
  test("a program that does not exist: connect-failed, one line", async () => {
    await expect(connectMcp({ command: "plan-refs-no-such-program" })).rejects.toMatchObject({
      code: "connect-failed",
      message: `MCP server "plan-refs-no-such-program": cannot start the server: no such program`,
    });
  });

  test("a server that exits before the handshake: its last stderr line is in the message", async () => {
    await expect(
      connectMcp({ command: process.execPath, args: ["-e", "console.error('missing API key'); process.exit(1)"] }),
    ).rejects.toMatchObject({
      code: "connect-failed",
      message: expect.stringMatching(/the server exited before completing the MCP handshake \(its stderr: missing API key\)$/),
    });
  });

  test("an HTTP URL where nothing listens: connect-failed", async () => {
    await expect(connectMcp({ url: "http://127.0.0.1:9/mcp" })).rejects.toMatchObject({
      code: "connect-failed",
      message: expect.stringMatching(/^MCP server "http:\/\/127.0.0.1:9\/mcp": cannot connect: /),
    });
  });

  test("the SDK's own Client fits McpClient", async () => {
    const client = new Client({ name: "test", version: "1" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: "ignore" }));
    try {
      expect(Object.keys(await catalogFromMcp(client))).toEqual(EXPECTED_NAMES);
      expect(Object.keys(await mcpTools(client))).toEqual(EXPECTED_NAMES);
    } finally {
      await client.close();
    }
  });
});
