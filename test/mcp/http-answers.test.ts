/**
 * Over Streamable HTTP, an answer the SDK's schema check would drop unseen (a tools/call `result` that
 * is not an object) fails its call at once with `call-failed`, as over stdio, and so does an answer
 * over the size limit of one message (read no further than the limit): against a hand-written HTTP
 * server (test/fixtures/raw-http-mcp.mjs) in this process (the command line too, through `runCli`), whose tools/call stream stays open after
 * the answer, so a call that ends was not ended by the connection closing.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { afterEach, describe, expect, test } from "vitest";
import { AnswerCheck, MAX_MCP_MESSAGE_BYTES } from "../../src/mcp/answer-check.js";
import { checkedFetch } from "../../src/mcp/http-answers.js";
import { connectMcpServers, McpCallError, type McpServers } from "../../src/mcp/index.js";
import { runPlan } from "../../src/run/index.js";
import { HUGE_CAP, serveRawMcp } from "../fixtures/raw-http-mcp.mjs";
import { runCliInProcess } from "../helpers/cli.js";
import { until } from "../helpers/processes.js";
import { tempFolder } from "../helpers/temp.js";

const work = tempFolder("mcp-http-answers");
const PROBLEM = `the MCP server's answer is not a valid JSON-RPC response: its "result" is a number (42), not an object`;
const PLAN = { steps: [{ id: 1, tool: "forty-two", args: {} }] };
const OVERSIZED = "the MCP server's answer is larger than the 10 MiB limit of one message";
const failureAnswer = (id: number | string, message: string): string =>
  JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message, data: "plan-refs-transport" } });

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function served(json: boolean): Promise<Awaited<ReturnType<typeof serveRawMcp>>> {
  const server = await serveRawMcp({ json });
  cleanup.push(() => server.close());
  return server;
}

/** Run `plan` on the tools of `server`, with a timeout far beyond the test's: a call must fail on its answer, not on the clock. */
async function runOn(server: { readonly url: string }, plan: typeof PLAN): Promise<Awaited<ReturnType<typeof runPlan>>> {
  const servers: McpServers = await connectMcpServers([{ url: server.url }], { labels: ["raw"] });
  cleanup.push(() => servers.close());
  return runPlan(plan, servers.tools({ timeoutMs: 600_000 }));
}

describe.each([
  ["an SSE stream", false],
  ["an application/json body", true],
])("a tools/call answer, in %s", (_, json) => {
  test("whose result is not an object fails that call at once with call-failed, saying what was wrong", async () => {
    const server = await served(json);
    const report = await runOn(server, PLAN);
    const error = report.errors.get(1)!;
    expect(error.message).toBe(`step 1 (forty-two): the tool failed: ${PROBLEM}`);
    expect((error.cause as McpCallError).code).toBe("call-failed");
    // The server still holds the call's response stream open: the answer ended the call, not a closed connection.
    if (!json) expect(server.openCalls()).toBe(1);
  });

  test("over the size limit fails that call at once with call-failed saying the limit was exceeded, is read no further, and another call's answer is delivered", async () => {
    const server = await served(json);
    const report = await runOn(server, {
      steps: [
        { id: 1, tool: "huge", args: {} },
        { id: 2, tool: "small", args: {} },
      ],
    });
    const error = report.errors.get(1)!;
    expect(error.message).toBe(`step 1 (huge): the tool failed: ${OVERSIZED}`);
    expect((error.cause as McpCallError).code).toBe("call-failed");
    expect(report.results.get(2)).toBe("small");
    // The client closed the answer's response, far short of what the server would have written.
    await until(() => server.openCalls() === 0);
    const [huge] = server.hugeAnswers();
    expect(huge!.finished).toBe(false);
    expect(huge!.bytes).toBeLessThan(HUGE_CAP);
  });
});

test("plan-refs run --mcp-url: the step fails with call-failed", async () => {
  const server = await served(false);
  const path = join(work, "forty-two.plan.json");
  writeFileSync(path, JSON.stringify(PLAN));
  const { code, stdout, stderr } = await runCliInProcess(["run", path, "--mcp-url", server.url]);
  expect(stderr).toContain(PROBLEM);
  expect(code).toBe(1);
  const report = JSON.parse(stdout) as { errors: Record<string, { code: string; message: string; cause?: { code?: string } }> };
  expect(report.errors["1"]).toMatchObject({ code: "tool-error", message: `step 1 (forty-two): the tool failed: ${PROBLEM}` });
});

test("checkedFetch: an application/json body over the limit is read no further, and fails the request its POST sent", async () => {
  const check = new AnswerCheck(JSONRPCMessageSchema);
  check.sent({ jsonrpc: "2.0", id: 3, method: "tools/call" });
  check.sent({ jsonrpc: "2.0", id: 4, method: "tools/call" });
  let pulled = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      controller.enqueue(new TextEncoder().encode(pulled === 1 ? '{"result":{"text":"' : "x".repeat(1024)));
    },
  });
  const fetchFn = () => Promise.resolve(new Response(endless, { headers: { "content-type": "application/json" } }));
  const response = await checkedFetch(
    check,
    fetchFn,
    10_000,
  )("http://127.0.0.1/mcp", { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call" }) });
  expect(await response.text()).toBe(failureAnswer(4, OVERSIZED));
  expect(pulled).toBeLessThan(20);
  expect([...check.waiting]).toEqual([3]);
  expect(MAX_MCP_MESSAGE_BYTES).toBe(10 * 1024 * 1024);
});

describe("checkedFetch reads an SSE stream event by event, wherever its chunks end", () => {
  const WAITING = [7, "q"];
  // Events of every kind: a bad answer to a waiting request (replaced), a valid one, a comment, a
  // priming event with no data, data over two lines, another event type, \r\n and \r line ends.
  const STREAM =
    `: comment\r\nid: 1\r\n\r\n` +
    `event: message\nid: 2\ndata: {"jsonrpc":"2.0","id":7,"result":42}\n\n` +
    `data: {"jsonrpc":"2.0",\rdata: "id":"q","result":{}}\r\r` +
    `event: ping\ndata: {"id":7,"result":1}\n\n` +
    `data: not json\n\n`;

  async function read(chunks: readonly string[], limit?: number, posted?: unknown): Promise<string> {
    const check = new AnswerCheck(JSONRPCMessageSchema);
    for (const id of WAITING) check.sent({ jsonrpc: "2.0", id, method: "tools/call" });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });
    const fetchFn = () => Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } }));
    return (
      await checkedFetch(
        check,
        fetchFn,
        limit,
      )("http://127.0.0.1/mcp", posted === undefined ? undefined : { method: "POST", body: JSON.stringify(posted) })
    ).text();
  }

  test("the bad answer is replaced; every other event is kept as it came (line ends made \\n)", async () => {
    const error = JSON.stringify({ jsonrpc: "2.0", id: 7, error: { code: -32603, message: `${PROBLEM}`, data: "plan-refs-transport" } });
    expect(await read([STREAM])).toBe(
      `: comment\nid: 1\n\n` +
        `event: message\nid: 2\ndata: ${error}\n\n` +
        `data: {"jsonrpc":"2.0",\ndata: "id":"q","result":{}}\n\n` +
        `event: ping\ndata: {"id":7,"result":1}\n\n` +
        `data: not json\n\n`,
    );
  });

  test("an event longer than the limit becomes the error answer for the request it answers; the next event is read as ever", async () => {
    const long = `event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{"text":"${"é".repeat(40)}"}}\n\n`;
    const next = `data: {"jsonrpc":"2.0","id":"q","result":{}}\n\n`;
    const failed = `data: ${failureAnswer(7, OVERSIZED)}\n\n`;
    // The limit counts bytes: 40 "é" are 80 of them.
    expect(await read([long + next], 100)).toBe(failed + next);
    expect(await read([long.slice(0, 30), long.slice(30, 31), long.slice(31) + next], 100)).toBe(failed + next);
    expect(await read([long + next], 200)).toBe(long + next);
  });

  test("an oversized event whose id it does not start with fails the request its POST sent; one that answers nothing waiting is dropped", async () => {
    const long = `data: {"result":{"text":"${"x".repeat(200)}"},"jsonrpc":"2.0","id":"nobody"}\n\n`;
    expect(await read([long], 100, { jsonrpc: "2.0", id: 7, method: "tools/call" })).toBe(`data: ${failureAnswer(7, OVERSIZED)}\n\n`);
    expect(await read([long], 100, { jsonrpc: "2.0", method: "notifications/initialized" })).toBe("");
    // Its end names a waiting request: that one fails.
    expect(await read([long.replace('"nobody"', '"q"')], 100)).toBe(`data: ${failureAnswer("q", OVERSIZED)}\n\n`);
  });

  test("property: any split into chunks reads as the whole stream in one chunk, whatever the limit", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: STREAM.length - 1 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 120 }),
        async (cuts, limit) => {
          const at = [0, ...[...cuts].sort((a, b) => a - b), STREAM.length];
          expect(
            await read(
              at.slice(1).map((end, i) => STREAM.slice(at[i], end)),
              limit,
            ),
          ).toBe(await read([STREAM], limit));
        },
      ),
    );
  });
});
