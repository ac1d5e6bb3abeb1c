/**
 * Editor functions: the cursor-marked rows of test/cases/editor.json, then TypeScript tables
 * for what JSON rows cannot express (hostile catalogs, line endings, edit application).
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import {
  applyTextEdits,
  completionsAt,
  definitionAt,
  documentTokens,
  hoverAt,
  referencesTo,
  renameStep,
  stepAt,
  tokenize,
  type EditorOptions,
  type Span,
  type ToolCatalog,
} from "../../src/editor/index.js";
import { loadCases } from "../helpers/cases.js";

interface Row {
  readonly name: string;
  readonly function:
    "tokenize" | "documentTokens" | "completionsAt" | "hoverAt" | "definitionAt" | "referencesTo" | "renameStep" | "stepAt";
  readonly input?: string;
  readonly plan?: unknown;
  readonly text?: string | string[];
  readonly options?: Record<string, unknown>;
  readonly withTools?: boolean;
  readonly stepId?: number;
  readonly newId?: number;
  readonly expected?: unknown;
}

const file = JSON.parse(readFileSync(new URL("../cases/editor.json", import.meta.url), "utf8")) as { tools: ToolCatalog };
const rows = loadCases<Row>("editor.json");
const rowsOf = (name: Row["function"]): Row[] => rows.filter((row) => row.function === name);

/** The row's document with its markers removed: the cursor (`|`) and the marked spans (`⟦…⟧`). */
function documentOf(row: Row): { text: string; cursor: number; marks: Span[] } {
  const raw = row.text !== undefined ? (Array.isArray(row.text) ? row.text.join("\n") : row.text) : JSON.stringify(row.plan, null, 2);
  let text = "";
  let cursor = -1;
  let open = -1;
  const marks: Span[] = [];
  for (const char of raw) {
    if (char === "|") {
      if (cursor >= 0) throw new Error(`${row.name}: two cursors`);
      cursor = text.length;
    } else if (char === "⟦") open = text.length;
    else if (char === "⟧") marks.push({ start: open, end: text.length });
    else text += char;
  }
  return { text, cursor, marks };
}

function optionsOf(row: Row): EditorOptions {
  return { ...row.options, ...(row.withTools === true ? { tools: file.tools } : {}) };
}

function cursorOf(row: Row): { text: string; cursor: number } {
  const document = documentOf(row);
  if (document.cursor < 0) throw new Error(`${row.name}: the row needs a | cursor`);
  return document;
}

function pick(item: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, item[key]]));
}

test("every row names a function that is tested", () => {
  const known = new Set(["tokenize", "documentTokens", "completionsAt", "hoverAt", "definitionAt", "referencesTo", "renameStep", "stepAt"]);
  expect(rows.filter((row) => !known.has(row.function)).map((row) => row.name)).toEqual([]);
});

describe("tokenize", () => {
  test.each(rowsOf("tokenize"))("$name", (row) => {
    const input = row.input!;
    const tokens = tokenize(input, row.options);
    expect(tokens.map((token) => [token.kind, input.slice(token.span.start, token.span.end)])).toEqual(row.expected);
  });
});

describe("documentTokens", () => {
  test.each(rowsOf("documentTokens"))("$name", (row) => {
    const { text } = documentOf(row);
    expect(documentTokens(text, optionsOf(row)).map((token) => [token.kind, text.slice(token.span.start, token.span.end)])).toEqual(
      row.expected,
    );
  });
});

describe("completionsAt", () => {
  test.each(rowsOf("completionsAt"))("$name", (row) => {
    const { text, cursor } = cursorOf(row);
    const expected = row.expected as Record<string, unknown>[];
    const items = completionsAt(text, cursor, optionsOf(row)).map((item) => ({
      ...item,
      replaces: text.slice(item.span.start, item.span.end),
    }));
    expect(items.map((item, i) => pick(item, Object.keys(expected[i] ?? { label: 0 })))).toEqual(expected);
    // The span an item replaces always holds the cursor (LSP requires it).
    for (const item of items) expect(item.span.start <= cursor && cursor <= item.span.end).toBe(true);
  });
});

describe("hoverAt", () => {
  test.each(rowsOf("hoverAt"))("$name", (row) => {
    const { text, cursor } = cursorOf(row);
    const hover = hoverAt(text, cursor, optionsOf(row));
    const expected = row.expected as { range: string; contains?: string[]; excludes?: string[] } | null;
    if (expected === null) return void expect(hover).toBeUndefined();
    expect(hover).toBeDefined();
    expect(text.slice(hover!.span.start, hover!.span.end)).toBe(expected.range);
    for (const part of expected.contains ?? []) expect(hover!.markdown).toContain(part);
    for (const part of expected.excludes ?? []) expect(hover!.markdown).not.toContain(part);
  });
});

describe("definitionAt", () => {
  test.each(rowsOf("definitionAt"))("$name", (row) => {
    const { text, cursor } = cursorOf(row);
    const span = definitionAt(text, cursor, optionsOf(row));
    if (row.expected === null) return void expect(span).toBeUndefined();
    const slice = text.slice(span!.start, span!.end);
    expect((JSON.parse(slice) as { id: unknown }).id).toBe(row.expected);
  });
});

describe("referencesTo", () => {
  test.each(rowsOf("referencesTo"))("$name", (row) => {
    const { text, marks } = documentOf(row);
    expect(referencesTo(text, row.stepId!, optionsOf(row))).toEqual(marks);
  });
});

describe("renameStep", () => {
  test.each(rowsOf("renameStep"))("$name", (row) => {
    const { text } = documentOf(row);
    const renamed = applyTextEdits(text, renameStep(text, row.stepId!, row.newId!, optionsOf(row)));
    expect(renamed).toBe(typeof row.expected === "string" ? row.expected : JSON.stringify(row.expected, null, 2));
  });
});

describe("stepAt", () => {
  test.each(rowsOf("stepAt"))("$name", (row) => {
    const { text, cursor } = cursorOf(row);
    const found = stepAt(text, cursor, optionsOf(row));
    if (row.expected === null) return void expect(found).toBeUndefined();
    expect({
      stepId: found?.stepId,
      declaration: found?.declaration,
      exists: found?.exists,
      range: found && text.slice(found.span.start, found.span.end),
    }).toEqual(row.expected);
  });
});

describe("what JSON rows cannot express", () => {
  const plan = (args: string): string => `{"steps":[{"id":1,"tool":"geocode","args":{}},{"id":2,"tool":"weather","args":{"q":"${args}"}}]}`;

  test("a catalog with getters is read through own data properties only: the getter is never called", () => {
    let called = 0;
    const output = { properties: { lat: {} } };
    Object.defineProperty(output.properties, "secret", { enumerable: true, get: () => ++called });
    const text = plan("$1.");
    const items = completionsAt(text, text.indexOf("$1.") + 3, { tools: { geocode: { output } } });
    expect(items.map((item) => item.label)).toEqual(["lat", "secret"]);
    expect(hoverAt(text, text.indexOf("$1.") + 1, { tools: { geocode: { output } } })?.markdown).toContain('"lat"');
    expect(called).toBe(0);
  });

  test("a catalog whose Proxy traps throw counts as no catalog, not an exception", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("boom");
        },
        getOwnPropertyDescriptor: () => {
          throw new Error("boom");
        },
      },
    );
    const text = plan("$1.");
    const at = text.indexOf("$1.") + 3;
    expect(completionsAt(text, at, { tools: hostile })).toEqual([]);
    expect(hoverAt(text, at - 2, { tools: hostile })?.markdown).toContain("No tool catalog");
    expect(documentTokens(text, { tools: hostile })).toHaveLength(3);
  });

  test("a cyclic schema in the caller's catalog is printed with the cycle cut", () => {
    const output: Record<string, unknown> = { type: "object" };
    output["properties"] = { self: output };
    const text = plan("$1.self");
    const hover = hoverAt(text, text.indexOf("self") + 1, { tools: { geocode: { output } } });
    expect(hover?.markdown).toContain('"self": {…}');
  });

  test("a __proto__ key in inline tools is a tool name, not a prototype", () => {
    const text = `{"tools":{"__proto__":{"output":{"properties":{"polluted":{}}}}},"steps":[{"id":1,"tool":"__proto__","args":{}},{"id":2,"tool":"b","args":{"q":"$1."}}]}`;
    expect(completionsAt(text, text.indexOf("$1.") + 3).map((item) => item.label)).toEqual(["polluted"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  test("offsets count UTF-16 code units (an emoji before the reference) and CRLF line ends", () => {
    const text = `{"steps":[\r\n{"id":1,"tool":"a","args":{}},\r\n{"id":2,"tool":"b","args":{"t":"🌍","q":"$1"}}]}`;
    const at = text.indexOf("$1");
    expect(referencesTo(text, 1)).toEqual([{ start: at + 1, end: at + 2 }]);
    expect(documentTokens(text).map((token) => text.slice(token.span.start, token.span.end))).toEqual(["$", "1"]);
  });

  test("bad option values never throw and fall back to the plan's own options", () => {
    const text = `{"options":{"syntax":"path"},"steps":[{"id":1,"tool":"a","args":{}},{"id":2,"tool":"b","args":{"q":"$1.a.b"}}]}`;
    const kinds = (options: unknown): string[] => documentTokens(text, options as EditorOptions).map((token) => token.kind);
    const path = ["dollar", "step", "separator", "key", "separator", "key"];
    expect(kinds({ syntax: 42 })).toEqual(path);
    expect(kinds({ maxRefLength: -1 })).toEqual(path);
    expect(kinds(null)).toEqual(path);
    expect(kinds({ syntax: "seed" })).toEqual(["dollar", "step", "separator", "key"]);
  });

  test("a document nested deeper than the parser can take has no references, and no exception", () => {
    const text = `{"steps":[{"id":1,"tool":"a","args":{"q":"$1","deep":${"[".repeat(20_000)}}}]}`;
    expect(documentTokens(text)).toEqual([]);
    expect(completionsAt(text, text.indexOf("$1") + 1)).toEqual([]);
    expect(renameStep(text, 1, 2)).toEqual([]);
  });

  test.each([
    [
      "edits in any order",
      "abcdef",
      [
        { span: { start: 4, end: 5 }, newText: "E" },
        { span: { start: 0, end: 1 }, newText: "AA" },
      ],
      "AAbcdEf",
    ],
    ["an insertion", "abc", [{ span: { start: 1, end: 1 }, newText: "-" }], "a-bc"],
    [
      "an overlapping edit is left out",
      "abcdef",
      [
        { span: { start: 0, end: 3 }, newText: "X" },
        { span: { start: 2, end: 4 }, newText: "Y" },
      ],
      "Xdef",
    ],
    ["an edit outside the text is left out", "abc", [{ span: { start: 2, end: 9 }, newText: "X" }], "abc"],
  ])("applyTextEdits: %s", (_name, text, edits, expected) => {
    expect(applyTextEdits(text, edits)).toBe(expected);
  });
});
