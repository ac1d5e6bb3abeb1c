/**
 * The language server's handlers (src/editor/lsp/), called directly: a `ServerContext` over real
 * `TextDocument`s in a store, and a connection that records what the server tells the client. The
 * protocol itself, over a child process's stdio, is tested in the language server's own test file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { TextDocument } from "vscode-languageserver-textdocument";
import { ErrorCodes, ResponseError, type Position, type PublishDiagnosticsParams, type WorkspaceEdit } from "vscode-languageserver/node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { completionsAt } from "../../src/editor/completion.js";
import { codeActions } from "../../src/editor/lsp/code-actions.js";
import { completion } from "../../src/editor/lsp/completion.js";
import { createServerContext, isPlan } from "../../src/editor/lsp/context.js";
import { definition, references } from "../../src/editor/lsp/definition.js";
import { createValidation } from "../../src/editor/lsp/diagnostics.js";
import { hover } from "../../src/editor/lsp/hover.js";
import { prepareRename, rename } from "../../src/editor/lsp/rename.js";
import { semanticTokens } from "../../src/editor/lsp/semantic-tokens.js";

const geocode = {
  description: "Find a place by name.",
  output: { type: "object", properties: { name: { type: "string" }, lat: { type: "number" } }, additionalProperties: false },
};
const planText = '{ "steps": [ { "id": 1, "tool": "geocode" }, { "id": 2, "tool": "geocode", "args": { "q": "$1.lat" } } ] }';

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), "plan-refs-lsp-handlers-"));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A server context over an in-memory document store, with everything it says to the client recorded. */
function server(readTextFile: (path: string) => string = () => "{}") {
  const store = new Map<string, TextDocument>();
  const published: PublishDiagnosticsParams[] = [];
  const waiting: ((params: PublishDiagnosticsParams) => void)[] = [];
  const errors: string[] = [];
  const warnings: string[] = [];
  const connection = {
    console: { error: (message: string) => errors.push(message), warn: (message: string) => warnings.push(message) },
    sendDiagnostics: async (params: PublishDiagnosticsParams) => {
      published.push(params);
      waiting.shift()?.(params);
    },
  };
  const context = createServerContext(connection, { get: (uri) => store.get(uri), all: () => [...store.values()] }, readTextFile);
  const open = (name: string, text: string, version = 1): TextDocument => {
    const document = TextDocument.create(pathToFileURL(join(folder, name)).href, "json", version, text);
    store.set(document.uri, document);
    return document;
  };
  /** The next diagnostics published, waited for (never for a time). */
  const nextPublished = (): Promise<PublishDiagnosticsParams> => new Promise((resolve) => waiting.push(resolve));
  return { context, open, published, nextPublished, errors, warnings };
}

const position = (document: TextDocument, needle: string, delta = 0) => document.positionAt(document.getText().indexOf(needle) + delta);
const params = (document: TextDocument, needle: string, delta = 0) => ({
  textDocument: { uri: document.uri },
  position: position(document, needle, delta),
});
const codes = (params: PublishDiagnosticsParams) => params.diagnostics.map((item) => item.code);

describe("the guard (runHandler)", () => {
  test("a handler that throws is answered with the fallback and logged once, naming what failed", () => {
    const { context, errors } = server();
    expect(
      context.runHandler("hover", null, () => {
        throw new Error("boom");
      }),
    ).toBeNull();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^plan-refs: hover: Error: boom/);
  });

  test("a connection that is gone is told nothing, and the guard still answers", () => {
    const context = createServerContext(
      {
        console: {
          error: () => {
            throw new Error("gone");
          },
          warn: () => {},
        },
        sendDiagnostics: async () => {},
      },
      { get: () => undefined, all: () => [] },
      () => "",
    );
    expect(
      context.runHandler("completion", "fallback", () => {
        throw new Error("boom");
      }),
    ).toBe("fallback");
  });
});

describe("request handlers on a plan with its tools next to it", () => {
  test("completion, hover, definition and references answer from the catalog of the open tools.json", () => {
    const { context, open } = server();
    open("tools.json", JSON.stringify({ geocode }));
    const plan = open("trip.json", planText);
    const items = completion(context, params(plan, "$1.lat", 3))!;
    expect(items.map((item) => item.label)).toEqual(["name", "lat"]);
    expect(items.map((item) => item.label)).toEqual(
      completionsAt(planText, planText.indexOf("$1.lat") + 3, context.editorOptions(plan)).map((item) => item.label),
    );
    expect(items.map((item) => item.sortText)).toEqual(["000000", "000001"]);

    const shown = hover(context, params(plan, "$1.lat", 4))!;
    expect((shown.contents as { value: string }).value).toContain("Find a place by name.");

    const target = definition(context, params(plan, "$1.lat", 1))!;
    expect(plan.getText(target.range)).toBe('{ "id": 1, "tool": "geocode" }');

    const found = references(context, { ...params(plan, '"id": 1', 6), context: { includeDeclaration: true } })!;
    const starts = (locations: { range: { start: Position } }[]) => locations.map((location) => plan.offsetAt(location.range.start));
    expect(starts(found)).toEqual([planText.indexOf('"id": 1') + 6, planText.indexOf("$1.lat") + 1]);
    expect(starts(references(context, { ...params(plan, '"id": 1', 6), context: { includeDeclaration: false } })!)).toEqual([
      planText.indexOf("$1.lat") + 1,
    ]);
  });

  test("prepareRename and rename: the id and every reference; refusals are InvalidParams responses", () => {
    const { context, open } = server();
    const plan = open("trip.json", planText);
    expect(prepareRename(context, params(plan, "$1.lat", 1))).toEqual({
      range: { start: position(plan, "$1.lat", 1), end: position(plan, "$1.lat", 2) },
      placeholder: "1",
    });
    expect(prepareRename(context, params(plan, "geocode"))).toBeNull();
    const edit = rename(context, { ...params(plan, "$1.lat", 1), newName: " 10 " }) as WorkspaceEdit;
    expect(TextDocument.applyEdits(plan, edit.changes![plan.uri]!)).toBe(
      planText.replace('"id": 1,', '"id": 10,').replace("$1.lat", "$10.lat"),
    );
    for (const newName of ["ten", "-1", "01", "9007199254740993"]) {
      const refused = rename(context, { ...params(plan, "$1.lat", 1), newName });
      expect(refused).toBeInstanceOf(ResponseError);
      expect((refused as ResponseError).code).toBe(ErrorCodes.InvalidParams);
    }
    expect((rename(context, { ...params(plan, "$1.lat", 1), newName: "2" }) as ResponseError).message).toBe("step 2 already exists");
  });

  test("a JSON document that is not a plan gets no answers; a rename there is not even checked", () => {
    const { context, open } = server();
    const other = open("package.json", '{ "name": "$1.x" }');
    expect(completion(context, params(other, "$1.", 3))).toBeNull();
    expect(hover(context, params(other, "$1", 1))).toBeNull();
    expect(definition(context, params(other, "$1", 1))).toBeNull();
    expect(references(context, { ...params(other, "$1", 1), context: { includeDeclaration: true } })).toBeNull();
    expect(prepareRename(context, params(other, "$1", 1))).toBeNull();
    expect(rename(context, { ...params(other, "$1", 1), newName: "ten" })).toBeNull();
    expect(semanticTokens(context, { textDocument: { uri: other.uri } })).toEqual({ data: [] });
    expect(semanticTokens(context, { textDocument: { uri: "file:///not/open.plan.json" } })).toEqual({ data: [] });
  });

  test("a document recognised as a plan stays one while open, even when an edit breaks it", () => {
    const { context, open } = server();
    const plan = open("trip.json", planText);
    expect(isPlan(context, plan)).toBe(true);
    TextDocument.update(plan, [{ text: "{ broken" }], 2);
    expect(isPlan(context, plan)).toBe(true);
    expect(isPlan(context, open("other.json", "{ broken"))).toBe(false);
  });
});

describe("code actions", () => {
  test("a quickfix per diagnostic in the range that knows its fix; none for a document that is not a plan, or when only other kinds are asked for", () => {
    const { context, open } = server();
    open(
      "tools.json",
      JSON.stringify({ geocode, weather: { input: { type: "object", properties: { lat: { type: "number" } }, required: ["lat"] } } }),
    );
    const plan = open(
      "actions.json",
      '{ "steps": [ { "id": 1, "tool": "geocode" }, { "id": 2, "tool": "weather", "args": { "x": "$1.nmae" } } ] }',
    );
    const whole = { start: plan.positionAt(0), end: plan.positionAt(plan.getText().length) };
    const actions = codeActions(context, { textDocument: { uri: plan.uri }, range: whole, context: { diagnostics: [] } });
    expect(actions.map((action) => [action.kind, action.title, action.diagnostics?.[0]?.code])).toEqual([
      ["quickfix", 'Add "lat"', "missing-argument"],
      ["quickfix", "Change to .name", "unknown-key"],
    ]);
    const edits = actions.flatMap((action) => action.edit!.changes![plan.uri]!);
    expect(TextDocument.applyEdits(plan, edits)).toBe(
      '{ "steps": [ { "id": 1, "tool": "geocode" }, { "id": 2, "tool": "weather", "args": { "x": "$1.name", "lat": 0 } } ] }',
    );
    expect(
      codeActions(context, { textDocument: { uri: plan.uri }, range: whole, context: { diagnostics: [], only: ["refactor"] } }),
    ).toEqual([]);
    const other = open("package.json", '{ "name": "x" }');
    expect(codeActions(context, { textDocument: { uri: other.uri }, range: whole, context: { diagnostics: [] } })).toEqual([]);
  });
});

describe("the catalog beside a plan", () => {
  test("a tools.json in the shape of MCP's tools/list result is read as the tools it lists", () => {
    const { context, open, published } = server();
    open(
      "tools.json",
      JSON.stringify({
        tools: [
          {
            name: "geocode",
            description: geocode.description,
            outputSchema: geocode.output,
            inputSchema: { type: "object", properties: { q: { type: "string" } }, additionalProperties: false },
          },
        ],
      }),
    );
    const plan = open(
      "mcp-list.plan.json",
      '{ "steps": [ { "id": 1, "tool": "geocode", "args": { "q": 3 } }, { "id": 2, "tool": "geocode", "args": { "q": "$1.nmae" } } ] }',
    );
    createValidation(context, 0).opened(plan.uri);
    expect(published.map(codes)).toEqual([["invalid-argument", "unknown-key"]]);
  });

  test("the plan's own tools win over tools.json; an open tools.json wins over the file", () => {
    writeFileSync(
      join(folder, "tools.json"),
      JSON.stringify({ geocode: { output: { type: "object", properties: { fromFile: { type: "string" } } } } }),
    );
    const { context, open } = server((path) => readFileSync(path, "utf8"));
    const plan = open("trip.json", planText);
    const labels = () => completion(context, params(plan, "$1.lat", 3))!.map((item) => item.label);
    expect(labels()).toEqual(["fromFile"]);
    const tools = open("tools.json", JSON.stringify({ geocode }));
    expect(labels()).toEqual(["name", "lat"]);
    TextDocument.update(
      tools,
      [{ text: JSON.stringify({ geocode: { output: { type: "object", properties: { edited: { type: "string" } } } } }) }],
      2,
    );
    expect(labels()).toEqual(["edited"]);
    const inline = open("inline.json", planText.replace('"steps"', '"tools": {}, "steps"'));
    expect(context.editorOptions(inline)).toBeUndefined();
  });

  test("a tools.json that is not JSON is said once in the log and gives no catalog", () => {
    const { context, open, warnings } = server();
    open("tools.json", "{ nope");
    const plan = open("trip.json", planText);
    expect(context.editorOptions(plan)).toBeUndefined();
    expect(context.editorOptions(plan)).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/tools\.json:1:\d+: invalid JSON/);
  });
});

describe("diagnostics (createValidation)", () => {
  test("opened lints once per version; closed clears a plan's diagnostics and nothing else's", () => {
    const { context, open, published } = server();
    const validation = createValidation(context, 0);
    open("tools.json", JSON.stringify({ geocode }));
    const plan = open("trip.json", planText.replace("$1.lat", "$7"));
    validation.opened(plan.uri);
    validation.opened(plan.uri);
    expect(published.map((item) => [item.version, codes(item)])).toEqual([[1, ["unknown-step"]]]);
    const other = open("package.json", "{}");
    validation.opened(other.uri);
    validation.closed(other.uri);
    validation.closed(plan.uri);
    expect(published.slice(1)).toEqual([{ uri: plan.uri, diagnostics: [] }]);
  });

  test("a change is linted after the debounce; a changed tools.json lints the open plans beside it again", async () => {
    const { context, open, nextPublished } = server();
    const validation = createValidation(context, 0);
    const tools = open("tools.json", JSON.stringify({ geocode }));
    const plan = open("trip.json", planText.replace("$1.lat", "$1.lon"));
    const first = nextPublished();
    validation.opened(plan.uri);
    expect(codes(await first)).toEqual(["unknown-key"]);
    TextDocument.update(
      tools,
      [{ text: JSON.stringify({ geocode: { output: { type: "object", properties: { lon: { type: "number" } } } } }) }],
      2,
    );
    const relinted = nextPublished();
    validation.changed(tools);
    expect(await relinted).toMatchObject({ uri: plan.uri, version: 1, diagnostics: [] });
    TextDocument.update(plan, [{ text: planText.replace("$1.lat", "$7") }], 2);
    const edited = nextPublished();
    validation.changed(plan);
    expect(await edited).toMatchObject({ uri: plan.uri, version: 2, diagnostics: [{ code: "unknown-step" }] });
  });
});
