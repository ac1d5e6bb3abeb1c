/**
 * What `plan-refs/mcp` needs of an MCP client: the two requests of the SDK's `Client` that it makes.
 * Described by shape, so these declarations name no type of `@modelcontextprotocol/sdk` (a project
 * compiles against `plan-refs/mcp` whether or not the SDK is installed), and a `Client` of the SDK fits.
 */

/** Options of one request, as the SDK's `Client` takes them. */
export interface McpRequestOptions {
  /** Cancels the request (the SDK sends `notifications/cancelled`). */
  readonly signal?: AbortSignal;
  /** Milliseconds to wait for the answer before the request fails. */
  readonly timeout?: number;
}

/**
 * An MCP client: `Client` from `@modelcontextprotocol/sdk/client/index.js`, connected. Answers are
 * read as untrusted data (own data properties only; getters never run).
 *
 * @example
 * const client: McpClient = new Client({ name: "my-agent", version: "1.0.0" }) // then await client.connect(transport)
 */
export interface McpClient {
  listTools(params?: { cursor?: string }, options?: McpRequestOptions): Promise<unknown>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    resultSchema?: undefined,
    options?: McpRequestOptions,
  ): Promise<unknown>;
}
