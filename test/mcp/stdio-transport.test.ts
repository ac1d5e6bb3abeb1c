/**
 * The stdio transport of `connectMcp` against real servers (test/fixtures/mcp-server.mjs) in child
 * processes: the server's whole process group is stopped on close (a wrapper and the server it
 * started), answers the SDK would drop or choke on fail only their own call, and the messages of a
 * server that fails to start or to list its tools are one line that says what went wrong.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import {
  catalogFromMcp,
  connectMcp,
  connectMcpServers,
  McpCallError,
  mcpTools,
  type McpConnection,
  type McpServerSpec,
} from "../../src/mcp/index.js";
import { MAX_MCP_MESSAGE_BYTES } from "../../src/mcp/stdio-transport.js";
import { runPlan } from "../../src/run/index.js";
import { running } from "../helpers/processes.js";
import { tempFolder } from "../helpers/temp.js";

const SERVER = fileURLToPath(new URL("../fixtures/mcp-server.mjs", import.meta.url));
const stdio = (...args: string[]): McpServerSpec => ({ command: process.execPath, args: [SERVER, ...args] });
const work = tempFolder("mcp-transport");

const opened: McpConnection[] = [];
async function connect(spec: McpServerSpec): Promise<McpConnection> {
  const connection = await connectMcp(spec);
  opened.push(connection);
  return connection;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((connection) => connection.close()));
});

describe("stopping a server", () => {
  test("a server under a wrapper (sh -c) that outlives its stdin: close() stops the wrapper and the server it started", async () => {
    const pidFile = join(work, "wrapped.pid");
    // `; true` keeps the shell waiting as the server's parent (a lone command would be exec'd in its place).
    const connection = await connectMcp({
      command: "sh",
      args: ["-c", `"${process.execPath}" "${SERVER}" --linger --pid-file "${pidFile}"; true`],
    });
    const server = Number(readFileSync(pidFile, "utf8"));
    expect(running(server)).toBe(true);
    await connection.close();
    expect(running(server)).toBe(false);
  });

  test("a server that exits when its stdin closes is gone when close() returns", async () => {
    const pidFile = join(work, "plain.pid");
    const connection = await connectMcp(stdio("--pid-file", pidFile));
    await connection.close();
    expect(running(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });
});

describe("answers the SDK would not deliver", () => {
  test("a tools/call result that is not an object fails that call at once with call-failed", async () => {
    const { client } = await connect(stdio());
    // A timeout far beyond the test's: the call must fail on the answer, not on the clock.
    const report = await runPlan({ steps: [{ id: 1, tool: "forty-two", args: {} }] }, await mcpTools(client, { timeoutMs: 600_000 }));
    const error = report.errors.get(1)!;
    expect(error.message).toBe(
      `step 1 (forty-two): the tool failed: the MCP server's answer is not a valid JSON-RPC response: its "result" is a number (42), not an object`,
    );
    expect((error.cause as McpCallError).code).toBe("call-failed");
  });

  test("an answer over the size limit fails its own call, says so, and the other calls and the connection carry on", async () => {
    const { client } = await connect(stdio());
    const tools = await mcpTools(client, { timeoutMs: 600_000 });
    const plan = {
      steps: [
        { id: 1, tool: "huge", args: { bytes: MAX_MCP_MESSAGE_BYTES + 1 } },
        { id: 2, tool: "shout", args: { text: "still here" } },
      ],
    };
    const report = await runPlan(plan, tools);
    expect(report.errors.get(1)!.message).toBe(
      "step 1 (huge): the tool failed: the MCP server's answer is larger than the 10 MiB limit of one message",
    );
    expect((report.errors.get(1)!.cause as McpCallError).code).toBe("call-failed");
    expect(report.results.get(2)).toBe("STILL HERE!");
    const after = await runPlan({ steps: [{ id: 1, tool: "huge", args: { bytes: 1000 } }] }, tools);
    expect(after.results.get(1)).toBe("x".repeat(1000));
  });
});

describe("setting up", () => {
  test("a tools/list answer that does not fit MCP's schema: invalid-tools-list, one line", async () => {
    const failed = connectMcpServers([stdio("--bad-list")], { labels: ["bad"] });
    await expect(failed).rejects.toMatchObject({
      code: "invalid-tools-list",
      message: `MCP server "bad": the server's tools/list answer does not fit MCP's schema: tools.0.name: Invalid input: expected string, received number (and 1 more problem)`,
    });
  });

  test("timeoutMs covers the handshake and tools/list", async () => {
    await expect(connectMcpServers([stdio("--slow-start", "600000")], { labels: ["slow"], timeoutMs: 100 })).rejects.toMatchObject({
      code: "connect-failed",
      message: `MCP server "slow": no answer to the MCP handshake within 100 ms`,
    });
    const { client } = await connect(stdio("--hang-list"));
    await expect(catalogFromMcp(client, { timeoutMs: 100 })).rejects.toMatchObject({
      code: "connect-failed",
      message: "no answer to tools/list within 100 ms",
    });
  });

  test.each([
    ["a Node crash: the error line, not the version banner", "throw new Error('missing API key')", "Error: missing API key"],
    [
      "a Python traceback: its last line",
      "console.error('Traceback (most recent call last):\\n  File \"s.py\", line 1\\n    raise KeyError(\"API_KEY\")\\nKeyError: \\'API_KEY\\''); process.exit(1)",
      "KeyError: 'API_KEY'",
    ],
    [
      "words that say what failed",
      "console.error('starting\\ncould not open config.toml: permission denied\\nbye'); process.exit(1)",
      "could not open config.toml: permission denied",
    ],
    [
      "nothing that looks like an error: the last three lines",
      "console.error('one\\ntwo\\nthree\\nfour'); process.exit(1)",
      "two / three / four",
    ],
  ])("a server that fails to start, %s", async (_, script, quotedLine) => {
    await expect(connectMcp({ command: process.execPath, args: ["-e", script] })).rejects.toMatchObject({
      code: "connect-failed",
      message: expect.stringMatching(
        new RegExp(
          `the server exited before completing the MCP handshake \\(its stderr: ${quotedLine.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\)$`,
        ),
      ),
    });
  });
});

describe("over HTTP", () => {
  test('a connection dropped mid-call says how it dropped, not only "fetch failed"', async () => {
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, [SERVER, "--http"], { stdio: ["ignore", "pipe", "ignore"] });
    try {
      let out = "";
      child.stdout.setEncoding("utf8");
      for await (const chunk of child.stdout) {
        out += chunk as string;
        if (out.includes("\n")) break;
      }
      const { client } = await connect({ url: (JSON.parse(out.split("\n")[0]!) as { url: string }).url });
      const report = await runPlan({ steps: [{ id: 1, tool: "hangup", args: {} }] }, await mcpTools(client));
      const error = report.errors.get(1)!;
      expect(error.message).toBe(
        "step 1 (hangup): the tool failed: the HTTP connection to the MCP server failed during the call: other side closed (the server dropped the connection before answering)",
      );
      expect((error.cause as McpCallError).code).toBe("connection-closed");
    } finally {
      child.kill();
    }
  });
});
