/**
 * The language server, as an editor runs it: `node dist/cli/main.js lsp --stdio` in a child
 * process, driven by a real LSP client connection over its stdin and stdout. Nothing here waits for
 * time to pass: every step waits for the server's answer or notification. (`npm test` builds dist
 * first.)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { Readable } from "node:stream";
import fc from "fast-check";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import {
  CodeActionRequest,
  type CodeAction,
  CompletionRequest,
  DefinitionRequest,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  PrepareRenameRequest,
  PublishDiagnosticsNotification,
  ReferencesRequest,
  RenameRequest,
  SemanticTokensRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  createMessageConnection,
  type CompletionItem,
  type Hover,
  type InitializeResult,
  type Location,
  type MessageConnection,
  type Position,
  type PublishDiagnosticsParams,
  type Range,
  type SemanticTokens,
  type WorkspaceEdit,
} from "vscode-languageserver-protocol/node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { documentTokens } from "../../src/editor/index.js";
import { guardFraming, localPath, MAX_CONTENT_LENGTH, MAX_HEADER_BYTES, SEMANTIC_TOKENS_LEGEND } from "../../src/editor/lsp-server.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const main = join(root, "dist", "cli", "main.js");

const tools = {
  geocode: {
    description: "Find a place by name.",
    output: {
      type: "object",
      properties: { name: { type: "string" }, lat: { type: "number" }, lon: { type: "number" } },
      additionalProperties: false,
    },
  },
  weather: { description: "Weather for a place.", output: { type: "object", properties: { summary: { type: "string" } } } },
};

// Line 4 holds the references; columns below are 0-based, as LSP counts them.
const planText = [
  "{",
  '  "steps": [',
  '    { "id": 1, "tool": "geocode", "args": { "q": "Lisbon" } },',
  '    { "id": 2, "tool": "weather", "args": { "lat": "$1.lat", "lon": "$1.lno", "x": "$7" } }',
  "  ]",
  "}",
  "",
].join("\n");
const line3 = planText.split("\n")[3]!;

let child: ChildProcess;
let connection: MessageConnection;
let folder: string;
let planUri: string;
let initialize: InitializeResult;
const diagnostics: PublishDiagnosticsParams[] = [];
const waiting: { match: (params: PublishDiagnosticsParams) => boolean; resolve: (params: PublishDiagnosticsParams) => void }[] = [];
let stderr = "";

/** The next diagnostics published for `uri` (with `version`, when given), waited for as a notification. */
function nextDiagnostics(uri: string, version?: number): Promise<PublishDiagnosticsParams> {
  return new Promise((resolve) =>
    waiting.push({ match: (params) => params.uri === uri && (version === undefined || params.version === version), resolve }),
  );
}

function open(uri: string, text: string, version = 1): Promise<PublishDiagnosticsParams> {
  const published = nextDiagnostics(uri, version);
  void connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "json", version, text } });
  return published;
}

function at(text: string, needle: string, delta = 0): Position {
  const offset = text.indexOf(needle);
  if (offset < 0) throw new Error(`${needle} is not in the text`);
  return TextDocument.create("x", "json", 1, text).positionAt(offset + delta);
}

function rangeText(text: string, range: Range): string {
  const document = TextDocument.create("x", "json", 1, text);
  return text.slice(document.offsetAt(range.start), document.offsetAt(range.end));
}

beforeAll(async () => {
  if (!existsSync(main)) throw new Error("dist/cli/main.js is missing: run `npm run build` (npm test does it)");
  folder = mkdtempSync(join(tmpdir(), "plan-refs-lsp-"));
  writeFileSync(join(folder, "tools.json"), JSON.stringify(tools, null, 2));
  writeFileSync(join(folder, "trip.json"), planText);
  planUri = pathToFileURL(join(folder, "trip.json")).href;

  child = spawn(process.execPath, [main, "lsp", "--stdio"], { stdio: ["pipe", "pipe", "pipe"] });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
    diagnostics.push(params);
    const index = waiting.findIndex((waiter) => waiter.match(params));
    if (index >= 0) waiting.splice(index, 1)[0]!.resolve(params);
  });
  connection.listen();
  initialize = await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: pathToFileURL(folder).href,
    capabilities: { textDocument: { rename: { prepareSupport: true } } },
    workspaceFolders: null,
  });
  await connection.sendNotification(InitializedNotification.type, {});
});

afterAll(() => {
  connection?.dispose();
  if (child?.exitCode === null) child.kill();
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
});

describe("plan-refs lsp --stdio", () => {
  test("initialize announces every feature, the completion triggers and the semantic tokens legend", () => {
    const capabilities = initialize.capabilities;
    expect(capabilities.completionProvider?.triggerCharacters).toEqual(["$", ".", "{", "["]);
    expect(capabilities.hoverProvider).toBe(true);
    expect(capabilities.definitionProvider).toBe(true);
    expect(capabilities.referencesProvider).toBe(true);
    expect(capabilities.renameProvider).toEqual({ prepareProvider: true });
    expect(capabilities.codeActionProvider).toEqual({ codeActionKinds: ["quickfix"] });
    expect(capabilities.semanticTokensProvider).toMatchObject({
      full: true,
      legend: { tokenTypes: ["keyword", "number", "operator", "property", "string", "regexp"] },
    });
  });

  test("didOpen publishes the linter's diagnostics at exact positions, with tools.json next to the plan", async () => {
    const published = await open(planUri, planText);
    const found = published.diagnostics.map((item) => ({
      code: item.code,
      severity: item.severity,
      source: item.source,
      text: rangeText(planText, item.range),
      line: item.range.start.line,
    }));
    expect(found).toEqual([
      { code: "unknown-key", severity: 1, source: "plan-refs", text: ".lno", line: 3 },
      { code: "unknown-step", severity: 1, source: "plan-refs", text: "$7", line: 3 },
    ]);
    expect(published.diagnostics[0]!.range.start.character).toBe(line3.indexOf(".lno"));
    expect(published.diagnostics[0]!.message).toContain('did you mean "lon"');
  });

  test("an edit is linted again (debounced): the diagnostics of the new version", async () => {
    const published = nextDiagnostics(planUri, 2);
    const range = { start: at(planText, "lno", 0), end: at(planText, "lno", 3) };
    await connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri: planUri, version: 2 },
      contentChanges: [{ range, text: "lon" }],
    });
    expect((await published).diagnostics.map((item) => item.code)).toEqual(["unknown-step"]);
    // Back to the first text for the requests below.
    const restored = nextDiagnostics(planUri, 3);
    await connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri: planUri, version: 3 },
      contentChanges: [{ text: planText }],
    });
    expect((await restored).diagnostics).toHaveLength(2);
  });

  test("completion after $1. lists the keys of the tool's output schema, each with the range it replaces", async () => {
    const position = at(planText, "$1.lat", 3);
    const items = (await connection.sendRequest(CompletionRequest.type, { textDocument: { uri: planUri }, position })) as CompletionItem[];
    expect(items.map((item) => item.label)).toEqual(["name", "lat", "lon"]);
    const edit = items[1]!.textEdit as { range: Range; newText: string };
    expect(rangeText(planText, edit.range)).toBe("lat");
    expect(edit.newText).toBe("lat");
    expect(items[0]!.detail).toBe("string");
  });

  test("completion after $ lists the steps that may be referenced, with their tools", async () => {
    const position = at(planText, "$7", 1);
    const items = (await connection.sendRequest(CompletionRequest.type, { textDocument: { uri: planUri }, position })) as CompletionItem[];
    expect(items.map((item) => [item.label, item.detail])).toEqual([["1", "geocode"]]);
  });

  test("hover shows the step, its tool's description and the value's schema", async () => {
    const hover = (await connection.sendRequest(HoverRequest.type, {
      textDocument: { uri: planUri },
      position: at(planText, "$1.lat", 4),
    })) as Hover;
    const markdown = (hover.contents as { kind: string; value: string }).value;
    expect((hover.contents as { kind: string }).kind).toBe("markdown");
    expect(markdown).toContain("**Step 1** · `geocode`");
    expect(markdown).toContain("Find a place by name.");
    expect(markdown).toContain('"type": "number"');
    expect(rangeText(planText, hover.range!)).toBe("$1.lat");
  });

  test("go to definition jumps to the referenced step", async () => {
    const location = (await connection.sendRequest(DefinitionRequest.type, {
      textDocument: { uri: planUri },
      position: at(planText, "$1.lat", 1),
    })) as Location;
    expect(location.uri).toBe(planUri);
    expect(rangeText(planText, location.range)).toBe('{ "id": 1, "tool": "geocode", "args": { "q": "Lisbon" } }');
  });

  test("find references lists the step's id and every reference to it", async () => {
    const locations = (await connection.sendRequest(ReferencesRequest.type, {
      textDocument: { uri: planUri },
      position: at(planText, '"id": 1', 6),
      context: { includeDeclaration: true },
    })) as Location[];
    expect(
      locations.map((location) => [location.range.start.line, location.range.start.character, rangeText(planText, location.range)]),
    ).toEqual([
      [2, planText.split("\n")[2]!.indexOf("1"), "1"],
      [3, line3.indexOf("$1.lat") + 1, "1"],
      [3, line3.indexOf("$1.lno") + 1, "1"],
    ]);
  });

  test("rename: prepareRename on a reference's digits, then edits for the id and every reference", async () => {
    const position = at(planText, "$1.lno", 1);
    const prepared = (await connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: planUri }, position })) as {
      range: Range;
      placeholder: string;
    };
    expect(prepared.placeholder).toBe("1");
    expect(rangeText(planText, prepared.range)).toBe("1");
    const edit = (await connection.sendRequest(RenameRequest.type, {
      textDocument: { uri: planUri },
      position,
      newName: "10",
    })) as WorkspaceEdit;
    const renamed = TextDocument.applyEdits(TextDocument.create(planUri, "json", 1, planText), edit.changes![planUri]!);
    expect(renamed).toBe(planText.replace('"id": 1,', '"id": 10,').replace("$1.lat", "$10.lat").replace("$1.lno", "$10.lno"));
  });

  test("rename refuses what is not a step id, and prepareRename what is not a step", async () => {
    const position = at(planText, "$1.lno", 1);
    await expect(
      connection.sendRequest(RenameRequest.type, { textDocument: { uri: planUri }, position, newName: "ten" }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      connection.sendRequest(RenameRequest.type, { textDocument: { uri: planUri }, position, newName: "2" }),
    ).rejects.toMatchObject({ message: "step 2 already exists" });
    expect(
      await connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: planUri }, position: at(planText, "Lisbon", 2) }),
    ).toBeNull();
    expect(
      await connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: planUri }, position: at(planText, "$7", 1) }),
    ).toBeNull();
  });

  test("code actions: a quickfix for each diagnostic that knows its fix; applied, the plan lints clean", async () => {
    const uri = pathToFileURL(join(folder, "fixes.plan.json")).href;
    const text =
      '{ "steps": [ { "id": 1, "tool": "geocode" }, { "id": 2, "tool": "weather", "args": { "a": "$1.lno", "b": "$01.lat" } }, { "id": 3, "tool": "wether" } ] }';
    const published = await open(uri, text);
    expect(published.diagnostics.map((item) => item.code)).toEqual(["unknown-key", "non-canonical-step", "unknown-tool"]);
    const whole = { start: { line: 0, character: 0 }, end: at(text, "] }", 3) };
    const actions = (await connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri },
      range: whole,
      context: { diagnostics: published.diagnostics },
    })) as CodeAction[];
    expect(actions.map((action) => [action.kind, action.title, action.diagnostics?.[0]?.code])).toEqual([
      ["quickfix", "Change to .lon", "unknown-key"],
      ["quickfix", "Change to 1", "non-canonical-step"],
      ["quickfix", 'Change to "weather"', "unknown-tool"],
    ]);
    const edits = actions.flatMap((action) => action.edit!.changes![uri]!);
    const fixed = TextDocument.applyEdits(TextDocument.create(uri, "json", 1, text), edits);
    expect(fixed).toBe(
      '{ "steps": [ { "id": 1, "tool": "geocode" }, { "id": 2, "tool": "weather", "args": { "a": "$1.lon", "b": "$1.lat" } }, { "id": 3, "tool": "weather" } ] }',
    );
    // A range on one diagnostic gets that diagnostic's fix only.
    const one = (await connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri },
      range: { start: at(text, "$01", 1), end: at(text, "$01", 1) },
      context: { diagnostics: [] },
    })) as CodeAction[];
    expect(one.map((action) => action.title)).toEqual(["Change to 1"]);
  });

  test("semantic tokens cover the references inside strings, in the legend's types", async () => {
    const result = (await connection.sendRequest(SemanticTokensRequest.type, { textDocument: { uri: planUri } })) as SemanticTokens;
    const decoded: [number, number, number, string][] = [];
    let line = 0;
    let character = 0;
    for (let i = 0; i < result.data.length; i += 5) {
      const [deltaLine, deltaStart, length, type] = result.data.slice(i, i + 4) as [number, number, number, number];
      line += deltaLine;
      character = deltaLine === 0 ? character + deltaStart : deltaStart;
      decoded.push([line, character, length, SEMANTIC_TOKENS_LEGEND.tokenTypes[type]!]);
    }
    const text = (start: number, length: number): string => line3.slice(start, start + length);
    expect(decoded.map(([l, c, length, type]) => [l, text(c, length), type])).toEqual([
      [3, "$", "keyword"],
      [3, "1", "number"],
      [3, ".", "operator"],
      [3, "lat", "property"],
      [3, "$", "keyword"],
      [3, "1", "number"],
      [3, ".", "operator"],
      [3, "lno", "property"],
      [3, "$", "keyword"],
      [3, "7", "number"],
    ]);
    expect(decoded).toHaveLength(documentTokens(planText).length);
  });

  test("a JSON document without steps is not a plan: no features", async () => {
    const uri = pathToFileURL(join(folder, "package.json")).href;
    const text = '{ "name": "$1.x" }';
    await connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: "json", version: 1, text },
    });
    expect(await connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: at(text, "$1.", 3) })).toBeNull();
    expect(await connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: at(text, "$1", 1) })).toBeNull();
    expect(((await connection.sendRequest(SemanticTokensRequest.type, { textDocument: { uri } })) as SemanticTokens).data).toEqual([]);
  });

  test("a *.plan.json file is a plan even while it is not JSON yet; broken input never stops the server", async () => {
    const uri = pathToFileURL(join(folder, "draft.plan.json")).href;
    const broken = '{"steps": [ {"id": 1, "tool": "geocode"}, {"id": 2, "tool": "weather", "args": {"q": "$1.';
    const published = await open(uri, broken);
    expect(published.diagnostics.map((item) => item.code)).toEqual(["json-syntax"]);
    const items = (await connection.sendRequest(CompletionRequest.type, {
      textDocument: { uri },
      position: at(broken, "$1.", 3),
    })) as CompletionItem[];
    expect(items.map((item) => item.label)).toEqual(["name", "lat", "lon"]);

    const deep = `{"steps": [{"id": 1, "tool": "t", "args": {"q": ${"[".repeat(50_000)}`;
    const republished = nextDiagnostics(uri, 2);
    await connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: deep }],
    });
    // Nesting this deep is past what the JSON parser can take: still an answer, and the server lives on.
    expect((await republished).diagnostics.length).toBeGreaterThan(0);
    expect(await connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 40 } })).toBeNull();

    const cleared = nextDiagnostics(uri);
    await connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
    expect((await cleared).diagnostics).toEqual([]);
  });

  test("shutdown and exit end the process with code 0", async () => {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    await connection.sendRequest(ShutdownRequest.type);
    await connection.sendNotification(ExitNotification.type);
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
  });
});

/**
 * A malformed Content-Length (not a number, negative, 10^9) or headers ending in a
 * bare LF left the server silent until stdin closed, and a `file://host/…` document got "could not
 * lint" instead of its diagnostics. Now each malformed header block is one line on stderr and is
 * skipped, and the server answers the next request; a URI with a host is linted without a catalog.
 * A second server, so the first one's "nothing on stderr" stays true.
 */
describe("malformed frames and remote URIs, over a real child process", () => {
  let server: ChildProcess;
  let client: MessageConnection;
  let errors = "";
  const lineWaiters: { count: number; resolve: () => void }[] = [];
  const published: { match: (params: PublishDiagnosticsParams) => boolean; resolve: (params: PublishDiagnosticsParams) => void }[] = [];
  const lines = (): string[] => errors.split("\n").slice(0, -1);
  /** Resolves once stderr holds at least `count` complete lines. */
  const stderrLines = (count: number): Promise<string[]> =>
    new Promise((resolve) => {
      if (lines().length >= count) resolve(lines());
      else lineWaiters.push({ count, resolve: () => resolve(lines()) });
    });
  const raw = (bytes: string): Promise<void> =>
    new Promise((resolve, reject) => server.stdin!.write(bytes, (error) => (error ? reject(error) : resolve())));
  const lostRequest = { jsonrpc: "2.0", id: 9_999, method: "shutdown" };

  beforeAll(async () => {
    server = spawn(process.execPath, [main, "lsp", "--stdio"], { stdio: ["pipe", "pipe", "pipe"] });
    server.stderr!.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
      for (let i = lineWaiters.length - 1; i >= 0; i--) if (lines().length >= lineWaiters[i]!.count) lineWaiters.splice(i, 1)[0]!.resolve();
    });
    client = createMessageConnection(new StreamMessageReader(server.stdout!), new StreamMessageWriter(server.stdin!));
    client.onNotification(PublishDiagnosticsNotification.type, (params) => {
      const index = published.findIndex((waiter) => waiter.match(params));
      if (index >= 0) published.splice(index, 1)[0]!.resolve(params);
    });
    client.listen();
    await client.sendRequest(InitializeRequest.type, { processId: process.pid, rootUri: null, capabilities: {}, workspaceFolders: null });
    await client.sendNotification(InitializedNotification.type, {});
  });

  afterAll(() => {
    client?.dispose();
    if (server?.exitCode === null) server.kill();
  });

  const malformed: [string, string, string][] = [
    ["a Content-Length that is not a number", "Content-Length: abc\r\n\r\n{}", 'Content-Length "abc" is not a non-negative whole number'],
    [
      "a negative Content-Length",
      `Content-Length: -5\r\n\r\n${JSON.stringify(lostRequest)}`,
      'Content-Length "-5" is not a non-negative whole number',
    ],
    [
      "a Content-Length of 10^9",
      `Content-Length: 1000000000\r\n\r\n${JSON.stringify(lostRequest)}`,
      `Content-Length "1000000000" is over the limit of ${MAX_CONTENT_LENGTH} bytes`,
    ],
    [
      "headers that end in a bare LF",
      `Content-Length: ${JSON.stringify(lostRequest).length}\n\n${JSON.stringify(lostRequest)}`,
      "header lines must end with CRLF, not a bare LF",
    ],
    ["a header line without a colon", "Content-Length 2\r\n\r\n{}", 'header line "Content-Length 2" is not "name: value"'],
    ["a header block without Content-Length", "Content-Type: application/json\r\n\r\n{}", "no Content-Length header"],
    [
      "a header block that never ends",
      `X-Junk: ${"j".repeat(MAX_HEADER_BYTES)}`,
      `the header block is longer than ${MAX_HEADER_BYTES} bytes`,
    ],
  ];

  test.each(malformed)("%s: one line on stderr, and the next request is answered", async (_name, bytes, reason) => {
    const before = lines().length;
    await raw(bytes);
    // Served on: a request after the bad frame gets its answer (the lost "shutdown" was never read).
    expect(
      await client.sendRequest(HoverRequest.type, {
        textDocument: { uri: "file:///nowhere.plan.json" },
        position: { line: 0, character: 0 },
      }),
    ).toBeNull();
    const after = await stderrLines(before + 1);
    expect(after[before]).toBe(`plan-refs lsp: malformed message header (${reason}); skipped up to the next Content-Length header`);
  });

  test("a file://host/… plan gets its diagnostics, without a catalog; file://localhost/… is local and reads tools.json beside it", async () => {
    const remote = "file://fileserver/share/trip.plan.json";
    const remoteDiagnostics = new Promise<PublishDiagnosticsParams>((resolve) =>
      published.push({ match: (params) => params.uri === remote, resolve }),
    );
    await client.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: remote, languageId: "json", version: 1, text: planText },
    });
    const fromRemote = await remoteDiagnostics;
    expect(fromRemote.diagnostics.map((item) => [item.code, rangeText(planText, item.range)])).toEqual([["unknown-step", "$7"]]);
    expect(await client.sendRequest(CompletionRequest.type, { textDocument: { uri: remote }, position: at(planText, "$7", 1) })).toEqual([
      expect.objectContaining({ label: "1" }),
    ]);

    const local = `file://localhost${pathToFileURL(join(folder, "local.plan.json")).pathname}`;
    const localDiagnostics = new Promise<PublishDiagnosticsParams>((resolve) =>
      published.push({ match: (params) => params.uri === local, resolve }),
    );
    await client.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: local, languageId: "json", version: 1, text: planText },
    });
    expect((await localDiagnostics).diagnostics.map((item) => item.code)).toEqual(["unknown-key", "unknown-step"]);
  });

  test("shutdown and exit still end the process with code 0; stderr holds exactly one line per malformed frame", async () => {
    const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
    await client.sendRequest(ShutdownRequest.type);
    await client.sendNotification(ExitNotification.type);
    expect(await exited).toBe(0);
    expect(lines()).toHaveLength(malformed.length);
  });
});

describe("guardFraming", () => {
  /** Everything `guardFraming` passes on for `chunks`, and what it reported. */
  async function through(chunks: readonly (string | Buffer)[]): Promise<{ out: string; reports: string[] }> {
    const reports: string[] = [];
    const guarded = guardFraming(Readable.from(chunks.map((chunk) => Buffer.from(chunk))), (line) => reports.push(line));
    const parts: Buffer[] = [];
    for await (const part of guarded) parts.push(part as Buffer);
    return { out: Buffer.concat(parts).toString(), reports };
  }
  const message = (body: string): string => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const body = fc.json({ maxDepth: 2 }).filter((text) => !/content-length:/i.test(text));
  const bad = fc.constantFrom(
    "Content-Length: abc\r\n\r\n{}",
    "Content-Length: -1\r\n\r\n{}",
    "Content-Length: 99999999999\r\n\r\n{}",
    "Content-Length: 3\n\n{}",
    "Content-Length: 3\r\nContent-Length: 3\r\n\r\n{}",
    "Content-Type: x\r\n\r\n{}",
    "junk\r\n\r\n",
  );
  /** Cut `text` into pieces at the given points (UTF-8 bytes, so a character may be split). */
  const cut = (text: string, points: number[]): Buffer[] => {
    const bytes = Buffer.from(text);
    const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
    const pieces: Buffer[] = [];
    let last = 0;
    for (const point of [...at, bytes.length]) {
      pieces.push(bytes.subarray(last, point));
      last = point;
    }
    return pieces;
  };

  test("valid messages pass through unchanged, byte for byte, however they are cut; nothing is reported", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(body, { maxLength: 5 }), fc.array(fc.nat(), { maxLength: 8 }), async (bodies, points) => {
        const text = bodies.map(message).join("");
        expect(await through(cut(text, points))).toEqual({ out: text, reports: [] });
      }),
      { numRuns: 200 },
    );
  });

  test("malformed frames between valid messages: exactly the valid messages come out, one report per malformed frame", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            body.map((b) => ({ ok: true, text: message(b) })),
            bad.map((text) => ({ ok: false, text })),
          ),
          { maxLength: 6 },
        ),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (frames, points) => {
          // After a malformed frame everything is skipped up to the next "Content-Length:", so a malformed
          // frame right after another one is read (and reported) only when it starts with that header.
          const { out, reports } = await through(cut(frames.map((frame) => frame.text).join(""), points));
          expect(out).toBe(
            frames
              .filter((frame) => frame.ok)
              .map((frame) => frame.text)
              .join(""),
          );
          const read = frames.filter((frame, i) => !frame.ok && (i === 0 || frames[i - 1]!.ok || frame.text.startsWith("Content-Length:")));
          expect(reports).toHaveLength(read.length);
          for (const report of reports)
            expect(report).toMatch(/^plan-refs lsp: malformed message header \([^\n\r]*\); skipped up to the next Content-Length header$/);
        },
      ),
      { numRuns: 200 },
    );
  });

  test("junk glued to the front of a message, or a header block past the limit, costs only the junk", async () => {
    const valid = message('{"jsonrpc":"2.0","id":1,"method":"shutdown"}');
    for (const junk of ["garbage", "junk\r\n", `X-Junk: ${"j".repeat(MAX_HEADER_BYTES)}`, "\n", "\r\n"]) {
      const { out, reports } = await through([junk + valid]);
      expect(out).toBe(valid);
      expect(reports).toHaveLength(1);
    }
    // Other header lines are allowed: they pass through with the message.
    expect(await through([`X: y\r\n${valid}`])).toEqual({ out: `X: y\r\n${valid}`, reports: [] });
    // A bad message with a Content-Length line is skipped whole: a second Content-Length in it is not read as a message.
    const twice = await through([`Content-Length: 3\r\nContent-Length: 3\r\n\r\n{}${valid}`]);
    expect(twice).toEqual({ out: valid, reports: [expect.stringContaining("more than one Content-Length header")] });
  });

  test("a hostile header value is escaped and cut short in the report; reports stop after a bound", async () => {
    const { reports } = await through([`Content-Length: \u001b[31m${"9".repeat(100)}\r\n\r\n`]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).not.toMatch(/[\u0000-\u001f]/);
    expect(reports[0]!.length).toBeLessThan(200);
    const flood = await through([Array.from({ length: 50 }, () => "Content-Length: x\r\n\r\n").join("")]);
    expect(flood.reports).toHaveLength(21);
    expect(flood.reports[20]).toContain("further ones are skipped without a report");
  });

  test("localPath: file URIs on this machine only", () => {
    expect(localPath("file:///tmp/a.plan.json")).toBe("/tmp/a.plan.json");
    expect(localPath("file://localhost/tmp/a.plan.json")).toBe("/tmp/a.plan.json");
    expect(localPath("file://fileserver/share/a.plan.json")).toBeUndefined();
    expect(localPath("untitled:Untitled-1")).toBeUndefined();
    expect(localPath("file://%zz/")).toBeUndefined();
  });
});
