/**
 * Code in documentation, tested: the TypeScript and JavaScript blocks of a Markdown file (and example
 * files) are typechecked under --strict in one program with the TypeScript compiler API, transpiled to
 * `.mjs` and run with node; the values they show in comments are compared with the values they produce.
 *
 * Conventions, in a block:
 * - `// → value` after an expression statement (on its line, or on the lines after it) shows the
 *   statement's value; after `const name = …;` it shows the variable's. A value is written as a
 *   JavaScript literal (`{ q: "Paris" }`, `[1, 2]`, `"ok"`, `3`, `true`, `null`, `undefined`); `…` as
 *   an object's member means "and other keys", as an array's last item "and more items". Lines after
 *   it that start with `//` and two or more spaces continue the value.
 * - `// throws Name: message` after an expression statement: evaluating it throws an error with that
 *   `name` and exactly that `message`.
 * - Every other comment is prose, not checked.
 *
 * In Markdown, before a block's opening fence:
 * - `<!-- readme-test: skip (reason) -->`: the block is neither typechecked nor run;
 * - `<!-- readme-test: typecheck-only (reason) -->`: typechecked, not run (it needs a browser, say);
 * - before a ```text or ```json block, `<!-- readme-test: same-as path -->`: the block is that file's text;
 * - before a ```json block, `<!-- readme-test: result-of plan.json step N -->`: the block is step N's
 *   result when `runPlan` runs that plan with the tools of the `tools.mjs` next to it;
 * - before a ```text block, `<!-- readme-test: stderr-of args… (why) -->`: the block is what
 *   `plan-refs args…` (dist/cli/main.js) prints on stderr, with every number masked and the lines in
 *   any order (times and the order of concurrent steps vary from run to run); `stdout-of args…` the
 *   same for what it prints on stdout.
 * `sh`, `bash` and other languages are never run: their `plan-refs` command lines are checked against
 * the commands' `--help` (test/project/readme.test.ts).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The Markdown files whose code is tested, relative to the repository: README.md, then every `.md`
 * under docs/, sorted.
 */
export function documentationFiles(): string[] {
  const docs = walk(join(root, "docs"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => relative(root, file))
    .sort();
  return ["README.md", ...docs];
}

/** The marker comment's name: `<!-- readme-test: … -->`. */
const MARKER = /^<!--\s*readme-test:\s*(skip|typecheck-only|same-as|result-of|stderr-of|stdout-of)\b\s*(.*?)\s*-->$/;

export type MarkerKind = "skip" | "typecheck-only" | "same-as" | "result-of" | "stderr-of" | "stdout-of";

export interface FencedBlock {
  /** The language after the opening fence (`ts`, `sh`, …), lower case. */
  readonly lang: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
  /** A `readme-test` marker just before the fence (blank lines allowed between). */
  readonly marker?: { readonly kind: MarkerKind; readonly argument: string };
}

/** The fenced code blocks of a Markdown text, with the readme-test marker before each. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split("\n");
  const blocks: FencedBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^```([A-Za-z0-9_-]*)\s*$/.exec(lines[index] ?? "");
    if (open === null) continue;
    const start = index;
    let end = index + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? "")) end++;
    if (end >= lines.length) throw new Error(`line ${start + 1}: a code fence that is never closed`);
    let before = start - 1;
    while (before >= 0 && (lines[before] ?? "").trim() === "") before--;
    const marker = before >= 0 ? MARKER.exec((lines[before] ?? "").trim()) : null;
    blocks.push({
      lang: (open[1] ?? "").toLowerCase(),
      line: start + 1,
      code: lines.slice(start + 1, end).join("\n") + "\n",
      ...(marker === null ? {} : { marker: { kind: marker[1] as MarkerKind, argument: marker[2] ?? "" } }),
    });
    index = end;
  }
  return blocks;
}

/** A value a block shows in a comment, and where. */
export interface Shown {
  readonly id: number;
  /** 1-based line in the block of the comment. */
  readonly line: number;
  readonly kind: "value" | "throws";
  /** The value's text, or `Name: message` for `throws`. */
  readonly text: string;
}

/** A block's shown values, and its source with each shown statement instrumented to report its value. */
export function instrument(code: string, fileName: string): { readonly shown: Shown[]; readonly source: string } {
  const sourceFile = ts.createSourceFile(fileName, code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const statements = sourceFile.statements;
  const shown: Shown[] = [];
  const edits: { start: number; end: number; text: string }[] = [];
  const lineOf = (offset: number) => sourceFile.getLineAndCharacterOfPosition(offset).line + 1;
  const gaps = statements.map((statement, index) => ({
    statement,
    from: statement.end,
    to: index + 1 < statements.length ? statements[index + 1]!.getStart(sourceFile) : code.length,
  }));
  const before = statements.length > 0 ? code.slice(0, statements[0]!.getStart(sourceFile)) : code;
  if (/\/\/ (→|throws )/.test(before))
    throw new Error(`${fileName}: a "// →" or "// throws" comment before the first statement shows nothing`);
  let found = 0;
  for (const { statement, from, to } of gaps) {
    const comments = commentLines(code, from, to);
    const starts = comments.flatMap((comment, index) => (/^\/\/ (→|throws )/.test(comment.text) ? [index] : []));
    if (starts.length === 0) continue;
    if (starts.length > 1) throw new Error(`${fileName}:${lineOf(from)}: one statement, two shown values; put a statement before each`);
    const first = starts[0]!;
    const head = comments[first]!;
    let text = head.text.replace(/^\/\/ (→ ?|throws )/, "");
    for (
      let next = first + 1;
      next < comments.length && /^\/\/\s{2,}\S/.test(comments[next]!.text) && comments[next]!.line === comments[next - 1]!.line + 1;
      next++
    ) {
      text += `\n${comments[next]!.text.slice(2)}`;
    }
    const kind = head.text.startsWith("// →") ? "value" : "throws";
    const id = shown.length;
    shown.push({ id, line: head.line, kind, text: text.trim() });
    found++;
    if (ts.isExpressionStatement(statement)) {
      const expression = statement.expression;
      const inner = code.slice(expression.getStart(sourceFile), expression.end);
      const text =
        kind === "value"
          ? `__docShow(${id}, (${inner}))`
          : hasAwait(expression)
            ? `await __docThrowsAsync(${id}, async () => (${inner}))`
            : `__docThrows(${id}, () => (${inner}))`;
      edits.push({ start: expression.getStart(sourceFile), end: expression.end, text });
    } else if (
      kind === "value" &&
      ts.isVariableStatement(statement) &&
      statement.declarationList.declarations.length === 1 &&
      ts.isIdentifier(statement.declarationList.declarations[0]!.name)
    ) {
      edits.push({
        start: statement.end,
        end: statement.end,
        text: ` __docShow(${id}, ${statement.declarationList.declarations[0]!.name.text});`,
      });
    } else {
      throw new Error(
        `${fileName}:${head.line}: a shown value must follow an expression statement${kind === "value" ? " or a `const name = …;`" : ""}`,
      );
    }
  }
  const total = code.split("\n").filter((line) => /\/\/ (→|throws )/.test(line)).length;
  if (total !== found)
    throw new Error(
      `${fileName}: ${total - found} "// →" / "// throws" comment(s) inside a statement: only those after a top-level statement are checked`,
    );
  let source = code;
  for (const edit of edits.sort((a, b) => b.start - a.start)) source = source.slice(0, edit.start) + edit.text + source.slice(edit.end);
  return { shown, source };
}

/** The `//` comment lines between two offsets (where there is only whitespace and comments). */
function commentLines(code: string, from: number, to: number): { text: string; line: number }[] {
  const firstLine = code.slice(0, from).split("\n").length;
  return code
    .slice(from, to)
    .split("\n")
    .map((text, index) => ({ text: text.trim(), line: firstLine + index }))
    .filter((entry) => entry.text.startsWith("//"));
}

function hasAwait(node: ts.Node): boolean {
  return ts.isAwaitExpression(node) || (ts.forEachChild(node, (child) => (hasAwait(child) ? true : undefined)) ?? false);
}

/** What runs before a block: the functions that record shown values to the file in `DOC_CODE_OUT`. */
const PRELUDE = String.raw`import { appendFileSync as __docAppend } from "node:fs";
function __docEncode(value, seen = new Set()) {
  if (value === undefined) return { $: "undefined" };
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0) ? value : { $: "number", text: Object.is(value, -0) ? "-0" : String(value) };
  if (typeof value === "bigint" || typeof value === "symbol") return { $: typeof value, text: String(value) };
  if (typeof value === "function") return { $: "function", name: value.name };
  if (seen.has(value)) return { $: "cycle" };
  seen.add(value);
  try {
    if (value instanceof Error) return { $: "error", name: String(value.name), message: String(value.message) };
    if (value instanceof Map) return { $: "map", entries: [...value].map(([k, v]) => [__docEncode(k, seen), __docEncode(v, seen)]) };
    if (value instanceof Set) return { $: "set", items: [...value].map((v) => __docEncode(v, seen)) };
    if (Array.isArray(value)) return { $: "array", items: value.map((v) => __docEncode(v, seen)) };
    if (typeof value.then === "function") return { $: "promise" };
    const proto = Object.getPrototypeOf(value);
    const className = proto === null || proto === Object.prototype ? null : String(proto.constructor?.name);
    return { $: "object", className, entries: Object.keys(value).map((key) => [key, __docEncode(Object.getOwnPropertyDescriptor(value, key).value, seen)]) };
  } finally {
    seen.delete(value);
  }
}
function __docRecord(record) { __docAppend(process.env.DOC_CODE_OUT, JSON.stringify(record) + "\n"); }
function __docShow(id, value) { __docRecord({ id, value: __docEncode(value) }); return value; }
function __docThrown(id, error) { __docRecord({ id, thrown: { name: String(error?.name), message: String(error?.message) } }); }
function __docThrows(id, run) { try { __docRecord({ id, value: __docEncode(run()) }); } catch (error) { __docThrown(id, error); } }
async function __docThrowsAsync(id, run) { try { __docRecord({ id, value: __docEncode(await run()) }); } catch (error) { __docThrown(id, error); } }
`;

/** TypeScript (or JavaScript) source as an ES module node can run, the recording functions first. */
export function toModule(source: string, fileName: string): string {
  const output = ts.transpileModule(source, {
    fileName,
    reportDiagnostics: true,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: false,
      isolatedModules: true,
      sourceMap: false,
    },
  });
  const problems = output.diagnostics ?? [];
  if (problems.length > 0)
    throw new Error(`${fileName}: ${problems.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("\n")}`);
  return PRELUDE + output.outputText;
}

/** The compiler options code in documentation is checked with: what a user of the package would use, strict. */
export const strictOptions: ts.CompilerOptions = {
  strict: true,
  noUncheckedIndexedAccess: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  moduleDetection: ts.ModuleDetectionKind.Force,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
  types: ["node"],
  allowJs: true,
  checkJs: true,
  skipLibCheck: true,
  noEmit: true,
};

/** Typecheck files together; each problem as `file:line:column message`, relative to the repository. */
export function typecheck(files: readonly string[], options: ts.CompilerOptions = strictOptions): string[] {
  const program = ts.createProgram({ rootNames: [...files], options });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    if (diagnostic.file === undefined || diagnostic.start === undefined) return `TS${diagnostic.code}: ${message}`;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${relative(root, diagnostic.file.fileName)}:${line + 1}:${character + 1} TS${diagnostic.code}: ${message}`;
  });
}

/**
 * The `paths` of a tsconfig file, each target made absolute: for a program that resolves packages as
 * that project does (test/runtimes's current majors). Here rather than in the caller: from test/runtimes,
 * `typescript` would be that folder's TypeScript 7, which has no compiler API of this shape.
 */
export function tsconfigPaths(tsconfig: string): ts.MapLike<string[]> {
  const config = ts.readConfigFile(tsconfig, (path) => ts.sys.readFile(path));
  if (config.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, "\n"));
  const paths = (config.config as { compilerOptions?: { paths?: ts.MapLike<string[]> } }).compilerOptions?.paths ?? {};
  return Object.fromEntries(
    Object.entries(paths).map(([name, targets]) => [name, targets.map((target) => join(dirname(tsconfig), target))]),
  );
}

/** What running a module gave. */
export interface RunResult {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  /** By shown value's id: what it evaluated to, or what it threw. */
  readonly records: Map<number, { value?: Encoded; thrown?: { name: string; message: string } }>;
}

/** Run an `.mjs` file with node; the shown values it records come back in `records`. */
export function runModule(
  file: string,
  options: { readonly env?: NodeJS.ProcessEnv; readonly timeoutMs?: number } = {},
): Promise<RunResult> {
  const out = `${file}.records.jsonl`;
  writeFileSync(out, "");
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [file],
      {
        cwd: root,
        encoding: "utf8",
        timeout: options.timeoutMs ?? 20_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, ...options.env, DOC_CODE_OUT: out },
      },
      (error, stdout, stderr) => {
        const records: RunResult["records"] = new Map();
        for (const line of readText(out).split("\n")) {
          if (line === "") continue;
          const { id, ...record } = JSON.parse(line) as { id: number; value?: Encoded; thrown?: { name: string; message: string } };
          records.set(id, record);
        }
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ code, signal: error?.signal ?? null, stdout, stderr, records });
      },
    );
  });
}

function readText(file: string): string {
  return existsSync(file) ? (ts.sys.readFile(file) ?? "") : "";
}

/** A value as the recording functions encode it (JSON with tagged objects for what JSON cannot hold). */
export type Encoded =
  | string
  | number
  | boolean
  | null
  | { readonly $: "undefined" | "cycle" | "promise" }
  | { readonly $: "number" | "bigint" | "symbol"; readonly text: string }
  | { readonly $: "function"; readonly name: string }
  | { readonly $: "error"; readonly name: string; readonly message: string }
  | { readonly $: "map"; readonly entries: readonly (readonly [Encoded, Encoded])[] }
  | { readonly $: "set" | "array"; readonly items: readonly Encoded[] }
  | { readonly $: "object"; readonly className: string | null; readonly entries: readonly (readonly [string, Encoded])[] };

/** An encoded value written as a documentation comment would write it. */
export function render(value: Encoded): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value !== "object" || value === null) return String(value);
  switch (value.$) {
    case "undefined":
      return "undefined";
    case "cycle":
      return "[Circular]";
    case "promise":
      return "Promise { … }";
    case "number":
    case "bigint":
    case "symbol":
      return value.text;
    case "function":
      return `[Function ${value.name}]`;
    case "error":
      return `${value.name}: ${value.message}`;
    case "map":
      return value.entries.length === 0 ? "Map {}" : `Map { ${value.entries.map(([k, v]) => `${render(k)} => ${render(v)}`).join(", ")} }`;
    case "set":
      return value.items.length === 0 ? "Set {}" : `Set { ${value.items.map(render).join(", ")} }`;
    case "array":
      return `[${value.items.map(render).join(", ")}]`;
    case "object": {
      const body = value.entries
        .map(([key, v]) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}: ${render(v)}`)
        .join(", ");
      const prefix = value.className === null ? "" : `${value.className} `;
      return body === "" ? `${prefix}{}` : `${prefix}{ ${body} }`;
    }
  }
}

/** `…` outside string literals becomes a spread of `__more`, so that the text parses as JavaScript. */
function markEllipses(text: string): string {
  let result = "";
  let quote: string | undefined;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quote !== undefined) {
      result += char;
      if (char === "\\") result += text[++index] ?? "";
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
      result += char;
    } else result += char === "…" ? "...__more" : char;
  }
  return result;
}

/**
 * Whether a shown value (a JavaScript literal, `…` for what is left out) matches an encoded value:
 * `undefined` if it does, else what differs.
 */
export function mismatch(shownText: string, actual: Encoded): string | undefined {
  const source = ts.createSourceFile("shown.ts", `(${markEllipses(shownText)}\n)`, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const problems = (source as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
  if (problems.length > 0 || source.statements.length !== 1) return `the shown value does not parse as a JavaScript literal: ${shownText}`;
  const statement = source.statements[0]!;
  if (!ts.isExpressionStatement(statement) || !ts.isParenthesizedExpression(statement.expression))
    return `the shown value is not one expression: ${shownText}`;
  return compare(statement.expression.expression, actual, "");
}

function isMore(node: ts.Node): boolean {
  return (ts.isSpreadAssignment(node) || ts.isSpreadElement(node)) && ts.isIdentifier(node.expression) && node.expression.text === "__more";
}

function compare(node: ts.Expression, actual: Encoded, at: string): string | undefined {
  const where = at === "" ? "the value" : at;
  const differs = (what: string) => `${where}: shown ${what}, but it is ${render(actual)}`;
  if (ts.isParenthesizedExpression(node)) return compare(node.expression, actual, at);
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    return actual === node.text ? undefined : differs(JSON.stringify(node.text));
  if (ts.isNumericLiteral(node)) return actual === Number(node.text) ? undefined : differs(node.text);
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand)) {
    return actual === -Number(node.operand.text) ? undefined : differs(`-${node.operand.text}`);
  }
  if (node.kind === ts.SyntaxKind.TrueKeyword) return actual === true ? undefined : differs("true");
  if (node.kind === ts.SyntaxKind.FalseKeyword) return actual === false ? undefined : differs("false");
  if (node.kind === ts.SyntaxKind.NullKeyword) return actual === null ? undefined : differs("null");
  if (ts.isIdentifier(node) && node.text === "undefined")
    return typeof actual === "object" && actual !== null && actual.$ === "undefined" ? undefined : differs("undefined");
  if (ts.isArrayLiteralExpression(node)) {
    if (typeof actual !== "object" || actual === null || actual.$ !== "array") return differs("an array");
    const elements = [...node.elements];
    const open = elements.length > 0 && isMore(elements[elements.length - 1]!);
    if (open) elements.pop();
    if (elements.some(isMore)) return `${where}: "…" may only end an array`;
    if (open ? actual.items.length < elements.length : actual.items.length !== elements.length) {
      return differs(`${elements.length}${open ? " or more" : ""} items`);
    }
    for (const [index, element] of elements.entries()) {
      const problem = compare(element, actual.items[index]!, `${at}[${index}]`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (ts.isObjectLiteralExpression(node)) {
    if (typeof actual !== "object" || actual === null || actual.$ !== "object") return differs("an object");
    const open = node.properties.some(isMore);
    const entries = new Map(actual.entries);
    const names = new Set<string>();
    for (const property of node.properties) {
      if (isMore(property)) continue;
      if (
        !ts.isPropertyAssignment(property) ||
        !(ts.isIdentifier(property.name) || ts.isStringLiteral(property.name) || ts.isNumericLiteral(property.name))
      ) {
        return `${where}: only "key: value" members and "…" can be shown`;
      }
      const name = property.name.text;
      names.add(name);
      const value = entries.get(name);
      if (value === undefined) return differs(`a key "${name}"`);
      const problem = compare(property.initializer, value, `${at}.${name}`);
      if (problem !== undefined) return problem;
    }
    const extra = [...entries.keys()].filter((name) => !names.has(name));
    if (!open && extra.length > 0) return differs(`no key ${extra.map((name) => `"${name}"`).join(", ")} (add them, or "…")`);
    return undefined;
  }
  return `${where}: ${node.getText()} cannot be shown (only JavaScript literals, arrays, objects and "…")`;
}

/** Write a file, making its directory. */
export function writeFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/**
 * Why the package's own `dist/` cannot be imported as `plan-refs` (it is built by `npm run build`,
 * which `npm test` runs first), or `undefined` when it can. Also says when it is older than src/.
 */
export function distProblem(): string | undefined {
  const entry = join(root, "dist/index.d.ts");
  if (!existsSync(entry) || !existsSync(join(root, "dist/index.js"))) {
    return "dist/ is missing: code in the documentation imports the built package (`plan-refs` is dist/); run `npm run build` first (`npm test` does)";
  }
  return undefined;
}

/** A note when something under src/ changed after dist/ was built (the failure may be a stale build). */
export function staleNote(): string {
  if (stale === undefined) {
    const built = existsSync(join(root, "dist/index.d.ts")) ? statSync(join(root, "dist/index.d.ts")).mtimeMs : 0;
    const newer = walk(join(root, "src")).filter((file) => statSync(file).mtimeMs > built);
    stale =
      newer.length === 0
        ? ""
        : `\n(note: dist/ is older than ${relative(root, newer[0]!)}${newer.length > 1 ? ` and ${newer.length - 1} more` : ""}: run \`npm run build\`)`;
  }
  return stale;
}

let stale: string | undefined;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}
