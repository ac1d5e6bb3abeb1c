/**
 * The plan server over Streamable HTTP: one MCP session per client (each its own SDK `Server` over the
 * one `PlanService`, so every client is told when the tools change), on loopback unless a bearer
 * token guards it. Every request's `Origin` is checked, as the MCP specification asks against DNS
 * rebinding (a web page may not reach the server through the visitor's browser), and on loopback its
 * `Host` too; a token is compared in constant time.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { isIP } from "node:net";
import { describeThrown } from "../shared/errors.js";
import { isPlainArray, ownData } from "../shared/own-data.js";
import { quoted, safeText } from "../shared/text.js";
import { McpSetupError } from "./errors.js";
import { MAX_HTTP_SESSIONS, type PlanService } from "./plan-server.js";
import { loadSdk } from "./sdk.js";

/** The endpoint's path. */
export const MCP_PATH = "/mcp";
export { MAX_HTTP_SESSIONS } from "./plan-server.js";
/** How long a session with no request open may sit before it is ended, by default: 30 minutes. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
/** Largest request body read (the SDK transport's own default). */
export const MAX_HTTP_BODY_BYTES = 4 * 1024 * 1024;

/** Where and how to serve. */
export interface PlanHttpOptions {
  /** The TCP port; 0: any free one. */
  readonly port: number;
  /** The address to bind (default 127.0.0.1); any other than loopback needs `token`. */
  readonly host?: string;
  /** The bearer token every request must carry (`Authorization: Bearer …`). */
  readonly token?: string;
  /**
   * A session with no request open (a client listening for notifications holds one) for this long is
   * ended, so that clients gone without a DELETE do not hold the session places (default 30 minutes).
   */
  readonly idleMs?: number;
}

/** A plan server listening. */
export interface PlanHttpServer {
  /** The endpoint a client connects to, e.g. `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  /** Stop listening and end every session. Never rejects. */
  close(): Promise<void>;
}

/**
 * Whether a host name or address is this machine's loopback (127.0.0.0/8, ::1, localhost).
 *
 * @example
 * isLoopback("127.0.0.1") // true
 * isLoopback("0.0.0.0")   // false
 */
export function isLoopback(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  return isIP(bare) === 6 && /^(?:0{0,4}:){2,7}0{0,3}1$|^::1$/i.test(bare);
}

/** A refusal, as the JSON-RPC error the transport itself would write. */
interface Refusal {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A POST's body as JSON, read whole up to the limit; a refusal for one too large or not JSON. */
async function readBody(req: IncomingMessage): Promise<{ body: unknown } | Refusal> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_HTTP_BODY_BYTES)
      return { status: 413, code: "body-too-large", message: `a request body may have at most ${MAX_HTTP_BODY_BYTES} bytes` };
    chunks.push(chunk);
  }
  try {
    return { body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown };
  } catch {
    return { status: 400, code: "parse-error", message: "the request body is not JSON" };
  }
}

/** The ids of the requests in a POST's body (one JSON-RPC message, or a list of them). */
function requestIds(body: unknown): (string | number)[] {
  return (isPlainArray(body) ? body : [body]).flatMap((message) => {
    const id = ownData(message, "id");
    return typeof ownData(message, "method") === "string" && (typeof id === "string" || typeof id === "number") ? [id] : [];
  });
}

/**
 * Answer with a refusal, and close the connection after it: a refusal comes before the request's body
 * is read whole (or, past the limit, instead of reading the rest), and a connection whose unread body
 * the server will never read cannot carry the client's next request (its keep-alive agent would send
 * it there, to wait and fail). With `connection: close` the client opens a new one.
 */
function refuse(res: ServerResponse, { status, code, message, headers = {} }: Refusal): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { "content-type": "application/json", connection: "close", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: `${code}: ${message}`, data: { code } }, id: null }));
}

/** The same digest length for any token: `timingSafeEqual` then compares in time independent of where they differ. */
function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * Serve `service` over Streamable HTTP at `http://HOST:PORT/mcp`. Refuses to bind an address other
 * than loopback without a token (`McpSetupError` code `token-required`); a port that cannot be bound
 * is `listen-failed`.
 *
 * @example
 * const http = await servePlanHttp(service, { port: 0 })
 * console.error(http.url) // http://127.0.0.1:PORT/mcp
 */
export async function servePlanHttp(service: PlanService, options: PlanHttpOptions): Promise<PlanHttpServer> {
  const host = options.host ?? "127.0.0.1";
  const loopback = isLoopback(host);
  if (!loopback && options.token === undefined) {
    throw new McpSetupError(
      "token-required",
      `${quoted(host, 80)} is not a loopback address: serving on it needs a bearer token (--token-file FILE), or bind 127.0.0.1`,
    );
  }
  const expected = options.token === undefined ? undefined : digest(options.token);
  const { StreamableHTTPServerTransport } = await loadSdk("server/streamableHttp.js");
  type Transport = InstanceType<typeof StreamableHTTPServerTransport>;
  /** Each session: its transport and server, its requests open, and when the last one ended. */
  type Session = { transport: Transport; server: ReturnType<PlanService["server"]>; open: number; lastSeen: number };
  const sessions = new Map<string, Session>();
  const idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS;
  if (!Number.isSafeInteger(idleMs) || idleMs < 1)
    throw new McpSetupError("invalid-options", "option idleMs must be a positive integer of milliseconds");
  const end = (id: string, session: Session): void => {
    sessions.delete(id);
    void Promise.all([session.server.close().catch(() => undefined), session.transport.close().catch(() => undefined)]);
  };
  // One timer for all sessions, not holding the process open.
  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) if (session.open === 0 && now - session.lastSeen >= idleMs) end(id, session);
    },
    Math.min(idleMs, 60_000),
  );
  sweeper.unref();
  let opening = 0;
  let port = options.port;
  const urlHost = isIP(host) === 6 ? `[${host}]` : host;

  /** The names a request may address the server by, and the origins a browser page may come from. */
  const hostNames = (): Set<string> =>
    loopback ? new Set(["localhost", "127.0.0.1", "[::1]", urlHost.toLowerCase()]) : new Set([urlHost.toLowerCase()]);

  function check(req: IncomingMessage): Refusal | undefined {
    const names = hostNames();
    const hostHeader = req.headers.host;
    if (loopback) {
      let name: string | undefined;
      try {
        name = hostHeader === undefined ? undefined : new URL(`http://${hostHeader}`).hostname.toLowerCase();
      } catch {
        name = undefined;
      }
      if (name === undefined || !names.has(name))
        return {
          status: 403,
          code: "forbidden-host",
          message: `this server answers on loopback only, not to Host ${quoted(hostHeader ?? "", 80)}`,
        };
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      let allowed: boolean;
      try {
        const from = new URL(origin);
        allowed = from.protocol === "http:" && names.has(from.hostname.toLowerCase()) && Number(from.port || 80) === port;
      } catch {
        allowed = false;
      }
      if (!allowed)
        return {
          status: 403,
          code: "forbidden-origin",
          message: `requests from Origin ${quoted(origin, 80)} are refused (a page of another site may not reach this server)`,
        };
    }
    if (expected !== undefined) {
      const header = req.headers.authorization ?? "";
      const match = /^Bearer ([^\s]+)$/i.exec(header);
      const given = digest(match?.[1] ?? "");
      if (match === null || !timingSafeEqual(given, expected))
        return {
          status: 401,
          code: "unauthorized",
          message: "this server needs the bearer token of its --token-file (Authorization: Bearer …)",
          headers: { "www-authenticate": 'Bearer realm="plan-refs"' },
        };
    }
    return undefined;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (path !== MCP_PATH) return refuse(res, { status: 404, code: "not-found", message: `the MCP endpoint is ${MCP_PATH}` });
    const refusal = check(req);
    if (refusal !== undefined) return refuse(res, refusal);
    let body: unknown;
    if (req.method === "POST") {
      const read = await readBody(req);
      if (!("body" in read)) return refuse(res, read);
      body = read.body;
    }
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") {
      const session = sessions.get(id);
      if (session === undefined)
        return refuse(res, {
          status: 404,
          code: "unknown-session",
          message: "no such session (it ended, or the server restarted): initialize again",
        });
      session.open++;
      res.once("close", () => {
        session.open--;
        session.lastSeen = Date.now();
      });
      if (body === undefined) return session.transport.handleRequest(req, res);
      cancelIfDropped(session.transport, res, requestIds(body));
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== "POST")
      return refuse(res, {
        status: 400,
        code: "no-session",
        message: "a request without an Mcp-Session-Id header must be a POST of initialize",
      });
    if (sessions.size + opening >= MAX_HTTP_SESSIONS)
      return refuse(res, {
        status: 503,
        code: "too-many-sessions",
        message: `${MAX_HTTP_SESSIONS} clients are connected already; try again when one has left`,
      });
    opening++;
    const server = service.server();
    const transport: Transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, server, open: 0, lastSeen: Date.now() }),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      opening--;
      // Not an initialize request (the transport has answered so): nothing to keep.
      if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await server.close().catch(() => undefined);
    }
  }

  /**
   * A POST's answers go on its own response stream, which nothing can resume (no event store): when the
   * client drops it before they are all written, its requests are cancelled as if the client had said
   * so, so that a run does not go on (holding one of the plan places) for an answer no one can receive.
   */
  function cancelIfDropped(transport: Transport, res: ServerResponse, ids: readonly (string | number)[]): void {
    if (ids.length === 0) return;
    res.once("close", () => {
      if (res.writableFinished) return;
      for (const requestId of ids)
        transport.onmessage?.({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId, reason: "the client's connection closed" },
        });
    });
  }

  const listener = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      refuse(res, { status: 500, code: "internal-error", message: safeText(describeThrown(error), 200) }),
    );
  });
  // A client that drops its connection mid-request: nothing to answer, and not this server's error.
  listener.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    listener.once("error", (error) => {
      clearInterval(sweeper);
      const code = ownData(error, "code");
      reject(
        new McpSetupError(
          "listen-failed",
          `cannot listen on ${urlHost}:${options.port}: ${code === "EADDRINUSE" ? "the port is in use" : code === "EACCES" ? "permission denied" : code === "EADDRNOTAVAIL" ? "no such address on this machine" : safeText(describeThrown(error), 200)}`,
          { cause: error },
        ),
      );
    });
    listener.listen(options.port, host, () => resolve());
  });
  listener.on("error", () => undefined);
  const address = listener.address();
  if (typeof address === "object" && address !== null) port = address.port;
  const url = `http://${urlHost}:${port}${MCP_PATH}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    close: () =>
      (closing ??= (async () => {
        clearInterval(sweeper);
        const open = [...sessions.values()];
        sessions.clear();
        await Promise.all(
          open.map(({ transport, server }) =>
            Promise.all([server.close().catch(() => undefined), transport.close().catch(() => undefined)]),
          ),
        );
        await new Promise<void>((resolve) => {
          listener.close(() => resolve());
          listener.closeAllConnections();
        });
      })()),
  };
}
