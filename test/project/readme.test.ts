/**
 * README.md's code, tested: every TypeScript and JavaScript block is typechecked under --strict (one
 * program, the package imported as `plan-refs` from the built dist/) and run with node, and every
 * value it shows in a `// →` or `// throws` comment is compared with the value it produces. Output
 * blocks marked `<!-- readme-test: same-as file -->`, `result-of plan step N` or `stderr-of args…` are
 * compared with that file, that step's result, or what that command prints. The conventions are in
 * test/helpers/doc-code.ts. Needs `npm run build` first (`npm test` builds before vitest).
 */
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { COMMAND_NAMES } from "../../src/cli/cli.js";
import { runPlan, type ToolFunctions } from "../../src/run/index.js";
import { runCliInProcess } from "../helpers/cli.js";
import { distProblem, fencedBlocks, instrument, mismatch, root, runModule, staleNote, toModule, typecheck, writeFile, type Encoded, type FencedBlock } from "../helpers/doc-code.js";

const readme = readFileSync(join(root, "README.md"), "utf8");
const blocks = fencedBlocks(readme);
const CODE = new Set(["ts", "typescript", "js", "javascript", "mjs"]);
const code = blocks.filter((block) => CODE.has(block.lang));
const dir = join(root, "test-artifacts/readme");

function fileOf(block: FencedBlock): string {
  return join(dir, `line-${block.line}.${block.lang.startsWith("t") ? "ts" : "mjs"}`);
}

let problems: Map<string, string[]>;

beforeAll(() => {
  const problem = distProblem();
  if (problem !== undefined) throw new Error(problem);
  rmSync(dir, { recursive: true, force: true });
  const checked = code.filter((block) => block.marker?.kind !== "skip");
  for (const block of checked) writeFile(fileOf(block), block.code);
  problems = new Map();
  for (const diagnostic of typecheck(checked.map(fileOf))) {
    const line = /^test-artifacts\/readme\/line-(\d+)\./.exec(diagnostic)?.[1] ?? "other";
    problems.set(line, [...(problems.get(line) ?? []), diagnostic]);
  }
}, 120_000);

describe("README.md", () => {
  test("has TypeScript blocks to test, and every readme-test marker has a reason and a block it applies to", () => {
    expect(code.length).toBeGreaterThan(5);
    for (const block of blocks) {
      if (block.marker === undefined) continue;
      const where = `README.md:${block.line}`;
      if (block.marker.kind === "same-as" || block.marker.kind === "result-of" || block.marker.kind === "stderr-of") {
        expect(block.lang, `${where}: ${block.marker.kind} is for output blocks`).toMatch(/^(text|json)$/);
      } else {
        expect(CODE.has(block.lang), `${where}: ${block.marker.kind} is for TypeScript and JavaScript blocks`).toBe(true);
        expect(block.marker.argument, `${where}: a ${block.marker.kind} marker needs a reason in parentheses`).toMatch(/^\(.{10,}\)$/);
      }
    }
  });

  test("the TypeScript program has no problem outside the blocks", () => {
    expect(problems.get("other") ?? []).toEqual([]);
  });

  test.each(code.map((block) => [`line ${block.line} (${block.lang}${block.marker === undefined ? "" : `, ${block.marker.kind}`})`, block] as const))("the block at %s", async (_name, block) => {
    if (block.marker?.kind === "skip") return;
    const where = (line: number) => `README.md:${block.line + line}`;
    expect(problems.get(String(block.line)) ?? [], `README.md:${block.line}: the block does not typecheck under --strict${staleNote()}`).toEqual([]);
    const { shown, source } = instrument(block.code, `README.md:${block.line}`);
    if (block.marker?.kind === "typecheck-only") {
      expect(shown, `${where(0)}: a typecheck-only block cannot show values (they would never be checked)`).toEqual([]);
      return;
    }
    const file = fileOf(block).replace(/\.(ts|mjs)$/, ".run.mjs");
    writeFile(file, toModule(source, fileOf(block)));
    const run = await runModule(file);
    expect(run.code, `${where(0)}: the block failed when run${staleNote()}\n${run.stderr}`).toBe(0);
    for (const item of shown) {
      const record = run.records.get(item.id);
      const at = where(item.line);
      expect(record, `${at}: never evaluated`).toBeDefined();
      if (item.kind === "throws") {
        expect(record?.thrown, `${at}: shown to throw, but gave a value`).toBeDefined();
        expect(`${record?.thrown?.name}: ${record?.thrown?.message}`, `${at}: the error thrown`).toBe(item.text);
      } else {
        expect(record?.thrown, `${at}: threw`).toBeUndefined();
        expect(mismatch(item.text, record!.value!), `${at}: the shown value${staleNote()}`).toBeUndefined();
      }
    }
  });

  test.each(blocks.filter((block) => block.marker?.kind === "same-as").map((block) => [block.line, block] as const))("the output block at line %s is its file's text", (_line, block) => {
    const file = block.marker!.argument;
    expect(block.code, `README.md:${block.line} should be the text of ${file}`).toBe(readFileSync(join(root, file), "utf8"));
  });

  test.each(blocks.filter((block) => block.marker?.kind === "result-of").map((block) => [block.line, block] as const))("the result at line %s is what runPlan gives", async (_line, block) => {
    const [, planFile, step] = /^(\S+) step (\d+)$/.exec(block.marker!.argument) ?? [];
    expect(planFile, `README.md:${block.line}: write <!-- readme-test: result-of path/plan.json step N -->`).toBeDefined();
    const plan: unknown = JSON.parse(readFileSync(join(root, planFile!), "utf8"));
    // Vitest's module objects hold their exports as getters, which runPlan never runs: copy them.
    const tools = { ...((await import(pathToFileURL(join(root, dirname(planFile!), "tools.mjs")).href)) as ToolFunctions) };
    const report = await runPlan(plan, tools);
    expect(report.status, `README.md:${block.line}: ${planFile} did not run`).toBe("ok");
    expect(report.results.get(Number(step))).toEqual(JSON.parse(block.code));
  });
});

describe("README.md's introduction", () => {
  test("the command list names every command", () => {
    const listed = /^- a \*\*command line\*\*: `plan-refs ([^`]+)`\.$/m.exec(readme)?.[1];
    expect(listed?.split(" | ").sort()).toEqual([...COMMAND_NAMES].sort());
  });
});

describe("README.md's command output", () => {
  test.each(blocks.filter((block) => block.marker?.kind === "stderr-of").map((block) => [block.line, block] as const))("the stderr at line %s is what the command prints (numbers masked, any order)", async (_line, block) => {
    const args = block.marker!.argument.replace(/\s*\(.*\)$/, "").split(/\s+/);
    const run = await runCliInProcess(args, { cwd: root });
    const shape = (text: string) => text.trimEnd().split("\n").map((line) => line.replace(/\d+/g, "N")).sort();
    expect(shape(block.code), `README.md:${block.line}: what \`plan-refs ${args.join(" ")}\` prints on stderr${staleNote()}\n${run.stderr}`).toEqual(shape(run.stderr));
  });
});

describe("the checker", () => {
  const { rows } = JSON.parse(readFileSync(join(root, "test/cases/readme-shown.json"), "utf8")) as { rows: { name: string; shown: string; actual: Encoded; mismatch: string | null }[] };
  test.each(rows.map((row) => [row.name, row] as const))("a shown value: %s", (_name, row) => {
    expect(mismatch(row.shown, row.actual) ?? null).toBe(row.mismatch);
  });

  test("finds shown values after a statement, on its line or on the lines after it, continued by indented comment lines", () => {
    const code = ['import { f } from "x";', "f(1); // → 1", "f(2);", "// prose first", "// → { a: 1,", "//   b: 2 }", "// prose after", "const x = f(3);", "// → 3", "f(4);", "// throws Error: no"].join("\n");
    const { shown, source } = instrument(code, "block");
    expect(shown).toEqual([
      { id: 0, line: 2, kind: "value", text: "1" },
      { id: 1, line: 5, kind: "value", text: "{ a: 1,\n   b: 2 }" },
      { id: 2, line: 9, kind: "value", text: "3" },
      { id: 3, line: 11, kind: "throws", text: "Error: no" },
    ]);
    expect(source).toContain("__docShow(0, (f(1)));");
    expect(source).toContain("const x = f(3); __docShow(2, x);");
    expect(source).toContain("__docThrows(3, () => (f(4)));");
  });

  test.each([
    ["a shown value inside a function", "function g() {\n  return 1;\n  // → 1\n}\n", 'block: 1 "// →" / "// throws" comment(s) inside a statement: only those after a top-level statement are checked'],
    ["two shown values after one statement", "f();\n// → 1\n// → 2\n", "block:1: one statement, two shown values; put a statement before each"],
    ["a shown value before any statement", "// → 1\nf();\n", 'block: a "// →" or "// throws" comment before the first statement shows nothing'],
    ["a shown value after a declaration that is not one const", "let a = 1, b = 2;\n// → 1\n", "block:2: a shown value must follow an expression statement or a `const name = …;`"],
  ])("refuses %s", (_name, code, message) => {
    expect(() => instrument(code, "block")).toThrow(message);
  });

  test("run: a wrong value, an error that differs and a statement that does not throw are told apart (the README's old span)", async () => {
    const code = [
      'import { lintPlan, resolveRefs } from "plan-refs";',
      'lintPlan({ steps: [{ id: 1, tool: "weather", args: { at: "$2.city" } }] });',
      '// → [{ code: "unknown-step", severity: "error", pointer: "/steps/0/args/at", span: { start: 1, end: 2 }, … }]',
      'resolveRefs({ q: "$1.town" }, { 1: { city: "Paris" } });',
      "// throws KeyError: a different message",
      'resolveRefs({ q: "$1.city" }, { 1: { city: "Paris" } });',
      "// throws KeyError: never thrown",
    ].join("\n");
    const { shown, source } = instrument(code, "block");
    const file = join(dir, "checker/wrong.mjs");
    writeFile(file, toModule(source, "wrong.ts"));
    const run = await runModule(file);
    expect(run.code, run.stderr).toBe(0);
    expect(mismatch(shown[0]!.text, run.records.get(0)!.value!)).toBe("[0].span.start: shown 1, but it is 0");
    expect(run.records.get(1)?.thrown).toEqual({ name: "KeyError", message: '$1.town: step 1\'s result has no key "town" (keys: city), in argument /q' });
    expect(run.records.get(2)).toEqual({ value: { $: "object", className: null, entries: [["q", "Paris"]] } });
  });
});

