// The TextMate injection grammar (syntaxes/plan-refs.injection.tmLanguage.json), run by the same
// engine VS Code uses (vscode-textmate on vscode-oniguruma) over a minimal JSON grammar with VS Code's
// scope names. Table rows pin the scopes of each token; properties check that the regex grammar and
// the Parsimmon grammar agree on what is a reference and where its pieces are.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import textmate from "vscode-textmate";
import type { IGrammar } from "vscode-textmate";
import oniguruma from "vscode-oniguruma";
import { beforeAll, describe, expect, test } from "vitest";
import type { AstNode, Expression } from "../../src/grammar/ast.js";
import { walkAst } from "../../src/grammar/ast.js";
import { pathLanguage, runRule, seedLanguage } from "../../src/grammar/language.js";
import { parseTemplate } from "../../src/grammar/parse.js";

const root = new URL("../../", import.meta.url);
const GRAMMAR_PATH = new URL("syntaxes/plan-refs.injection.tmLanguage.json", root);
const PLAN_REFS_SUFFIX = ".plan-refs";

interface TokenExpectation {
  readonly text: string;
  /** Scopes the token must carry (exact names). */
  readonly scopesInclude?: readonly string[];
  /** The token must carry no plan-refs scope at all. */
  readonly plain?: boolean;
}

interface Row {
  readonly note: string;
  readonly line: string;
  readonly tokens: readonly TokenExpectation[];
}

interface Token {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly scopes: readonly string[];
}

const rows = JSON.parse(readFileSync(new URL("test/cases/textmate.json", root), "utf8")) as Row[];

let grammar: IGrammar;

beforeAll(async () => {
  await oniguruma.loadWASM(readFileSync(new URL("node_modules/vscode-oniguruma/release/onig.wasm", root)));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => oniguruma.createOnigScanner(patterns),
      createOnigString: (text) => oniguruma.createOnigString(text),
    }),
    loadGrammar: async (scopeName) => {
      const files: Record<string, URL> = {
        "source.json": new URL("test/fixtures/json.tmLanguage.json", root),
        "plan-refs.injection": GRAMMAR_PATH,
      };
      const file = files[scopeName];
      return file ? textmate.parseRawGrammar(readFileSync(file, "utf8"), file.pathname) : null;
    },
    getInjections: (scopeName) => (scopeName === "source.json" ? ["plan-refs.injection"] : undefined),
  });
  const loaded = await registry.loadGrammar("source.json");
  if (!loaded) throw new Error("the JSON fixture grammar did not load");
  grammar = loaded;
});

function tokenize(line: string): Token[] {
  return grammar.tokenizeLine(line, textmate.INITIAL).tokens.map((token) => ({
    text: line.slice(token.startIndex, token.endIndex),
    start: token.startIndex,
    end: Math.min(token.endIndex, line.length),
    scopes: token.scopes,
  }));
}

const isPlanRefsScope = (scope: string): boolean => scope.endsWith(PLAN_REFS_SUFFIX);

function describeTokens(tokens: readonly Token[]): string {
  return tokens.map((token) => `${JSON.stringify(token.text)} ${token.scopes.slice(1).join(" ")}`).join("\n");
}

describe("TextMate injection grammar: token scopes", () => {
  test.each(rows)("$note: $line", ({ line, tokens: expected }) => {
    const tokens = tokenize(line);
    // Expected tokens are found in order: each must be a whole token of exactly that text.
    let cursor = 0;
    for (const want of expected) {
      const index = tokens.findIndex((token, i) => i >= cursor && token.text === want.text);
      expect(index, `no token ${JSON.stringify(want.text)} after token ${cursor} in\n${describeTokens(tokens)}`).toBeGreaterThanOrEqual(0);
      const token = tokens[index]!;
      for (const scope of want.scopesInclude ?? []) {
        expect(token.scopes, `scopes of ${JSON.stringify(want.text)}`).toContain(scope);
      }
      if (want.plain) expect(token.scopes.filter(isPlanRefsScope), `${JSON.stringify(want.text)} must not be highlighted`).toEqual([]);
      cursor = index + 1;
    }
  });

  test("the case file has rows of every kind", () => {
    const notes = rows.map((row) => row.note);
    expect(notes.filter((note) => note.startsWith("not a reference")).length).toBeGreaterThanOrEqual(10);
    expect(rows.every((row) => row.tokens.length > 0)).toBe(true);
  });
});

/** Every scope a rule assigns (`name` fields of rules and captures, at any depth). */
function scopeNamesIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(scopeNamesIn);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === "name" && typeof inner === "string" ? inner.split(" ") : scopeNamesIn(inner),
  );
}

describe("TextMate injection grammar: the file", () => {
  test("is what syntaxes/build-injection-grammar.mjs generates", async () => {
    const generator = (await import(new URL("syntaxes/build-injection-grammar.mjs", root).href)) as { grammarText(): string };
    expect(readFileSync(GRAMMAR_PATH, "utf8")).toBe(generator.grammarText());
  });

  test("injects into JSON string values and names every scope with the plan-refs suffix", () => {
    const raw = JSON.parse(readFileSync(GRAMMAR_PATH, "utf8")) as { scopeName: string; injectionSelector: string; repository: unknown };
    expect(raw.scopeName).toBe("plan-refs.injection");
    expect(raw.injectionSelector.startsWith("L:source.json string.quoted.double.json")).toBe(true);
    const names = scopeNamesIn(raw.repository);
    expect(names.length).toBeGreaterThan(20);
    const foreign = names.filter((name) => !isPlanRefsScope(name) && name !== "constant.character.escape.json");
    expect(foreign).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Agreement with the Parsimmon grammar. A decoded string `s` is written as the JSON line
// JSON.stringify(s); `rawOffsets[i]` is where decoded offset i lands in that line.

function encode(text: string): { line: string; rawOffsets: number[] } {
  const rawOffsets: number[] = [];
  let line = '"';
  for (const char of text) {
    rawOffsets.push(line.length);
    line += JSON.stringify(char).slice(1, -1);
  }
  rawOffsets.push(line.length);
  return { line: line + '"', rawOffsets };
}

type Range = readonly [number, number];

/** Runs of adjacent tokens that carry `scope`, as [start, end) in the line. */
function runsOf(tokens: readonly Token[], ...scopes: string[]): Range[] {
  const found: [number, number][] = [];
  for (const token of tokens) {
    if (!scopes.some((scope) => token.scopes.includes(scope))) continue;
    const last = found[found.length - 1];
    if (last && last[1] === token.start) last[1] = token.end;
    else found.push([token.start, token.end]);
  }
  return found;
}

/** Where the AST says the pieces are, mapped to raw line offsets (empty ranges dropped). */
function piecesOf(
  expression: Expression,
  rawOffsets: readonly number[],
): Record<"steps" | "keys" | "indexes" | "quoted" | "literals", Range[]> {
  const pieces = { steps: [] as Range[], keys: [] as Range[], indexes: [] as Range[], quoted: [] as Range[], literals: [] as Range[] };
  const add = (list: Range[], start: number, end: number) => {
    if (end > start) list.push([rawOffsets[start]!, rawOffsets[end]!]);
  };
  walkAst(expression, (node: AstNode) => {
    switch (node.type) {
      case "step":
        return add(pieces.steps, node.span.start, node.span.end);
      case "key":
        return add(pieces.keys, node.span.start + 1, node.span.end);
      case "index":
        return add(pieces.indexes, node.span.start + 1, node.span.end - 1);
      case "quoted-key":
        return add(pieces.quoted, node.span.start + 2, node.span.end - 2);
      case "literal":
        return add(pieces.literals, node.span.start, node.span.end);
      default:
        return;
    }
  });
  return pieces;
}

function scopedPieces(tokens: readonly Token[]): Record<"steps" | "keys" | "indexes" | "quoted" | "literals", Range[]> {
  const p = (name: string) => name + PLAN_REFS_SUFFIX;
  return {
    steps: runsOf(tokens, p("constant.numeric.integer.step")),
    keys: runsOf(tokens, p("variable.other.property")),
    indexes: runsOf(tokens, p("constant.numeric.integer.index")),
    quoted: runsOf(tokens, p("variable.other.property.quoted")),
    literals: runsOf(
      tokens,
      p("string.quoted.double.literal"),
      p("constant.numeric.literal"),
      p("constant.language.boolean"),
      p("constant.language.null"),
    ),
  };
}

/** [start, end) of each `${…}`, from its `$` to its `}`. */
function interpolationsOf(tokens: readonly Token[]): Range[] {
  const found: Range[] = [];
  let start = -1;
  for (const token of tokens) {
    if (token.text === "$" && token.scopes.includes("punctuation.section.embedded.begin.plan-refs")) start = token.start;
    if (token.scopes.includes("punctuation.section.embedded.end.plan-refs")) found.push([start, token.end]);
  }
  return found;
}

// Pieces that build references: `noisy` ones probe the edges (odd characters in names, broken
// segments and operators), `clean` ones are mostly valid so that templates often parse.
const nameChar = fc.constantFrom(
  "a",
  "b",
  "Z",
  "_",
  "-",
  "7",
  "é",
  '"',
  "\\",
  "/",
  "\b",
  "\u0001",
  "\u000b",
  "\u00a0",
  "\u2028",
  " ",
  "}",
  "?",
  "$",
  ".",
  "[",
);
const keyText = fc.string({ unit: fc.constantFrom("a", ".", " ", '"', "\\", "}", "]", "$", "\n", "\u0001", "\u2028", "é"), maxLength: 4 });
const digits = fc.stringMatching(/^[0-9]{1,3}$/);

function expressionOf(
  unit: fc.Arbitrary<string>,
  odd: readonly string[],
  ops: readonly string[],
  oddLiterals: readonly string[],
): fc.Arbitrary<string> {
  const segment = fc.oneof(
    fc.string({ unit, minLength: 1, maxLength: 4 }).map((n) => `.${n}`),
    fc.nat(120).map((i) => `[${i}]`),
    keyText.map((k) => `[${JSON.stringify(k)}]`),
    ...(odd.length > 0 ? [fc.constantFrom(...odd)] : []),
  );
  const reference = fc.tuple(digits, fc.array(segment, { maxLength: 3 })).map(([step, path]) => `$${step}${path.join("")}`);
  const literal = fc.oneof(
    keyText.map((k) => JSON.stringify(k)),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
    fc.constantFrom("true", "false", "null", ...oddLiterals),
  );
  const op = fc.constantFrom(...ops);
  return fc
    .tuple(reference, fc.array(fc.tuple(op, reference), { maxLength: 2 }), fc.option(fc.tuple(op, literal), { nil: undefined }))
    .map(([first, rest, last]) => first + rest.map(([o, r]) => o + r).join("") + (last ? last[0] + last[1] : ""));
}

const noisyExpression = expressionOf(
  nameChar,
  ["[x]", "[]", "[01]", "[-1]", '["a]', ".", '["\u0001"]', '["\t"]'],
  [" ?? ", "??", "  ??  ", " ?", "?? "],
  ["01", "1.", "tru", '"\n"'],
);
const cleanExpression = expressionOf(fc.constantFrom("a", "b", "_", "é", '"', "\\", "7"), [], [" ?? ", "??"], []);
const noise = fc.string({
  unit: fc.constantFrom("$", "1", ".", "a", " ", "?", "[", "]", "{", "}", '"', "\\", "$$", "${", "\n"),
  maxLength: 10,
});
const wholeCandidate = fc.oneof(
  { arbitrary: noisyExpression, weight: 2 },
  { arbitrary: cleanExpression, weight: 1 },
  { arbitrary: noise, weight: 1 },
  { arbitrary: fc.tuple(noisyExpression, noise).map(([a, b]) => a + b), weight: 1 },
);
const templateText = fc.string({ unit: fc.constantFrom("$", "1", ".", "a", " ", "?", "[", "]", "{", "}", '"', "\\", "\n"), maxLength: 6 });
const template = fc
  .array(
    fc.oneof(
      { arbitrary: templateText, weight: 2 },
      { arbitrary: cleanExpression.map((e) => `\${${e.slice(1)}}`), weight: 3 },
      { arbitrary: noisyExpression.map((e) => `\${${e.slice(1)}}`), weight: 1 },
      { arbitrary: fc.constantFrom("$${", "$$", "$", "}", "${"), weight: 1 },
    ),
    { maxLength: 4 },
  )
  .map((parts) => parts.join(""));

describe("TextMate injection grammar agrees with the Parsimmon grammar", () => {
  test("a whole string is highlighted as a placeholder exactly when seed or path syntax accepts it, with the same pieces", () => {
    fc.assert(
      fc.property(wholeCandidate, (text) => {
        const { line, rawOffsets } = encode(text);
        const tokens = tokenize(line);
        const first = tokens.find((token) => token.start === 1);
        const path = runRule(pathLanguage.placeholder, text);
        const seed = runRule(seedLanguage.placeholder, text);
        const reading = first?.scopes.includes("meta.placeholder.path.plan-refs")
          ? "path"
          : first?.scopes.includes("meta.placeholder.seed.plan-refs")
            ? "seed"
            : "none";
        expect(reading).toBe(path.ok ? "path" : seed.ok ? "seed" : "none");
        const ast = path.ok ? path.value : seed.ok ? seed.value : undefined;
        if (ast) expect(scopedPieces(tokens)).toEqual(piecesOf(ast, rawOffsets));
      }),
      { numRuns: 2000 },
    );
  });

  test("in a template that parses with path syntax, the highlighted ${…} are the interpolations the parser finds", () => {
    fc.assert(
      fc.property(template, (text) => {
        if (runRule(pathLanguage.placeholder, text).ok || runRule(seedLanguage.placeholder, text).ok) return;
        let parts;
        try {
          parts = parseTemplate(text, { syntax: "path" }).parts;
        } catch {
          return; // not a valid template: the highlighter shows only the interpolations that are valid on their own
        }
        const { line, rawOffsets } = encode(text);
        const tokens = tokenize(line);
        const expected = parts
          .filter((part) => part.type === "interpolation")
          .map((part): Range => [rawOffsets[part.span.start]!, rawOffsets[part.span.end]!]);
        expect(interpolationsOf(tokens)).toEqual(expected);
        const insides = parts.flatMap((part) => (part.type === "interpolation" ? [piecesOf(part.expression, rawOffsets)] : []));
        const merged = insides.reduce(
          (all, one) => ({
            steps: [...all.steps, ...one.steps],
            keys: [...all.keys, ...one.keys],
            indexes: [...all.indexes, ...one.indexes],
            quoted: [...all.quoted, ...one.quoted],
            literals: [...all.literals, ...one.literals],
          }),
          { steps: [], keys: [], indexes: [], quoted: [], literals: [] } as ReturnType<typeof piecesOf>,
        );
        expect(scopedPieces(tokens)).toEqual(merged);
      }),
      { numRuns: 2000 },
    );
  });
});
