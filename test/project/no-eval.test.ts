/**
 * Nothing in the library evaluates code: no `eval`, no `Function` constructor (called or
 * `new`), no `vm` module, no string given to `setTimeout`/`setInterval`, in any source file under src/.
 * The scan reads the TypeScript sources with comments and string contents blanked out, so prose that
 * mentions these names does not count, while code using them always does.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const srcDir = join(root, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/**
 * The code of a source file with comments removed and the contents of string and template literals
 * blanked (quotes kept, `${…}` code inside templates kept), so patterns match code only. Module
 * specifiers (`from "node:vm"`) are strings too: imports are checked on the raw text separately.
 */
function codeOnly(text: string): string {
  let out = "";
  let i = 0;
  const templateDepth: number[] = [];
  let braces = 0;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 2;
      out += " ";
      continue;
    }
    if (c === '"' || c === "'") {
      out += c;
      i++;
      while (i < text.length && text[i] !== c && text[i] !== "\n") i += text[i] === "\\" ? 2 : 1;
      out += c;
      i++;
      continue;
    }
    if (c === "`" || (c === "}" && templateDepth.length > 0 && templateDepth[templateDepth.length - 1] === braces)) {
      if (c === "}") templateDepth.pop();
      out += "`";
      i++;
      while (i < text.length && text[i] !== "`" && !(text[i] === "$" && text[i + 1] === "{")) i += text[i] === "\\" ? 2 : 1;
      if (text[i] === "$") {
        templateDepth.push(braces);
        out += "${";
        i += 2;
      } else {
        out += "`";
        i++;
      }
      continue;
    }
    if (c === "{") braces++;
    if (c === "}") braces--;
    out += c;
    i++;
  }
  return out;
}

/** Code that evaluates a string as code, or reaches the constructor that does. */
const forbiddenCode: [string, RegExp][] = [
  ["eval(", /(?<![\w$.])eval\s*\(/],
  ["eval used as a value", /(?<![\w$])eval(?![\w$])(?!\s*:)/],
  ["new Function", /\bnew\s+Function\b/],
  ["Function(", /(?<![\w$.])Function\s*\(/],
  [".constructor(…) (Function through a prototype)", /\.constructor\s*\(/],
  ["setTimeout/setInterval with a string", /\bset(?:Timeout|Interval)\s*\(\s*["'`]/],
  ["AsyncFunction or GeneratorFunction", /\b(?:Async|AsyncGenerator|Generator)Function\b/],
  ["WebAssembly", /\bWebAssembly\b/],
];

/** Imports (static, dynamic, require) of the vm module or worker threads running code from strings. */
const forbiddenImports: [string, RegExp][] = [
  ["node:vm / vm", /(?:from\s*|import\s*\(\s*|require\s*\(\s*|import\s+)["'](?:node:)?vm["']/],
  ["worker_threads with eval", /\beval\s*:\s*true\b/],
];

const files = sourceFiles(srcDir);

describe("no code evaluation in src/", () => {
  test("the scan sees the sources", () => {
    expect(files.length).toBeGreaterThan(30);
    expect(files.some((file) => file.endsWith(join("grammar", "parse.ts")))).toBe(true);
  });

  test.each(files.map((file) => relative(root, file)))("%s", (file) => {
    const raw = readFileSync(join(root, file), "utf8");
    const code = codeOnly(raw);
    const found = [
      ...forbiddenCode.filter(([, pattern]) => pattern.test(code)).map(([name]) => name),
      ...forbiddenImports.filter(([, pattern]) => pattern.test(raw)).map(([name]) => name),
    ];
    expect(found).toEqual([]);
  });
});

describe("the scan itself", () => {
  test.each([
    ["eval(text)", "eval("],
    ["const f = new Function('a', 'return a');", "new Function"],
    ["const f = Function('return 1')();", "Function("],
    ["const g = globalThis.eval; g(code)", "eval used as a value"],
    ["({}).constructor.constructor('return this')()", ".constructor(…) (Function through a prototype)"],
    ["setTimeout('alert(1)', 10)", "setTimeout/setInterval with a string"],
    ["const x = `${eval(code)}`;", "eval("],
  ])("finds %s", (source, name) => {
    const code = codeOnly(source);
    expect(forbiddenCode.filter(([, pattern]) => pattern.test(code)).map(([found]) => found)).toContain(name);
  });

  test.each([
    ['import { runInNewContext } from "node:vm";', "node:vm / vm"],
    ["const vm = await import('vm');", "node:vm / vm"],
    ['const vm = require("node:vm");', "node:vm / vm"],
    ['import * as vm from "vm";', "node:vm / vm"],
  ])("finds the import in %s", (source, name) => {
    expect(forbiddenImports.filter(([, pattern]) => pattern.test(source)).map(([found]) => found)).toContain(name);
  });

  test.each([
    "// never eval(anything)",
    "/* new Function is forbidden */",
    'const message = "do not eval( this";',
    "const doc = `Function(x) in a template`;",
    "const { evaluate } = module; evaluate(ast, results);",
    "medieval(x); retrieval(y);",
    "type ToolFunction = (args: unknown) => unknown;",
  ])("does not flag %s", (source) => {
    const code = codeOnly(source);
    expect(forbiddenCode.filter(([, pattern]) => pattern.test(code)).map(([name]) => name)).toEqual([]);
  });
});
