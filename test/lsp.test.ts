/**
 * The language server (issue 6), as an editor runs it: `node dist/cli/main.js lsp --stdio` in a child
 * process, driven by a real LSP client connection over its stdin and stdout. Nothing here waits for
 * time to pass: every step waits for the server's answer or notification. (`npm test` builds dist
 * first.)
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import {
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
import { documentTokens } from "../src/editor/index.js";
import { SEMANTIC_TOKENS_LEGEND } from "../src/editor/lsp-server.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const main = join(root, "dist", "cli", "main.js");

const tools = {
  geocode: {
    description: "Find a place by name.",
    output: { type: "object", properties: { name: { type: "string" }, lat: { type: "number" }, lon: { type: "number" } }, additionalProperties: false },
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
  return new Promise((resolve) => waiting.push({ match: (params) => params.uri === uri && (version === undefined || params.version === version), resolve }));
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
    expect(capabilities.semanticTokensProvider).toMatchObject({ full: true, legend: { tokenTypes: ["keyword", "number", "operator", "property", "string", "regexp"] } });
  });

  test("didOpen publishes the linter's diagnostics at exact positions, with tools.json next to the plan", async () => {
    const published = await open(planUri, planText);
    const found = published.diagnostics.map((item) => ({ code: item.code, severity: item.severity, source: item.source, text: rangeText(planText, item.range), line: item.range.start.line }));
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
    await connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri: planUri, version: 2 }, contentChanges: [{ range, text: "lon" }] });
    expect((await published).diagnostics.map((item) => item.code)).toEqual(["unknown-step"]);
    // Back to the first text for the requests below.
    const restored = nextDiagnostics(planUri, 3);
    await connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri: planUri, version: 3 }, contentChanges: [{ text: planText }] });
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
    const hover = (await connection.sendRequest(HoverRequest.type, { textDocument: { uri: planUri }, position: at(planText, "$1.lat", 4) })) as Hover;
    const markdown = (hover.contents as { kind: string; value: string }).value;
    expect((hover.contents as { kind: string }).kind).toBe("markdown");
    expect(markdown).toContain("**Step 1** · `geocode`");
    expect(markdown).toContain("Find a place by name.");
    expect(markdown).toContain('"type": "number"');
    expect(rangeText(planText, hover.range!)).toBe("$1.lat");
  });

  test("go to definition jumps to the referenced step", async () => {
    const location = (await connection.sendRequest(DefinitionRequest.type, { textDocument: { uri: planUri }, position: at(planText, "$1.lat", 1) })) as Location;
    expect(location.uri).toBe(planUri);
    expect(rangeText(planText, location.range)).toBe('{ "id": 1, "tool": "geocode", "args": { "q": "Lisbon" } }');
  });

  test("find references lists the step's id and every reference to it", async () => {
    const locations = (await connection.sendRequest(ReferencesRequest.type, { textDocument: { uri: planUri }, position: at(planText, '"id": 1', 6), context: { includeDeclaration: true } })) as Location[];
    expect(locations.map((location) => [location.range.start.line, location.range.start.character, rangeText(planText, location.range)])).toEqual([
      [2, planText.split("\n")[2]!.indexOf("1"), "1"],
      [3, line3.indexOf("$1.lat") + 1, "1"],
      [3, line3.indexOf("$1.lno") + 1, "1"],
    ]);
  });

  test("rename: prepareRename on a reference's digits, then edits for the id and every reference", async () => {
    const position = at(planText, "$1.lno", 1);
    const prepared = (await connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: planUri }, position })) as { range: Range; placeholder: string };
    expect(prepared.placeholder).toBe("1");
    expect(rangeText(planText, prepared.range)).toBe("1");
    const edit = (await connection.sendRequest(RenameRequest.type, { textDocument: { uri: planUri }, position, newName: "10" })) as WorkspaceEdit;
    const renamed = TextDocument.applyEdits(TextDocument.create(planUri, "json", 1, planText), edit.changes![planUri]!);
    expect(renamed).toBe(planText.replace('"id": 1,', '"id": 10,').replace("$1.lat", "$10.lat").replace("$1.lno", "$10.lno"));
  });

  test("rename refuses what is not a step id, and prepareRename what is not a step", async () => {
    const position = at(planText, "$1.lno", 1);
    await expect(connection.sendRequest(RenameRequest.type, { textDocument: { uri: planUri }, position, newName: "ten" })).rejects.toMatchObject({ code: -32602 });
    await expect(connection.sendRequest(RenameRequest.type, { textDocument: { uri: planUri }, position, newName: "2" })).rejects.toMatchObject({ message: "step 2 already exists" });
    expect(await connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: planUri }, position: at(planText, "Lisbon", 2) })).toBeNull();
    expect(await connection.sendRequest(PrepareRenameRequest.type, { textDocument: { uri: planUri }, position: at(planText, "$7", 1) })).toBeNull();
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
      [3, "$", "keyword"], [3, "1", "number"], [3, ".", "operator"], [3, "lat", "property"],
      [3, "$", "keyword"], [3, "1", "number"], [3, ".", "operator"], [3, "lno", "property"],
      [3, "$", "keyword"], [3, "7", "number"],
    ]);
    expect(decoded).toHaveLength(documentTokens(planText).length);
  });

  test("a JSON document without steps is not a plan: no features", async () => {
    const uri = pathToFileURL(join(folder, "package.json")).href;
    const text = '{ "name": "$1.x" }';
    await connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "json", version: 1, text } });
    expect(await connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: at(text, "$1.", 3) })).toBeNull();
    expect(await connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: at(text, "$1", 1) })).toBeNull();
    expect(((await connection.sendRequest(SemanticTokensRequest.type, { textDocument: { uri } })) as SemanticTokens).data).toEqual([]);
  });

  test("a *.plan.json file is a plan even while it is not JSON yet; broken input never stops the server", async () => {
    const uri = pathToFileURL(join(folder, "draft.plan.json")).href;
    const broken = '{"steps": [ {"id": 1, "tool": "geocode"}, {"id": 2, "tool": "weather", "args": {"q": "$1.';
    const published = await open(uri, broken);
    expect(published.diagnostics.map((item) => item.code)).toEqual(["json-syntax"]);
    const items = (await connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: at(broken, "$1.", 3) })) as CompletionItem[];
    expect(items.map((item) => item.label)).toEqual(["name", "lat", "lon"]);

    const deep = `{"steps": [{"id": 1, "tool": "t", "args": {"q": ${"[".repeat(50_000)}`;
    const republished = nextDiagnostics(uri, 2);
    await connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version: 2 }, contentChanges: [{ text: deep }] });
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
