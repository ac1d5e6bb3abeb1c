/**
 * catalogFromMcp and mcpTools read what a client gives them as untrusted data: own data properties
 * only (getters never run), every page once, answers of the wrong shape as one-line errors. The
 * clients here are written out by hand because the SDK's own Client validates answers before
 * plan-refs sees them; any object with listTools and callTool is an McpClient.
 */
import { getEventListeners } from "node:events";
import { describe, expect, test } from "vitest";
import { catalogFromMcp, MAX_TOOL_PAGES, McpCallError, McpSetupError, mcpTools, type McpClient } from "../../src/mcp/index.js";
import { runPlan } from "../../src/run/index.js";

/** A client whose tools/list answers are `pages` (by cursor: undefined, "1", "2"…) and whose calls answer `call`. */
function client(
  pages: readonly unknown[],
  call: (name: string, args: unknown) => unknown = () => ({ content: [] }),
): McpClient & { listed: (string | undefined)[] } {
  const listed: (string | undefined)[] = [];
  return {
    listed,
    listTools: (params) => {
      listed.push(params?.cursor);
      return Promise.resolve(pages[params?.cursor === undefined ? 0 : Number(params.cursor)]);
    },
    callTool: (params) => Promise.resolve(call(params.name, params.arguments)),
  };
}

async function setupError(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(McpSetupError);
    return { code: (error as McpSetupError).code, message: (error as McpSetupError).message };
  }
  throw new Error("expected an McpSetupError");
}

describe("catalogFromMcp", () => {
  test("follows nextCursor through every page, once each", async () => {
    const c = client([
      { tools: [{ name: "a", inputSchema: { type: "object" } }], nextCursor: "1" },
      { tools: [], nextCursor: "2" },
      { tools: [{ name: "b", inputSchema: true, outputSchema: { type: "string" }, description: "B" }] },
    ]);
    expect(await catalogFromMcp(c)).toEqual({
      a: { input: { type: "object" } },
      b: { input: true, output: { type: "string" }, description: "B" },
    });
    expect(c.listed).toEqual([undefined, "1", "2"]);
  });

  test("getters and inherited members are not read", async () => {
    let ran = false;
    const tool = { name: "a", inputSchema: { type: "object" } };
    Object.defineProperty(tool, "outputSchema", {
      enumerable: true,
      get() {
        ran = true;
        return { type: "string" };
      },
    });
    const page = Object.create({ nextCursor: "1" }) as Record<string, unknown>;
    Object.setPrototypeOf(page, Object.prototype);
    page["tools"] = [tool];
    expect(await catalogFromMcp(client([page, { tools: [{ name: "never" }] }]))).toEqual({ a: { input: { type: "object" } } });
    expect(ran).toBe(false);
  });

  test.each([
    ["an answer that is not an object", [null], "the server's tools/list answer is not an object"],
    ["no tools array", [{ tools: "a" }], `the server's tools/list answer has no "tools" array`],
    ["a tool with no name", [{ tools: [{ inputSchema: {} }] }], "tool 0 of the server's tools/list has no name"],
    [
      "a schema that is not a schema",
      [{ tools: [{ name: "a", inputSchema: "object" }] }],
      `tool "a"'s inputSchema is not a JSON Schema (an object or a boolean)`,
    ],
    [
      "a tool listed twice across pages",
      [{ tools: [{ name: "a" }], nextCursor: "1" }, { tools: [{ name: "a" }] }],
      `the server lists tool "a" twice`,
    ],
    [
      "a cursor given twice",
      [
        { tools: [], nextCursor: "1" },
        { tools: [], nextCursor: "1" },
      ],
      `the server's tools/list gives cursor "1" twice (a listing that never ends)`,
    ],
    ["a cursor that is not a string", [{ tools: [], nextCursor: 1 }], `the server's tools/list "nextCursor" is not a string`],
    [
      "a name with a newline is escaped",
      [{ tools: [{ name: "a\nb", inputSchema: 1 }] }],
      `tool "a\\nb"'s inputSchema is not a JSON Schema (an object or a boolean)`,
    ],
  ])("%s: invalid-tools-list", async (_, pages, message) => {
    expect(await setupError(catalogFromMcp(client(pages)))).toEqual({ code: "invalid-tools-list", message });
  });

  test(`a listing that never ends stops after ${MAX_TOOL_PAGES} pages`, async () => {
    let n = 0;
    const endless: McpClient = {
      listTools: () => Promise.resolve({ tools: [], nextCursor: String(n++) }),
      callTool: () => Promise.resolve({}),
    };
    expect(await setupError(catalogFromMcp(endless))).toEqual({
      code: "invalid-tools-list",
      message: `the server's tools/list went on for more than ${MAX_TOOL_PAGES} pages`,
    });
  });

  test("each page's request gets a signal of its own: the caller's signal gathers no listeners however many pages there are", async () => {
    const caller = new AbortController();
    let n = 0;
    // As the SDK's Client does: an abort listener on the request's signal, never removed.
    const paged: McpClient = {
      listTools: (_params, options) => {
        options?.signal?.addEventListener("abort", () => undefined);
        return Promise.resolve(n < 20 ? { tools: [{ name: `t${n++}` }], nextCursor: String(n) } : { tools: [] });
      },
      callTool: () => Promise.resolve({}),
    };
    expect(Object.keys(await catalogFromMcp(paged, { signal: caller.signal }))).toHaveLength(20);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });

  test("a Proxy whose traps throw is an invalid-tools-list error, not a crash", async () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf: () => {
          throw new Error("trap\nline");
        },
      },
    );
    expect(await setupError(catalogFromMcp(client([hostile])))).toEqual({
      code: "invalid-tools-list",
      message: "the server's tools/list answer could not be read: trap\\nline",
    });
  });

  test("a listing request that fails: connect-failed, escaped", async () => {
    const failing: McpClient = {
      listTools: () => Promise.reject(new Error("MCP error -32601: Method not found\u001b[2J")),
      callTool: () => Promise.resolve({}),
    };
    expect(await setupError(catalogFromMcp(failing))).toEqual({
      code: "connect-failed",
      message: "tools/list failed: MCP error -32601: Method not found\\u001b[2J",
    });
  });

  test.each([
    [{ timeoutMs: 0 }],
    [{ timeoutMs: -1 }],
    [{ timeoutMs: Number.NaN }],
    [{ timeoutMs: 2 ** 31 }],
    [{ timeoutMs: "5" }],
    [{ signal: {} }],
  ])("options %o: invalid-options", async (options) => {
    expect((await setupError(catalogFromMcp(client([{ tools: [] }]), options as never))).code).toBe("invalid-options");
  });
});

describe("mcpTools: the step's result", () => {
  const run = async (answer: unknown): Promise<unknown> => {
    const tools = await mcpTools(client([{ tools: [{ name: "t" }] }], () => answer));
    const report = await runPlan({ steps: [{ id: 1, tool: "t", args: {} }] }, tools);
    if (report.errors.has(1)) throw report.errors.get(1);
    return report.results.get(1);
  };

  test.each([
    ["structuredContent wins over text", { structuredContent: { a: 1 }, content: [{ type: "text", text: '{"b":2}' }] }, { a: 1 }],
    ["structuredContent null is a value", { structuredContent: null, content: [{ type: "text", text: "x" }] }, null],
    ["text that parses as JSON", { content: [{ type: "text", text: '{"b":[1,2]}' }] }, { b: [1, 2] }],
    ["text that is a JSON string", { content: [{ type: "text", text: '"quoted"' }] }, "quoted"],
    ["text that is not JSON", { content: [{ type: "text", text: "plain words" }] }, "plain words"],
    [
      "several text items, joined by newlines",
      {
        content: [
          { type: "text", text: "one" },
          { type: "image", data: "", mimeType: "image/png" },
          { type: "text", text: "two" },
        ],
      },
      "one\ntwo",
    ],
    [
      "no text: the content as given",
      { content: [{ type: "image", data: "AA==", mimeType: "image/png" }] },
      [{ type: "image", data: "AA==", mimeType: "image/png" }],
    ],
    [
      "a __proto__ key in JSON text stays an own key",
      { content: [{ type: "text", text: '{"__proto__":{"x":1}}' }] },
      JSON.parse('{"__proto__":{"x":1}}'),
    ],
  ])("%s", async (_, answer, expected) => {
    expect(await run(answer)).toEqual(expected);
  });

  test("isError with no text: a clear message", async () => {
    await expect(run({ isError: true, content: [] })).rejects.toMatchObject({
      code: "tool-error",
      message: "step 1 (t): the tool failed: the MCP server reported an error: (no message)",
    });
  });

  test("a long error text is cut, and every control character escaped", async () => {
    const error = (await run({ isError: true, content: [{ type: "text", text: `\r\n${"x".repeat(600)}` }] }).catch(
      (e: unknown) => e,
    )) as Error;
    expect(error.message).toBe(`step 1 (t): the tool failed: the MCP server reported an error: \\r\\n${"x".repeat(298)}…`);
    expect(((error as { cause?: unknown }).cause as McpCallError).code).toBe("server-error");
  });

  test("an answer that is not an object fails the step", async () => {
    await expect(run("text")).rejects.toMatchObject({
      code: "tool-error",
      message: "step 1 (t): the tool failed: the MCP server's tools/call answer is not an object",
    });
  });

  test("only the listed tools are offered; the arguments and signal reach callTool", async () => {
    const seen: unknown[] = [];
    const c: McpClient = {
      listTools: () => Promise.resolve({ tools: [{ name: "echo" }] }),
      callTool: (params, _schema, options) => {
        seen.push([params, options?.signal instanceof AbortSignal, options?.timeout]);
        return Promise.resolve({ structuredContent: params.arguments });
      },
    };
    const tools = await mcpTools(c, { timeoutMs: 1234 });
    expect(Object.keys(tools)).toEqual(["echo"]);
    const report = await runPlan(
      {
        steps: [
          { id: 1, tool: "echo", args: { q: "x" } },
          { id: 2, tool: "echo", args: { q: "$1.q" } },
        ],
      },
      tools,
    );
    expect(report.results.get(2)).toEqual({ q: "x" });
    expect(seen).toEqual([
      [{ name: "echo", arguments: { q: "x" } }, true, 1234],
      [{ name: "echo", arguments: { q: "x" } }, true, 1234],
    ]);
  });

  test("timeoutMs Infinity: the longest timer, never a timer that fires at once", async () => {
    let timeout: number | undefined;
    const c: McpClient = {
      listTools: () => Promise.resolve({ tools: [{ name: "t" }] }),
      callTool: (_params, _schema, options) => {
        timeout = options?.timeout;
        return Promise.resolve({ structuredContent: 1 });
      },
    };
    await runPlan({ steps: [{ id: 1, tool: "t", args: {} }] }, await mcpTools(c, { timeoutMs: Infinity }));
    expect(timeout).toBe(2 ** 31 - 1);
  });
});
