// A small MCP server for the plan-refs example: a bookshop's catalogue, over stdio.
// Built with @modelcontextprotocol/sdk's protocol-level `Server`, so that its tools declare plain
// JSON Schemas (McpServer's registerTool wants zod schemas).
//
//   plan-refs lint examples/mcp/plan.json --mcp "node examples/mcp/server.mjs"
//   plan-refs run examples/mcp/plan.json --mcp "node examples/mcp/server.mjs"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const BOOKS = [
  { isbn: "9780141439518", title: "Pride and Prejudice", author: "Jane Austen", year: 1813, price: 7.99 },
  { isbn: "9780141439556", title: "Wuthering Heights", author: "Emily Brontë", year: 1847, price: 6.99 },
  { isbn: "9780141441146", title: "Jane Eyre", author: "Charlotte Brontë", year: 1847, price: 7.49 },
];

const book = {
  type: "object",
  properties: {
    isbn: { type: "string" },
    title: { type: "string" },
    author: { type: "string" },
    year: { type: "integer" },
    price: { type: "number" },
  },
  required: ["isbn", "title", "author", "year", "price"],
  additionalProperties: false,
};

const TOOLS = [
  {
    name: "search_books",
    description: "Books whose author or title contains the query.",
    inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
    outputSchema: {
      type: "object",
      properties: { books: { type: "array", items: book } },
      required: ["books"],
      additionalProperties: false,
    },
    call: ({ query }) => {
      const q = String(query).toLowerCase();
      return { books: BOOKS.filter((b) => b.author.toLowerCase().includes(q) || b.title.toLowerCase().includes(q)) };
    },
  },
  {
    name: "quote_price",
    description: "The price of some copies of a book, in euros.",
    inputSchema: { type: "object", properties: { isbn: { type: "string" }, copies: { type: "integer" } }, required: ["isbn", "copies"] },
    outputSchema: {
      type: "object",
      properties: { isbn: { type: "string" }, total: { type: "number" } },
      required: ["isbn", "total"],
      additionalProperties: false,
    },
    call: ({ isbn, copies }) => {
      const found = BOOKS.find((b) => b.isbn === isbn);
      if (found === undefined) throw new Error(`no book with ISBN ${isbn}`);
      return { isbn, total: Math.round(found.price * copies * 100) / 100 };
    },
  },
  {
    // No outputSchema: answers with text (plan-refs uses it as the step's result).
    name: "gift_note",
    description: "A short note to go with a gift.",
    inputSchema: {
      type: "object",
      properties: { title: { type: "string" }, author: { type: "string" }, total: { type: "number" } },
      required: ["title", "author"],
    },
    text: ({ title, author, total }) => `Enjoy "${title}" by ${author}${total === undefined ? "" : ` (${total} € well spent)`}.`,
  },
];

const server = new Server({ name: "bookshop", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: TOOLS.map(({ name, description, inputSchema, outputSchema }) => ({
    name,
    description,
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
  })),
}));
server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
  const tool = TOOLS.find((t) => t.name === params.name);
  const args = params.arguments ?? {};
  try {
    if (tool === undefined) throw new Error(`unknown tool ${params.name}`);
    if (tool.text) return { content: [{ type: "text", text: tool.text(args) }] };
    const value = tool.call(args);
    return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
  } catch (error) {
    return { isError: true, content: [{ type: "text", text: error.message }] };
  }
});
await server.connect(new StdioServerTransport());
