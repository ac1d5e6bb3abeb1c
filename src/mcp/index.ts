/**
 * `plan-refs/mcp`: plans against Model Context Protocol servers. `catalogFromMcp` turns a server's
 * `tools/list` into a tool catalog (the linter then checks plans against the server's real schemas);
 * `mcpTools` turns its tools into tool functions for `runPlan`. Both take a connected `Client` of
 * `@modelcontextprotocol/sdk` (an optional peer dependency); `connectMcp` and `connectMcpServers`
 * make one (the SDK is imported only then). `createPlanServer` is the other side: plan-refs as an MCP
 * server whose tool `run_plan` runs a whole plan over upstream servers' tools in one call.
 */
export { catalogFromMcp, MAX_TOOL_PAGES, type CatalogFromMcpOptions } from "./catalog.js";
export { mcpTools, type McpToolsOptions } from "./tools.js";
export { connectMcp, type ConnectMcpOptions, type McpConnection, type McpServerSpec } from "./connect.js";
export { MAX_MCP_MESSAGE_BYTES } from "./stdio-transport.js";
export { combineCatalogs, connectMcpServers, type McpServers } from "./servers.js";
export { splitCommand } from "./split-command.js";
export { McpCallError, McpSetupError, type McpCallErrorCode, type McpSetupErrorCode } from "./errors.js";
export type { McpClient, McpRequestOptions } from "./client.js";
export {
  createPlanServer,
  DEFAULT_MAX_PLANS,
  DEFAULT_MAX_STEPS,
  LINT_PLAN_OUTPUT_SCHEMA,
  LINT_PLAN_TOOL,
  MAX_WAITING_PLANS,
  RUN_PLAN_OUTPUT_SCHEMA,
  RUN_PLAN_TOOL,
  type PlanServer,
  type PlanServerConfig,
  type PlanServerOptions,
  type PlanServerUpstream,
} from "./plan-server.js";
