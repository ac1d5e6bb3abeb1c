/**
 * The allowed import directions between the folders of src/: every import of every
 * src/**\/*.ts file, static, dynamic or `import("…")` type, must follow the table below, and the
 * folders form no cycle; nor do the files (type-only imports included: a small types file breaks such
 * a cycle). The table is the one place the layering is written down:
 *
 *   shared → grammar → (resolve, plan: siblings) → lint → (step, editor) → run → codemirror
 *   step is the kernel both executors share (the attempt, the schedule rules, settings, retry,
 *   approval, storable JSON, the tracing of a try); run (runPlan, in this process) and postgres
 *   (the workers) each import it and never each other
 *   integrations draw, formats, postgres on top of the core; nothing in the core imports them; formats
 *   (planner formats, plan schemas) needs only the linter's layers below it, not run or editor
 *   agents (a whole plan as one tool call) on top of formats and run; the agent frameworks ai-sdk and
 *   openai-agents, and mcp (which also serves plans), on top of agents
 *   cli (the command line) and src/index.ts (the package root) above everything
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, test } from "vitest";

const src = join(import.meta.dirname, "../../src");

/** For each folder of src/, the other folders its files may import. `ROOT` is src/index.ts. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  shared: [],
  grammar: ["shared"],
  resolve: ["grammar", "shared"],
  plan: ["grammar", "shared"],
  lint: ["plan", "resolve", "grammar", "shared"],
  step: ["lint", "plan", "resolve", "grammar", "shared"],
  run: ["step", "lint", "plan", "resolve", "grammar", "shared"],
  editor: ["lint", "plan", "resolve", "grammar", "shared"],
  codemirror: ["editor", "lint", "plan", "resolve", "grammar", "shared"],
  draw: ["run", "step", "editor", "lint", "plan", "resolve", "grammar", "shared"],
  formats: ["lint", "plan", "resolve", "grammar", "shared"],
  mcp: ["agents", "formats", "run", "step", "editor", "lint", "plan", "resolve", "grammar", "shared"],
  postgres: ["step", "editor", "lint", "plan", "resolve", "grammar", "shared"],
  agents: ["formats", "run", "step", "editor", "lint", "plan", "resolve", "grammar", "shared"],
  "ai-sdk": ["agents", "formats", "run", "step", "editor", "lint", "plan", "resolve", "grammar", "shared"],
  "openai-agents": ["agents", "formats", "run", "step", "editor", "lint", "plan", "resolve", "grammar", "shared"],
  cli: ["draw", "formats", "mcp", "postgres", "run", "step", "editor", "lint", "plan", "resolve", "grammar", "shared"],
  ROOT: [
    "agents",
    "cli",
    "codemirror",
    "draw",
    "formats",
    "mcp",
    "postgres",
    "run",
    "step",
    "editor",
    "lint",
    "plan",
    "resolve",
    "grammar",
    "shared",
  ],
};

/**
 * Imports that break the table today, each to be removed, as "from-file -> to-file". Empty
 * when the layering holds; a new violation fails the test, and so does one listed here that is gone.
 */
const KNOWN_VIOLATIONS: readonly string[] = [];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

/** The relative specifiers a file imports: `import … from`, `export … from`, `import "…"`, `import("…")`. */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const statics = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*"(\.{1,2}\/[^"]+)"/gm),
    ...text.matchAll(/^\s*import\s*"(\.{1,2}\/[^"]+)"/gm),
  ];
  const dynamics = text
    .split("\n")
    .filter((line) => !/^\s*(?:\*|\/\/)/.test(line)) // doc comments may show examples
    .flatMap((line) => [...line.matchAll(/\bimport\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g)]);
  return [...statics, ...dynamics].map((match) => match[1]!);
}

const folderOf = (file: string): string => {
  const path = relative(src, file);
  return path.includes(sep) ? path.split(sep)[0]! : "ROOT";
};

const edges = files(src).flatMap((file) =>
  specifiersOf(file).map((specifier) => {
    const target = resolve(dirname(file), specifier).replace(/\.js$/, ".ts");
    return { from: relative(src, file), to: relative(src, target), fromFolder: folderOf(file), toFolder: folderOf(target) };
  }),
);

describe("import directions between src/ folders", () => {
  test("every folder of src/ has a row in the table", () => {
    const folders = readdirSync(src, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !(folder in ALLOWED))).toEqual([]);
    expect(edges.length).toBeGreaterThan(100); // the reader found the imports
  });

  test("every import follows the table (known violations listed)", () => {
    const violations = edges
      .filter((edge) => edge.fromFolder !== edge.toFolder && !(ALLOWED[edge.fromFolder] ?? []).includes(edge.toFolder))
      .map((edge) => `${edge.from} -> ${edge.to}`);
    expect([...new Set(violations)].sort()).toEqual([...KNOWN_VIOLATIONS].sort());
  });

  test("src/postgres imports nothing of src/run, and src/step nothing of either executor", () => {
    const crossing = edges.filter(
      (edge) =>
        (edge.fromFolder === "postgres" && edge.toFolder === "run") ||
        (edge.fromFolder === "step" && (edge.toFolder === "run" || edge.toFolder === "postgres")),
    );
    expect(crossing.map((edge) => `${edge.from} -> ${edge.to}`)).toEqual([]);
  });

  test("src/plan depends only on src/grammar and src/shared", () => {
    const targets = new Set(edges.filter((edge) => edge.fromFolder === "plan" && edge.toFolder !== "plan").map((edge) => edge.toFolder));
    expect([...targets].sort()).toEqual(["grammar", "shared"]);
  });

  test("no cycle between folders, in the table or in the imports", () => {
    const actual = new Map<string, Set<string>>();
    for (const edge of edges)
      if (edge.fromFolder !== edge.toFolder)
        (actual.get(edge.fromFolder) ?? actual.set(edge.fromFolder, new Set()).get(edge.fromFolder)!).add(edge.toFolder);
    for (const graph of [new Map(Object.entries(ALLOWED).map(([folder, allowed]) => [folder, new Set(allowed)])), actual]) {
      expect(cycleIn(graph)).toBeUndefined();
    }
  });
});

describe("imports between src/ files", () => {
  test("no cycle of imports between files, type-only imports included", () => {
    const graph = new Map<string, Set<string>>();
    for (const edge of edges) (graph.get(edge.from) ?? graph.set(edge.from, new Set()).get(edge.from)!).add(edge.to);
    expect(cycleIn(graph)).toBeUndefined();
  });
});

/** A cycle of a directed graph as the folders around it, or `undefined`. */
function cycleIn(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === "done") return undefined;
    if (state.get(node) === "open") return [...path.slice(path.indexOf(node)), node];
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const found = visit(next);
      if (found !== undefined) return found;
    }
    path.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of graph.keys()) {
    const found = visit(node);
    if (found !== undefined) return found;
  }
  return undefined;
}
