/**
 * The documentation's code, tested: README.md and every Markdown file under docs/. Every TypeScript
 * and JavaScript block is typechecked under --strict (one program for all the files, the package
 * imported as `plan-refs` from the built dist/) and run with node, and every value it shows in a `// →`
 * or `// throws` comment is compared with the value it produces. Output blocks marked
 * `<!-- readme-test: same-as file -->`, `result-of plan step N`, `stderr-of args…` or `stdout-of args…`
 * are compared with that file, that step's result, or what that command prints; every `plan-refs`
 * command line of a shell block is checked against that command's `--help` (the command, its
 * subcommand, each flag). The conventions are in test/helpers/doc-code.ts. Needs `npm run build`
 * first (`npm test` builds before vitest).
 */
import { readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { targetsTable, workloadTable, type Target, type WorkloadReport } from "../../bench/harness.js";
import { COMMAND_NAMES } from "../../src/cli/cli.js";
import { runPlan, type ToolFunctions } from "../../src/run/index.js";
import { runCliInProcess } from "../helpers/cli.js";
import {
  distProblem,
  documentationFiles,
  fencedBlocks,
  instrument,
  mismatch,
  root,
  runModule,
  staleNote,
  toModule,
  typecheck,
  writeFile,
  type Encoded,
  type FencedBlock,
} from "../helpers/doc-code.js";

/**
 * Blocks that show what this branch cannot run yet, each with why; nothing else may be left out.
 * An entry names its file and its block's first line, and must match exactly one block.
 */
const NOT_YET_RUN: readonly { readonly file: string; readonly firstLine: string; readonly reason: string }[] = [];

/** A fenced block with the file it is in. */
interface DocBlock extends FencedBlock {
  readonly file: string;
  /** `file:line`, for messages. */
  readonly where: string;
  readonly notYetRun: boolean;
}

const CODE = new Set(["ts", "typescript", "js", "javascript", "mjs"]);
const SHELL = new Set(["sh", "bash", "shell", "console"]);
const files = documentationFiles();
const texts = new Map(files.map((file) => [file, readFileSync(join(root, file), "utf8")]));
const blocks: readonly DocBlock[] = files.flatMap((file) =>
  fencedBlocks(texts.get(file)!).map((block) => ({
    ...block,
    file,
    where: `${file}:${block.line}`,
    notYetRun: NOT_YET_RUN.some((entry) => entry.file === file && block.code.split("\n")[0] === entry.firstLine),
  })),
);
const run = blocks.filter((block) => !block.notYetRun);
const code = run.filter((block) => CODE.has(block.lang));
const dir = join(root, "test-artifacts/readme");
const readme = texts.get("README.md")!;

/** A block's file in the one program: a folder per Markdown file, a file per block. */
function fileOf(block: DocBlock): string {
  return join(dir, block.file.replace(/\.md$/, "").replaceAll("/", "_"), `line-${block.line}.${block.lang.startsWith("t") ? "ts" : "mjs"}`);
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
    const found = /^test-artifacts\/readme\/([^/]+)\/line-(\d+)\./.exec(diagnostic);
    const key = found === null ? "other" : `${found[1]}:${found[2]}`;
    problems.set(key, [...(problems.get(key) ?? []), diagnostic]);
  }
}, 120_000);

function problemsOf(block: DocBlock): string[] {
  return problems.get(`${block.file.replace(/\.md$/, "").replaceAll("/", "_")}:${block.line}`) ?? [];
}

describe("the documentation's files", () => {
  test("README.md and docs/ have TypeScript blocks to test, and every readme-test marker has a reason and a block it applies to", () => {
    expect(files).toContain("docs/index.md");
    expect(code.length).toBeGreaterThan(25);
    for (const block of blocks) {
      if (block.marker === undefined) continue;
      const kind = block.marker.kind;
      if (kind === "same-as" || kind === "result-of" || kind === "stderr-of" || kind === "stdout-of") {
        expect(block.lang, `${block.where}: ${kind} is for output blocks`).toMatch(/^(text|json)$/);
      } else {
        expect(CODE.has(block.lang), `${block.where}: ${kind} is for TypeScript and JavaScript blocks`).toBe(true);
        expect(block.marker.argument, `${block.where}: a ${kind} marker needs a reason in parentheses`).toMatch(/^\(.{10,}\)$/);
      }
    }
  });

  test.each(NOT_YET_RUN.map((entry) => [`${entry.file}: ${entry.firstLine}`, entry] as const))(
    "the block not yet run, %s, is there, once, with a reason",
    (_name, entry) => {
      expect(blocks.filter((block) => block.file === entry.file && block.code.split("\n")[0] === entry.firstLine)).toHaveLength(1);
      expect(entry.reason.length).toBeGreaterThan(10);
    },
  );

  test("the TypeScript program has no problem outside the blocks", () => {
    expect(problems.get("other") ?? []).toEqual([]);
  });
});

describe("the documentation's code", () => {
  test.each(
    code.map((block) => [`${block.where} (${block.lang}${block.marker === undefined ? "" : `, ${block.marker.kind}`})`, block] as const),
  )("the block at %s", async (_name, block) => {
    if (block.marker?.kind === "skip") return;
    const where = (line: number) => `${block.file}:${block.line + line}`;
    expect(problemsOf(block), `${block.where}: the block does not typecheck under --strict${staleNote()}`).toEqual([]);
    const { shown, source } = instrument(block.code, block.where);
    if (block.marker?.kind === "typecheck-only") {
      expect(shown, `${where(0)}: a typecheck-only block cannot show values (they would never be checked)`).toEqual([]);
      return;
    }
    const file = fileOf(block).replace(/\.(ts|mjs)$/, ".run.mjs");
    writeFile(file, toModule(source, fileOf(block)));
    const result = await runModule(file);
    expect(result.code, `${where(0)}: the block failed when run${staleNote()}\n${result.stderr}`).toBe(0);
    for (const item of shown) {
      const record = result.records.get(item.id);
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

  test.each(run.filter((block) => block.marker?.kind === "same-as").map((block) => [block.where, block] as const))(
    "the output block at %s is its file's text",
    (_where, block) => {
      const file = block.marker!.argument;
      expect(block.code, `${block.where} should be the text of ${file}`).toBe(readFileSync(join(root, file), "utf8"));
    },
  );

  test.each(run.filter((block) => block.marker?.kind === "result-of").map((block) => [block.where, block] as const))(
    "the result at %s is what runPlan gives",
    async (_where, block) => {
      const [, planFile, step] = /^(\S+) step (\d+)$/.exec(block.marker!.argument) ?? [];
      expect(planFile, `${block.where}: write <!-- readme-test: result-of path/plan.json step N -->`).toBeDefined();
      const plan: unknown = JSON.parse(readFileSync(join(root, planFile!), "utf8"));
      // Vitest's module objects hold their exports as getters, which runPlan never runs: copy them.
      const tools = { ...((await import(pathToFileURL(join(root, dirname(planFile!), "tools.mjs")).href)) as ToolFunctions) };
      const report = await runPlan(plan, tools);
      expect(report.status, `${block.where}: ${planFile} did not run`).toBe("ok");
      expect(report.results.get(Number(step))).toEqual(JSON.parse(block.code));
    },
  );
});

describe("the documentation's command lines", () => {
  test.each(
    run
      .filter((block) => block.marker?.kind === "stderr-of" || block.marker?.kind === "stdout-of")
      .map((block) => [block.where, block] as const),
  )("the output at %s is what the command prints (numbers masked, any order)", async (_where, block) => {
    const args = block.marker!.argument.replace(/\s*\(.*\)$/, "").split(/\s+/);
    const result = await runCliInProcess(args, { cwd: root });
    const printed = block.marker!.kind === "stderr-of" ? result.stderr : result.stdout;
    const shape = (text: string) =>
      text
        .trimEnd()
        .split("\n")
        .map((line) => line.replace(/\d+/g, "N"))
        .sort();
    expect(
      shape(block.code),
      `${block.where}: what \`plan-refs ${args.join(" ")}\` prints on ${block.marker!.kind === "stderr-of" ? "stderr" : "stdout"}${staleNote()}\n${printed}`,
    ).toEqual(shape(printed));
  });

  const lines = run
    .filter((block) => SHELL.has(block.lang))
    .flatMap((block) =>
      block.code
        .split("\n")
        .flatMap((line, index) => commandOf(line).map((command) => ({ ...command, where: `${block.file}:${block.line + 1 + index}` }))),
    );

  test("the shell blocks hold plan-refs command lines to check", () => {
    expect(lines.length).toBeGreaterThan(20);
  });

  const helps = new Map<string, Promise<string>>();
  const helpOf = (words: readonly string[]) => {
    const key = words.join(" ");
    if (!helps.has(key))
      helps.set(
        key,
        runCliInProcess([...words, "--help"], { cwd: root }).then((result) => result.stdout),
      );
    return helps.get(key)!;
  };

  test.each(lines.map((line) => [line.where, line] as const))("the command line at %s is one the command takes", async (_where, line) => {
    expect(COMMAND_NAMES, `${line.where}: no command "${line.command}"`).toContain(line.command);
    const words = line.subcommand === undefined ? [line.command] : [line.command, line.subcommand];
    const help = await helpOf(words);
    expect(help.split("\n")[0], `${line.where}: \`plan-refs ${words.join(" ")} --help\``).toContain(`plan-refs ${words.join(" ")}`);
    for (const flag of line.flags)
      expect(new RegExp(`${flag}(?![\\w-])`).test(help), `${line.where}: ${flag} is not in \`plan-refs ${words.join(" ")} --help\``).toBe(
        true,
      );
  });
});

/**
 * The plan-refs command on a shell line (after `npx`, as `plan-refs` or `node dist/cli/main.js`, after
 * any `VAR=value`), with its subcommand for `db` and `mcp`, and the flags outside quotes. Nothing for
 * another command, a line that only asks for help or the version, or a `<command>` placeholder.
 */
function commandOf(line: string): { readonly command: string; readonly subcommand?: string; readonly flags: readonly string[] }[] {
  const text = line.replace(/\s+#\s.*$/, "").replace(/^\$\s+/, "");
  const found = /^(?:[A-Z_]+=\S*\s+)*(?:npx\s+plan-refs|plan-refs|node\s+dist\/cli\/main\.js)\s+(.*)$/.exec(text);
  if (found === null) return [];
  const rest = found[1]!.replace(/"[^"]*"|'[^']*'/g, '""');
  const words = rest.split(/\s+/);
  const command = words[0]!;
  if (command.startsWith("-") || command.startsWith("<")) return [];
  const subcommand = (command === "db" || command === "mcp") && words[1] !== undefined && /^[a-z]+$/.test(words[1]) ? words[1] : undefined;
  const flags = [...new Set(rest.match(/(?<![\w-])--[a-z][a-z0-9-]*/g) ?? [])];
  return [{ command, ...(subcommand === undefined ? {} : { subcommand }), flags }];
}

describe("README.md", () => {
  test("is at most 300 lines", () => {
    expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(300);
  });

  test("the command list names every command", () => {
    const listed = /^- a \*\*command line\*\*: `plan-refs ([^`]+)`\.$/m.exec(readme)?.[1];
    expect(listed?.split(" | ").sort()).toEqual([...COMMAND_NAMES].sort());
  });
});

describe("docs/performance.md", () => {
  test("shows one table per workload and the targets, as bench/results.json has them", () => {
    const results = JSON.parse(readFileSync(join(root, "bench/results.json"), "utf8")) as {
      date: string;
      workloads: WorkloadReport[];
      targets: (Target & { workload: string })[];
    };
    const page = texts.get("docs/performance.md")!;
    expect(page).toContain(results.date.slice(0, 10));
    for (const workload of results.workloads) {
      expect(page.split(`## Workload ${workload.id}: `).length, `one section for workload ${workload.id}`).toBe(2);
      expect(page, `workload ${workload.id}'s table`).toContain(workloadTable(workload));
    }
    expect(page).toContain(targetsTable(results.targets));
  });
});

describe("the checker", () => {
  const { rows } = JSON.parse(readFileSync(join(root, "test/cases/readme-shown.json"), "utf8")) as {
    rows: { name: string; shown: string; actual: Encoded; mismatch: string | null }[];
  };
  test.each(rows.map((row) => [row.name, row] as const))("a shown value: %s", (_name, row) => {
    expect(mismatch(row.shown, row.actual) ?? null).toBe(row.mismatch);
  });

  test("finds shown values after a statement, on its line or on the lines after it, continued by indented comment lines", () => {
    const code = [
      'import { f } from "x";',
      "f(1); // → 1",
      "f(2);",
      "// prose first",
      "// → { a: 1,",
      "//   b: 2 }",
      "// prose after",
      "const x = f(3);",
      "// → 3",
      "f(4);",
      "// throws Error: no",
    ].join("\n");
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
    [
      "a shown value inside a function",
      "function g() {\n  return 1;\n  // → 1\n}\n",
      'block: 1 "// →" / "// throws" comment(s) inside a statement: only those after a top-level statement are checked',
    ],
    [
      "two shown values after one statement",
      "f();\n// → 1\n// → 2\n",
      "block:1: one statement, two shown values; put a statement before each",
    ],
    [
      "a shown value before any statement",
      "// → 1\nf();\n",
      'block: a "// →" or "// throws" comment before the first statement shows nothing',
    ],
    [
      "a shown value after a declaration that is not one const",
      "let a = 1, b = 2;\n// → 1\n",
      "block:2: a shown value must follow an expression statement or a `const name = …;`",
    ],
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
    const result = await runModule(file);
    expect(result.code, result.stderr).toBe(0);
    expect(mismatch(shown[0]!.text, result.records.get(0)!.value!)).toBe("[0].span.start: shown 1, but it is 0");
    expect(result.records.get(1)?.thrown).toEqual({
      name: "KeyError",
      message: '$1.town: step 1\'s result has no key "town" (keys: city), in argument /q',
    });
    expect(result.records.get(2)).toEqual({ value: { $: "object", className: null, entries: [["q", "Paris"]] } });
  });
});
