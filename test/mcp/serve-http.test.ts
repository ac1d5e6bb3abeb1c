/**
 * `servePlanHttp`'s refusals on a keep-alive connection (a server started in this process, on a free
 * port: the refusals are the HTTP server's own, and a real client's connection reuse is what they must
 * not break). A request refused before its body is read whole says `connection: close`, so the
 * client's agent sends its next request on a new connection instead of one the server stops reading.
 */
import { Agent, request, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PlanService } from "../../src/mcp/plan-server.js";
import { MAX_HTTP_BODY_BYTES, MAX_HTTP_SESSIONS, servePlanHttp, type PlanHttpServer } from "../../src/mcp/serve-http.js";

const TOKEN = "s3cret-token-of-the-test-0123456789";
let service: PlanService;
let served: PlanHttpServer;

beforeAll(async () => {
  service = await PlanService.create({ tools: { hello: () => "hi" } });
  served = await servePlanHttp(service, { port: 0, token: TOKEN });
});
afterAll(async () => {
  await served.close();
  await service.close();
});

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});

/** A body within the limit but too long to arrive with its headers: refused unread. */
const LARGE = `${INITIALIZE}${" ".repeat(MAX_HTTP_BODY_BYTES - INITIALIZE.length - 1)}`;

/** A POST through `agent`; its status, headers and body once the response has ended, or the request's error. */
function post(
  agent: Agent,
  body: string | Buffer,
  headers: Record<string, string> = {},
  path = "/mcp",
  to: PlanHttpServer = served,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const url = new URL(path, to.url);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        agent,
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${TOKEN}`,
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
        res.on("error", reject);
      },
    );
    // The body may still be going out when the refusal comes: that write's failure is not the answer.
    req.on("error", reject);
    req.end(body);
  });
}

describe("a refusal before the body is read whole closes the connection; the client's next request succeeds", () => {
  test.each([
    ["413: a body over the limit", Buffer.alloc(MAX_HTTP_BODY_BYTES + 1024 * 1024, 0x20), {}, "/mcp", 413, /^body-too-large: /],
    ["401: no bearer token", LARGE, { authorization: "" }, "/mcp", 401, /^unauthorized: /],
    ["403: another site's Origin", LARGE, { origin: "http://evil.example" }, "/mcp", 403, /^forbidden-origin: /],
    ["404: another path", LARGE, {}, "/elsewhere", 404, /^not-found: /],
  ] as const)("%s", async (_name, body, headers, path, status, message) => {
    // One socket at most, kept alive: the next request goes on the same connection unless the server closes it.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const refused = await post(agent, body, headers, path);
      expect(refused.status).toBe(status);
      expect(refused.headers.connection).toBe("close");
      expect(JSON.parse(refused.body).error.message).toMatch(message);
      const next = await post(agent, INITIALIZE);
      expect(next.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  test("503: one client more than the sessions allowed; the same connection's next request, in a session, succeeds", async () => {
    const full = await servePlanHttp(service, { port: 0, token: TOKEN });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const sessions: string[] = [];
      for (let i = 0; i < MAX_HTTP_SESSIONS; i++)
        sessions.push(String((await post(agent, INITIALIZE, {}, "/mcp", full)).headers["mcp-session-id"]));
      const refused = await post(agent, LARGE, {}, "/mcp", full);
      expect([refused.status, refused.headers.connection]).toEqual([503, "close"]);
      expect(JSON.parse(refused.body).error.message).toMatch(/^too-many-sessions: /);
      const ping = await post(
        agent,
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
        { "mcp-session-id": sessions[0]!, "mcp-protocol-version": "2025-06-18" },
        "/mcp",
        full,
      );
      expect(ping.status).toBe(200);
    } finally {
      agent.destroy();
      await full.close();
    }
  });
});
