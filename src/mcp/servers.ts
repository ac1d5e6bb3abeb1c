/**
 * `connectMcpServers`: several MCP servers at once, their tools combined in one catalog and one set of
 * tool functions; a tool name that two servers offer is an error naming both.
 */
import type { ToolCatalog, ToolSpec } from "../plan/plan.js";
import type { ToolFunctions } from "../run/run-plan.js";
import { quoted } from "../shared/text.js";
import { listMcpTools, requestOptions, type CatalogFromMcpOptions, type McpToolListing } from "./catalog.js";
import type { McpClient } from "./client.js";
import { connectMcp, type ConnectMcpOptions, type McpConnection, type McpServerSpec } from "./connect.js";
import { McpSetupError } from "./errors.js";
import { splitCommand } from "./split-command.js";
import { toolFunctions } from "./tools.js";

/** Servers connected together. */
export interface McpServers {
  readonly connections: readonly McpConnection[];
  /** Every server's tools, as one catalog. */
  readonly catalog: ToolCatalog;
  /** The label of the server that offers each tool. */
  readonly owners: ReadonlyMap<string, string>;
  /** Tool functions for `runPlan`, each calling its own server (`timeoutMs` as in `mcpTools`). */
  tools(options?: { readonly timeoutMs?: number }): ToolFunctions;
  /** Close every connection (stop every stdio server). Never rejects. */
  close(): Promise<void>;
}

/**
 * Connect to several MCP servers (at the same time), list their tools (every page), and combine them:
 * one catalog, one set of tool functions (`trustReadOnlyHint` as in `catalogFromMcp`). A tool offered by two servers is an `McpSetupError` code
 * `tool-collision` naming both; any failure closes every server before it is thrown.
 *
 * @example
 * const servers = await connectMcpServers([{ command: "node", args: ["a.mjs"] }, { url: "http://127.0.0.1:3000/mcp" }])
 * try { await runPlan(plan, servers.tools(), { catalog: servers.catalog }) } finally { await servers.close() }
 */
export async function connectMcpServers(
  servers: readonly McpServerSpec[],
  options: Omit<ConnectMcpOptions, "label"> & { readonly labels?: readonly string[]; readonly trustReadOnlyHint?: boolean } = {},
): Promise<McpServers> {
  const request = requestOptions(options, "connectMcpServers option");
  const { labels, trustReadOnlyHint, ...connectOptions } = options;
  const listing: CatalogFromMcpOptions = trustReadOnlyHint === undefined ? request : { ...request, trustReadOnlyHint };
  // A command line that cannot be split is found before any server starts.
  for (const server of servers)
    if (typeof server === "object" && server !== null && "commandLine" in server) splitCommand(server.commandLine);
  const settled = await Promise.allSettled(
    servers.map((server, i) => connectMcp(server, { ...connectOptions, ...(labels?.[i] === undefined ? {} : { label: labels[i] }) })),
  );
  const connections = settled.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
  const close = async (): Promise<void> => {
    await Promise.all(connections.map((connection) => connection.close()));
  };
  try {
    const failed = settled.find((outcome) => outcome.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    const listings = await Promise.all(connections.map((connection) => listServerTools(connection.client, connection.label, listing)));
    const { catalog, owners, names } = mergeListings(
      connections.map((connection) => connection.label),
      listings,
    );
    return {
      connections,
      catalog,
      owners,
      tools(toolOptions = {}) {
        const { timeout } = requestOptions(toolOptions, "tools option");
        return Object.assign(
          Object.create(null) as object,
          ...connections.map((connection, i) => toolFunctions(connection.client, names[i]!, timeout)),
        ) as ToolFunctions;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * A server's tools (every page of `tools/list`); a setup error's message starts with the server's label.
 *
 * @example
 * await listServerTools(connection.client, connection.label) // [{ name: "geocode", spec: { input: … } }, …]
 */
export async function listServerTools(client: McpClient, label: string, options: CatalogFromMcpOptions = {}): Promise<McpToolListing[]> {
  try {
    return await listMcpTools(client, options);
  } catch (error) {
    if (error instanceof McpSetupError)
      throw new McpSetupError(error.code, `MCP server ${quoted(label, 80)}: ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * Several servers' listings as one catalog: the tools by name, the label of the server that offers
 * each, and each server's names. A tool two servers offer is an `McpSetupError` code `tool-collision`
 * naming both (shared by `connectMcpServers` and the plan server, which lists again on a change).
 *
 * @example
 * mergeListings(["a.mjs", "b.mjs"], [await listMcpTools(a), await listMcpTools(b)]).owners.get("geocode") // "a.mjs"
 */
export function mergeListings(
  labels: readonly string[],
  listings: readonly (readonly McpToolListing[])[],
): { catalog: ToolCatalog; owners: Map<string, string>; names: string[][] } {
  const catalog = Object.create(null) as Record<string, ToolSpec>;
  const owners = new Map<string, string>();
  const names = listings.map(() => [] as string[]);
  listings.forEach((listing, i) => {
    const label = labels[i]!;
    for (const { name, spec } of listing) {
      const owner = owners.get(name);
      if (owner !== undefined) {
        throw new McpSetupError(
          "tool-collision",
          `tool ${quoted(name)} is offered by two MCP servers, ${quoted(owner, 80)} and ${quoted(label, 80)}; tool names must be unique across servers`,
        );
      }
      owners.set(name, label);
      names[i]!.push(name);
      Object.defineProperty(catalog, name, { value: spec, enumerable: true, writable: true, configurable: true });
    }
  });
  return { catalog, owners, names };
}

/**
 * The servers' catalog combined with tools of another source (a module's functions, by name) and a
 * catalog file. A name offered both by a server and by the other source is an `McpSetupError` code
 * `tool-collision` naming both; a tool of the other source with no entry gets an empty one (so the
 * linter knows it); the catalog file's entry for a tool replaces the server's (to add an output
 * schema a server does not declare, say).
 *
 * @example
 * combineCatalogs(servers, { names: ["summarise"], label: "--tools ./tools.mjs" }, fileCatalog)
 */
export function combineCatalogs(
  servers: Pick<McpServers, "catalog" | "owners">,
  local: { readonly names: readonly string[]; readonly label: string } | undefined,
  file: ToolCatalog | undefined,
): ToolCatalog {
  const out = Object.create(null) as Record<string, ToolSpec>;
  const put = (name: string, spec: ToolSpec): void =>
    void Object.defineProperty(out, name, { value: spec, enumerable: true, writable: true, configurable: true });
  for (const name of Object.keys(servers.catalog)) put(name, servers.catalog[name]!);
  for (const name of local?.names ?? []) {
    const owner = servers.owners.get(name);
    if (owner !== undefined)
      throw new McpSetupError(
        "tool-collision",
        `tool ${quoted(name)} is offered by MCP server ${quoted(owner, 80)} and by ${local!.label}; tool names must be unique`,
      );
    put(name, {});
  }
  if (file !== undefined) for (const name of Object.keys(file)) put(name, file[name]!);
  return out;
}
