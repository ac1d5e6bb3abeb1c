/**
 * plan-refs as an MCP server: one tool, `run_plan`, runs a whole plan over other servers' tools (and
 * tool functions of one's own) in one call, linted first, with references between the calls and
 * independent steps at the same time; `lint_plan` only checks one. A client that calls one tool per
 * round trip sends a chain of dependent calls as one plan instead of copying each result back through
 * the model. The plan call itself (lint, run, the answer, the description) is `runPlanCall` of
 * `src/agents/`, shared with the AI SDK and OpenAI Agents plan tools.
 */
import { withRemoteParent } from "../step/tracing.js";
import {
  planCallDescription,
  readPlanCallOptions,
  runPlanCall,
  tooManySteps,
  type PlanCallOptions,
  type PlanCallResult,
} from "../agents/plan-call.js";
import { planSchema, type PlanSchema } from "../formats/plan-schema.js";
import { didYouMean } from "../lint/did-you-mean.js";
import { lintPlan } from "../lint/lint-plan.js";
import type { ToolCatalog } from "../plan/plan.js";
import type { RunEvent, ToolFunction, ToolFunctions } from "../run/run-plan.js";
import { handled } from "../run/callbacks.js";
import { createPlanSession, type PlanSession } from "../run/session.js";
import { describeThrown, RefError } from "../shared/errors.js";
import { defineOwn, isPlainArray, isPlainObject, ownData } from "../shared/own-data.js";
import { quoted, safeText } from "../shared/text.js";
import { requestOptions, type McpToolListing } from "./catalog.js";
import type { McpClient } from "./client.js";
import { McpSetupError } from "./errors.js";
import { loadSdk } from "./sdk.js";
import { combineCatalogs, listServerTools, mergeListings } from "./servers.js";
import { callFailure, toolFunctions } from "./tools.js";

/** The plan tool's name, and the linter's. */
export const RUN_PLAN_TOOL = "run_plan";
export const LINT_PLAN_TOOL = "lint_plan";

/** The most steps a plan sent to the server may have, by default (every plan tool's). */
export { DEFAULT_MAX_STEPS } from "../agents/plan-call.js";
/** Most client sessions at once over HTTP; a further client is refused (`too-many-sessions`) until one ends. */
export const MAX_HTTP_SESSIONS = 64;
/**
 * The most bytes of results all of a server's plan sessions keep together (one session per client
 * connection): each keeps at most its share, so that 64 connected clients cannot hold more.
 */
export const MAX_SESSION_BYTES_TOTAL = 64 * 1024 * 1024;
/** The most plans one server runs at once, by default; further `run_plan` calls wait their turn. */
export const DEFAULT_MAX_PLANS = 8;
/** The most `run_plan` calls waiting for their turn; a call beyond is refused (`server-busy`). */
export const MAX_WAITING_PLANS = 1_000;

/** Options of the plan server: those of the plan call (`runPlan`'s and `maxResultChars`), and the server's own limits. */
export interface PlanServerOptions extends Omit<PlanCallOptions, "dialect" | "onEvent"> {
  /** A plan with more steps is not run (`too-many-steps`); default 1,000. */
  readonly maxSteps?: number;
  /** Most plans running at once across all of the server's clients (default 8); further calls wait. */
  readonly maxPlans?: number;
  /** Also serve every upstream server's tools as they are (names, schemas, results passed through). */
  readonly exposeTools?: boolean;
  /**
   * Keep a plan session per client connection (closed with it): a later plan refers to an earlier
   * plan's results by step id, the answers describe results instead of sending them (`described`,
   * `nextStepId`). All sessions together keep at most `MAX_SESSION_BYTES_TOTAL`. Default `false`.
   */
  readonly sessions?: boolean;
  /** How the server introduces itself (default `{ name: "plan-refs", version: "0" }`). */
  readonly serverInfo?: { readonly name: string; readonly version: string };
  /** Told what went wrong when an upstream server's changed tool list could not be read (the old one is kept). */
  readonly onWarning?: (message: string) => void;
}

/** An upstream server: a connected client of the SDK, with a name for messages. */
export interface PlanServerUpstream {
  readonly client: McpClient;
  readonly label?: string;
}

/** What `createPlanServer` serves: upstream servers' tools, tool functions of one's own, and a catalog. */
export interface PlanServerConfig {
  /** Connected MCP clients (the SDK's `Client`, or `connectMcp`'s connections): their tools are the plan's tools. */
  readonly clients?: readonly (McpClient | PlanServerUpstream)[];
  /** Tool functions of one's own, by name (as `runPlan` takes them). */
  readonly tools?: ToolFunctions;
  /** Schemas of `tools`; an entry for an upstream tool replaces the server's (to add an output schema, say). */
  readonly catalog?: ToolCatalog;
  readonly options?: PlanServerOptions;
}

/**
 * The MCP server `createPlanServer` returns: the SDK's `Server` (from
 * `@modelcontextprotocol/sdk/server/index.js`), described by the two calls one needs, so that these
 * declarations name no type of the SDK.
 */
export interface PlanServer {
  /** Serve over a transport of the SDK (`StdioServerTransport`, `StreamableHTTPServerTransport`, …). */
  connect(transport: object): Promise<void>;
  /** Stop serving: runs in progress are aborted, upstream calls in flight cancelled. */
  close(): Promise<void>;
}

type Sdk = {
  Server: Awaited<ReturnType<typeof loadSdk<"server/index.js">>>["Server"];
  types: Awaited<ReturnType<typeof loadSdk<"types.js">>>;
};
type SdkServer = InstanceType<Sdk["Server"]>;

/** One tool as `tools/list` answers it. */
interface ListedTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: Record<string, unknown>;
}

/** What the server serves now: replaced whole when an upstream's tools change, so a run keeps the one it started with. */
interface Served {
  readonly catalog: ToolCatalog;
  readonly tools: ToolFunctions;
  readonly listed: readonly ListedTool[];
  /** An exposed upstream tool's server, by name. */
  readonly exposed: ReadonlyMap<string, McpClient>;
}

/** The answer of a `tools/call`, as MCP has it. */
interface CallResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** The extra of a request handler that the server uses. */
interface RequestExtra {
  readonly signal: AbortSignal;
  /** The request's `_meta`: a progress token, and the caller's W3C trace context (`traceparent`, `tracestate`). */
  readonly _meta?: { readonly progressToken?: string | number; readonly [key: string]: unknown } | undefined;
  sendNotification(notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; total: number; message: string };
  }): Promise<void>;
}

const DIAGNOSTIC_SCHEMA = {
  type: "object",
  properties: {
    code: { type: "string" },
    message: { type: "string" },
    pointer: { type: "string", description: "JSON Pointer into the plan sent" },
  },
  required: ["code", "message", "pointer"],
};

/** What `run_plan` answers (its `structuredContent`, mirrored as JSON text). */
export const RUN_PLAN_OUTPUT_SCHEMA = Object.freeze({
  type: "object",
  description:
    'The run\'s report: "ok", "failed" (a step failed; see errors) or "aborted"; "suspended" (steps wait for a person\'s approval: see pending); or "invalid" (the plan was not run: fix what diagnostics say and send it again); or "error" (the server could not take the plan). With the plan\'s "output", the answer has "output" and no "results"; errors, skipped, pending and outputError appear only when not empty.',
  properties: {
    status: { type: "string", enum: ["ok", "failed", "aborted", "invalid", "suspended", "error"] },
    runId: { type: "string", description: "The run's id, when it is suspended" },
    results: {
      type: "object",
      description: "Each step's result by step id (a long one cut, ending with a marker saying so); absent when the plan has an output",
    },
    pending: {
      type: "object",
      additionalProperties: { type: "object", properties: { tool: { type: "string" }, args: {} }, required: ["tool", "args"] },
      description: "Steps waiting for approval, with the resolved arguments they would run with",
    },
    errors: {
      type: "object",
      additionalProperties: {
        type: "object",
        properties: { code: { type: "string" }, message: { type: "string" } },
        required: ["code", "message"],
      },
    },
    skipped: { type: "array", items: { type: "integer" }, description: "Steps not run because a step they need failed" },
    output: { description: "The plan's own output, resolved against the results, when the plan has one" },
    outputError: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } }, required: ["code", "message"] },
    diagnostics: { type: "array", items: DIAGNOSTIC_SCHEMA },
    error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } }, required: ["code", "message"] },
  },
  required: ["status"],
});

/** What `lint_plan` answers. */
export const LINT_PLAN_OUTPUT_SCHEMA = Object.freeze({
  type: "object",
  properties: {
    errors: { type: "integer" },
    warnings: { type: "integer" },
    diagnostics: {
      type: "array",
      items: {
        ...DIAGNOSTIC_SCHEMA,
        properties: {
          ...DIAGNOSTIC_SCHEMA.properties,
          severity: { type: "string", enum: ["error", "warning"] },
          fix: { description: "What fixes it, when known" },
        },
      },
    },
  },
  required: ["errors", "warnings", "diagnostics"],
});

const LINT_DESCRIPTION = `Check a plan for ${RUN_PLAN_TOOL} without running it: the answer lists its problems ({code, severity, message, pointer}); a plan with no errors would run.`;

/** Why something failed, in one line: plan-refs's own errors are escaped already; any other's message is escaped here. */
function reason(error: unknown): string {
  return error instanceof McpSetupError || error instanceof RefError ? error.message : safeText(describeThrown(error), 300);
}

/** The checked options, and the plan call's. */
interface Settings {
  readonly maxSteps: number;
  readonly maxPlans: number;
  readonly exposeTools: boolean;
  readonly sessions: boolean;
  readonly serverInfo: { readonly name: string; readonly version: string };
  readonly onWarning: ((message: string) => void) | undefined;
  readonly call: PlanCallOptions;
  /** The language options, for the schema, the description and the linter. */
  readonly language: Pick<PlanCallOptions, "syntax" | "templates" | "deep">;
  /** Milliseconds an upstream call may wait (the SDK's request timeout). */
  readonly timeout: number | undefined;
}

function readSettings(options: PlanServerOptions): Settings {
  if (!isPlainObject(options)) throw new McpSetupError("invalid-options", "the plan server's options must be a plain object");
  const { maxPlans, exposeTools, sessions, serverInfo, onWarning, ...rest } = Object.fromEntries(
    Object.keys(options).map((key) => [key, ownData(options, key)]),
  ) as Record<string, unknown>;
  const count = (value: unknown, name: string, fallback: number): number => {
    if (value === undefined) return fallback;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1)
      throw new McpSetupError("invalid-options", `option ${name} must be a positive integer`);
    return value;
  };
  if (exposeTools !== undefined && typeof exposeTools !== "boolean")
    throw new McpSetupError("invalid-options", "option exposeTools must be a boolean");
  if (sessions !== undefined && typeof sessions !== "boolean")
    throw new McpSetupError("invalid-options", "option sessions must be a boolean");
  if (onWarning !== undefined && typeof onWarning !== "function")
    throw new McpSetupError("invalid-options", "option onWarning must be a function");
  const info = serverInfo ?? { name: "plan-refs", version: "0" };
  if (!isPlainObject(info) || typeof ownData(info, "name") !== "string" || typeof ownData(info, "version") !== "string")
    throw new McpSetupError("invalid-options", "option serverInfo must be { name, version }, two strings");
  if ("dialect" in rest || "onEvent" in rest)
    throw new McpSetupError(
      "invalid-options",
      `the plan server takes no option ${"dialect" in rest ? "dialect" : "onEvent"} (MCP clients read JSON Schema; progress goes to the client)`,
    );
  let call: ReturnType<typeof readPlanCallOptions>;
  try {
    call = readPlanCallOptions(rest);
  } catch (error) {
    throw new McpSetupError("invalid-options", reason(error), { cause: error });
  }
  const language = Object.fromEntries(
    (["syntax", "templates", "deep"] as const).flatMap((key) => (call[key] === undefined ? [] : [[key, call[key]]])),
  );
  // No timeoutMs: no limit for the upstream calls either (not the SDK's default of 60 s).
  const timeoutMs = call.timeoutMs ?? Infinity;
  return {
    maxSteps: call.maxSteps,
    maxPlans: count(maxPlans, "maxPlans", DEFAULT_MAX_PLANS),
    exposeTools: exposeTools === true,
    sessions: sessions === true,
    serverInfo: { name: ownData(info, "name") as string, version: ownData(info, "version") as string },
    onWarning: onWarning as Settings["onWarning"],
    call,
    language,
    timeout: requestOptions({ timeoutMs }, "plan server option").timeout,
  };
}

/** An upstream, read. */
interface Upstream {
  readonly client: McpClient;
  readonly label: string;
  listing: readonly McpToolListing[];
}

function readUpstreams(clients: PlanServerConfig["clients"]): Upstream[] {
  if (clients === undefined) return [];
  if (!isPlainArray(clients)) throw new McpSetupError("invalid-options", "option clients must be an array of connected MCP clients");
  return clients.map((entry, i) => {
    const client = typeof ownData(entry, "client") === "object" ? (ownData(entry, "client") as McpClient) : (entry as McpClient);
    if (typeof client?.listTools !== "function" || typeof client.callTool !== "function")
      throw new McpSetupError("invalid-options", `clients[${i}] is not a connected MCP client (the SDK's Client, or { client, label })`);
    const label = ownData(entry, "label");
    return { client, label: typeof label === "string" ? label : `clients[${i}]`, listing: [] };
  });
}

/**
 * Waiting for one of `max` places; a caller whose signal aborts while it waits leaves the line.
 */
class Slots {
  #free: number;
  readonly #waiting = new Set<() => void>();
  constructor(max: number) {
    this.#free = max;
  }
  /** A place (the function returned gives it back), or undefined when too many wait already. */
  async take(signal: AbortSignal): Promise<(() => void) | undefined> {
    if (this.#free > 0) {
      this.#free--;
      return this.#release();
    }
    if (this.#waiting.size >= MAX_WAITING_PLANS) return undefined;
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#waiting.delete(wake);
        reject(signal.reason);
      };
      const wake = (): void => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.add(wake);
    });
    return this.#release();
  }
  #release(): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const [next] = this.#waiting;
      // The place goes straight to the first in line.
      if (next !== undefined) {
        this.#waiting.delete(next);
        next();
      } else this.#free++;
    };
  }
}

/**
 * The tools a plan server serves, shared by all its MCP servers (one per client session over HTTP):
 * the upstream listings, the plan places, and the servers to tell when the tools change.
 */
export class PlanService {
  readonly #settings: Settings;
  readonly #upstreams: Upstream[];
  readonly #local: ToolFunctions;
  readonly #localNames: string[];
  readonly #file: ToolCatalog | undefined;
  readonly #sdk: Sdk;
  readonly #slots: Slots;
  readonly #servers = new Set<SdkServer>();
  #served!: Served;
  #closed = false;
  /** Per upstream: a listing under way, and whether another change came meanwhile. */
  readonly #refreshing = new Map<number, { again: boolean }>();

  private constructor(config: PlanServerConfig, sdk: Sdk) {
    if (!isPlainObject(config))
      throw new McpSetupError("invalid-options", "createPlanServer takes { clients?, tools?, catalog?, options? }");
    this.#settings = readSettings(ownData(config, "options") ?? {});
    this.#upstreams = readUpstreams(ownData(config, "clients") as PlanServerConfig["clients"]);
    const tools = ownData(config, "tools") ?? {};
    if (!isPlainObject(tools)) throw new McpSetupError("invalid-options", "option tools must be an object of tool functions");
    this.#local = Object.create(null) as Record<string, ToolFunction>;
    this.#localNames = [];
    for (const name of Object.keys(tools)) {
      const fn = ownData(tools, name);
      if (typeof fn !== "function") continue;
      defineOwn(this.#local, name, fn);
      this.#localNames.push(name);
    }
    const file = ownData(config, "catalog");
    if (file !== undefined && !isPlainObject(file))
      throw new McpSetupError("invalid-options", "option catalog must be a tool catalog (an object of tools)");
    this.#file = file as ToolCatalog | undefined;
    this.#sdk = sdk;
    this.#slots = new Slots(this.#settings.maxPlans);
  }

  /**
   * Read the upstream servers' tools and make the service. Fails with an `McpSetupError`: a tool two
   * sources offer (`tool-collision`), an upstream listing that cannot be read, options out of range.
   *
   * @example
   * const service = await PlanService.create({ clients: [connection], options: { maxSteps: 100 } })
   * await service.server().connect(transport)
   */
  static async create(config: PlanServerConfig): Promise<PlanService> {
    const [{ Server }, types] = await Promise.all([loadSdk("server/index.js"), loadSdk("types.js")]);
    const service = new PlanService(config, { Server, types });
    await Promise.all(
      service.#upstreams.map(async (upstream) => {
        upstream.listing = await listServerTools(upstream.client, upstream.label);
      }),
    );
    service.#served = service.#serve();
    service.#upstreams.forEach((upstream, i) => service.#watch(upstream, i));
    return service;
  }

  /** What is served, from the upstream listings as they are now (throws `McpSetupError` on a collision). */
  #serve(): Served {
    const merged = mergeListings(
      this.#upstreams.map((upstream) => upstream.label),
      this.#upstreams.map((upstream) => upstream.listing),
    );
    const catalog = combineCatalogs(
      merged,
      this.#localNames.length === 0 ? undefined : { names: this.#localNames, label: "the plan server's own tools" },
      this.#file,
    );
    const tools = Object.assign(
      Object.create(null) as object,
      this.#local,
      ...this.#upstreams.map((upstream, i) => toolFunctions(upstream.client, merged.names[i]!, this.#settings.timeout)),
    ) as ToolFunctions;
    let schema: PlanSchema;
    let description: string;
    try {
      schema = planSchema(catalog, this.#settings.language);
      description = planCallDescription(catalog, {
        ...this.#settings.language,
        ...(this.#settings.sessions ? { session: true as const } : {}),
      });
    } catch (error) {
      throw new McpSetupError("invalid-tools-list", `the tools cannot be offered as a plan: ${reason(error)}`, { cause: error });
    }
    const listed: ListedTool[] = [
      {
        name: RUN_PLAN_TOOL,
        description,
        inputSchema: schema,
        outputSchema: RUN_PLAN_OUTPUT_SCHEMA,
        annotations: { title: "Run a plan of tool calls", readOnlyHint: false, openWorldHint: true },
      },
      {
        name: LINT_PLAN_TOOL,
        description: LINT_DESCRIPTION,
        inputSchema: schema,
        outputSchema: LINT_PLAN_OUTPUT_SCHEMA,
        annotations: { title: "Check a plan", readOnlyHint: true, openWorldHint: false },
      },
    ];
    const exposed = new Map<string, McpClient>();
    if (this.#settings.exposeTools) {
      for (const upstream of this.#upstreams) {
        for (const { name, spec } of upstream.listing) {
          if (name === RUN_PLAN_TOOL || name === LINT_PLAN_TOOL)
            throw new McpSetupError(
              "tool-collision",
              `MCP server ${quoted(upstream.label, 80)} offers a tool named ${quoted(name)}, the plan server's own: it cannot be exposed as it is`,
            );
          exposed.set(name, upstream.client);
          listed.push({
            name,
            ...(spec.description === undefined ? {} : { description: spec.description }),
            inputSchema: spec.input ?? { type: "object" },
            ...(spec.output === undefined ? {} : { outputSchema: spec.output }),
          });
        }
      }
    }
    return { catalog, tools, listed, exposed };
  }

  /** Listen for an upstream's `notifications/tools/list_changed` (a client of the SDK can be told). */
  #watch(upstream: Upstream, index: number): void {
    const client = upstream.client as McpClient & { setNotificationHandler?: (schema: unknown, handler: () => void) => void };
    if (typeof client.setNotificationHandler !== "function") return;
    client.setNotificationHandler(this.#sdk.types.ToolListChangedNotificationSchema, () => void this.#refresh(index));
  }

  /** List an upstream's tools again, serve them, and tell every client; one listing at a time per upstream. */
  async #refresh(index: number): Promise<void> {
    const under = this.#refreshing.get(index);
    if (under !== undefined) {
      under.again = true;
      return;
    }
    const state = { again: true };
    this.#refreshing.set(index, state);
    const upstream = this.#upstreams[index]!;
    try {
      while (state.again && !this.#closed) {
        state.again = false;
        const before = upstream.listing;
        try {
          upstream.listing = await listServerTools(upstream.client, upstream.label);
          this.#served = this.#serve();
        } catch (error) {
          upstream.listing = before;
          this.#warn(
            `the changed tools of MCP server ${quoted(upstream.label, 80)} cannot be served (the previous ones are kept): ${reason(error)}`,
          );
          continue;
        }
        for (const server of this.#servers) server.sendToolListChanged().catch(() => undefined);
      }
    } finally {
      this.#refreshing.delete(index);
    }
  }

  #warn(message: string): void {
    try {
      handled(this.#settings.onWarning?.(message));
    } catch {
      // The caller's callback: what it throws is ignored.
    }
  }

  /**
   * A new MCP server (the SDK's `Server`) over this service's tools, for one client connection.
   *
   * @example
   * await service.server().connect(new StdioServerTransport())
   */
  server(): PlanServer {
    return this.#newServer();
  }

  /**
   * The server of `createPlanServer`: closing it stops the service too (which then listens to the
   * upstreams no more), since it is the service's only one.
   */
  static async only(config: PlanServerConfig): Promise<PlanServer> {
    const service = await PlanService.create(config);
    const server = service.#newServer();
    const onclose = server.onclose;
    server.onclose = () => {
      onclose?.();
      void service.close();
    };
    return server;
  }

  #newServer(): SdkServer {
    const { Server, types } = this.#sdk;
    const server = new Server(
      { name: this.#settings.serverInfo.name, version: this.#settings.serverInfo.version },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.setRequestHandler(types.ListToolsRequestSchema, () => ({ tools: this.#served.listed as never }));
    // One plan session per client connection, closed with it: plans of one conversation share their results, never two clients'.
    const session = this.#settings.sessions
      ? createPlanSession({ maxBytes: Math.floor(MAX_SESSION_BYTES_TOTAL / MAX_HTTP_SESSIONS) })
      : undefined;
    server.setRequestHandler(
      types.CallToolRequestSchema,
      (request, extra) => this.#call(request.params.name, request.params.arguments, extra as unknown as RequestExtra, session) as never,
    );
    // A client that disconnects or sends garbage: the SDK reports it here; the server goes on.
    server.onerror = () => undefined;
    server.onclose = () => void this.#servers.delete(server);
    this.#servers.add(server);
    return server;
  }

  async #call(
    name: string,
    args: Record<string, unknown> | undefined,
    extra: RequestExtra,
    session: PlanSession | undefined,
  ): Promise<CallResult> {
    const served = this.#served;
    if (name === RUN_PLAN_TOOL) return this.#runPlan(served, args ?? {}, extra, session);
    if (name === LINT_PLAN_TOOL) return this.#lintPlan(served, args ?? {}, session);
    const client = served.exposed.get(name);
    if (client !== undefined) return this.#passOn(client, name, args, extra);
    const suggestion = didYouMean(
      name,
      served.listed.map((tool) => tool.name),
    );
    throw new this.#sdk.types.McpError(
      this.#sdk.types.ErrorCode.InvalidParams,
      `unknown-tool: no tool ${quoted(name, 80)} on this server${suggestion === undefined ? "" : `; did you mean ${quoted(suggestion)}?`}`,
    );
  }

  async #runPlan(served: Served, plan: unknown, extra: RequestExtra, session: PlanSession | undefined): Promise<CallResult> {
    const tooBig = tooManySteps(plan, this.#settings.maxSteps);
    if (tooBig !== undefined) return answer({ status: "invalid", diagnostics: [tooBig] }, true);
    if (this.#closed)
      return answer(
        { status: "error", error: { code: "server-closing", message: "the plan server is shutting down; nothing was run" } },
        true,
      );
    let release: (() => void) | undefined;
    try {
      release = await this.#slots.take(extra.signal);
    } catch {
      // Cancelled while waiting its turn: the SDK sends no answer to a cancelled request.
      return answer({ status: "aborted", results: {} }, false);
    }
    if (release === undefined)
      return answer(
        {
          status: "error",
          error: { code: "server-busy", message: `${MAX_WAITING_PLANS} plans are already waiting to run; send this one again later` },
        },
        true,
      );
    try {
      const { sent, ...onEvent } = progress(plan, extra);
      // A caller's trace context in `_meta`: the run's spans continue the caller's trace.
      const result = await withRemoteParent(extra._meta, () =>
        runPlanCall(
          plan,
          { tools: served.tools, catalog: served.catalog, signal: extra.signal },
          { ...this.#settings.call, ...onEvent, ...(session === undefined ? {} : { session }) },
        ),
      );
      await sent();
      return result.status === "invalid"
        ? answer({ status: "invalid", diagnostics: oncePerPlace(result.diagnostics ?? []) }, true)
        : answer(result, false);
    } catch (error) {
      return answer({ status: "error", error: { code: "internal-error", message: `the plan could not be run: ${reason(error)}` } }, true);
    } finally {
      release();
    }
  }

  #lintPlan(served: Served, plan: unknown, session: PlanSession | undefined): CallResult {
    const tooBig = tooManySteps(plan, this.#settings.maxSteps);
    const diagnostics =
      tooBig !== undefined
        ? [{ ...tooBig, severity: "error" as const }]
        : lintPlan(plan, {
            ...this.#settings.language,
            tools: served.catalog,
            ...(session === undefined ? {} : { earlierSteps: session.earlier() }),
          }).map(({ code, severity, message, pointer, fix }) => ({
            code,
            severity,
            message,
            pointer,
            ...(fix === undefined ? {} : { fix }),
          }));
    const errors = diagnostics.filter((diagnostic) => diagnostic.severity === "error").length;
    return answer({ errors, warnings: diagnostics.length - errors, diagnostics }, false);
  }

  /** An exposed upstream tool: the call passed on as it is, and its answer back as it is. */
  async #passOn(client: McpClient, name: string, args: Record<string, unknown> | undefined, extra: RequestExtra): Promise<CallResult> {
    const timeout = this.#settings.timeout;
    try {
      return (await client.callTool({ name, ...(args === undefined ? {} : { arguments: args }) }, undefined, {
        signal: extra.signal,
        ...(timeout === undefined ? {} : { timeout }),
      })) as CallResult;
    } catch (error) {
      const failure = callFailure(error, timeout);
      return { content: [{ type: "text", text: `${failure.code}: ${failure.message}` }], isError: true };
    }
  }

  /** Stop serving: every server closed (their runs aborted); the upstream clients are the caller's to close. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const upstream of this.#upstreams) {
      const client = upstream.client as McpClient & { removeNotificationHandler?: (method: string) => void };
      if (typeof client.removeNotificationHandler === "function") client.removeNotificationHandler("notifications/tools/list_changed");
    }
    await Promise.all([...this.#servers].map((server) => server.close().catch(() => undefined)));
  }
}

/**
 * The `onEvent` that sends a client a progress notification as each step ends, when the request asked
 * for them, and `sent`, which settles once every notification is written: the answer goes after them,
 * since a client stops listening for a request's progress once it has the answer.
 */
function progress(plan: unknown, extra: RequestExtra): { onEvent?: (event: RunEvent) => void; sent: () => Promise<unknown> } {
  const token = extra._meta?.progressToken;
  const steps = ownData(plan, "steps");
  if (token === undefined || !isPlainArray(steps)) return { sent: () => Promise.resolve() };
  const total = steps.length;
  let done = 0;
  // One notification per step at most: bounded by maxSteps.
  const sending: Promise<unknown>[] = [];
  return {
    onEvent(event) {
      if (event.type === "step-start" || event.type === "step-retry" || extra.signal.aborted) return;
      done++;
      const how =
        event.type === "step-done"
          ? "done"
          : event.type === "step-failed"
            ? `failed (${event.error.code})`
            : event.type === "step-awaiting-approval"
              ? "waits for approval"
              : `skipped (step ${event.blockedBy} failed)`;
      // A client gone mid-run: the notification has nowhere to go, which is no one's error.
      sending.push(
        extra
          .sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: done, total, message: `step ${event.stepId} (${safeText(event.tool, 80)}) ${how}` },
          })
          .catch(() => undefined),
      );
    },
    // Then one turn of the event loop: the SDK's client handles a notification a tick later than an
    // answer that comes in the same chunk, and drops progress for a request already answered.
    sent: () => Promise.all(sending).then(() => new Promise((resolve) => setImmediate(resolve))),
  };
}

/**
 * One problem per place and code: the linter (against the catalog) and the runner (against the tool
 * functions) both name a tool that is not there; the model needs to read it once.
 */
function oncePerPlace<T extends { readonly code: string; readonly pointer: string }>(diagnostics: readonly T[]): T[] {
  const seen = new Set<string>();
  return diagnostics.filter(({ code, pointer }) => {
    const key = `${code} ${pointer}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A `tools/call` answer: the JSON as structured content and as text. */
function answer(value: PlanCallResult | Record<string, unknown>, isError: boolean): CallResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
    ...(isError ? { isError: true } : {}),
  };
}

/**
 * An MCP server (the SDK's `Server`) whose tool `run_plan` runs a whole plan over the tools of the
 * upstream `clients` and of `tools`: linted against their schemas first (a plan with errors is not
 * run: `isError: true` and the diagnostics, so the model can correct itself), then run with
 * references between the steps and independent steps at the same time; `lint_plan` only lints.
 * `run_plan`'s input schema is `planSchema` over the catalog, its description teaches the reference
 * language with an example built from the tools. A request's `progressToken` gets a progress
 * notification as each step ends; a cancelled request aborts its run and the upstream calls in
 * flight. An upstream's `tools/list_changed` refreshes the tools and is passed on. At most `maxPlans`
 * (8) plans run at once, of at most `maxSteps` (1,000) steps each. With `exposeTools`, the upstream
 * tools are served as they are too. Needs `@modelcontextprotocol/sdk` (`missing-sdk` otherwise).
 *
 * @example
 * const upstream = await connectMcp({ command: "node", args: ["server.mjs"] })
 * const server = await createPlanServer({ clients: [upstream], options: { concurrency: 4 } })
 * await server.connect(new StdioServerTransport())
 */
export async function createPlanServer(config: PlanServerConfig = {}): Promise<PlanServer> {
  return PlanService.only(config);
}
