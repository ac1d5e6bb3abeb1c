/**
 * The suite in projects, each with the pool and the number of workers that fits what its files do
 * (CONTRIBUTING.md, "Time budget", has each project's measured wall time):
 *
 * - `core`: the pure library in this process (grammar, resolve, plan, lint, shared, step, run, editor,
 *   draw, formats, the CodeMirror extension without a browser, the source scans). CPU-bound: worker
 *   threads, as many as there are cores. `npm run test:core` runs it alone, the inner loop.
 * - `integrations`: the SDK adapters and the PostgreSQL code that needs no database, in this
 *   process. Forks: `process.chdir` (the schema command's example) is refused in a worker thread.
 * - `processes`: files whose tests spawn the CLI, MCP servers, the language server, `node` or `tsc`
 *   over examples. They mostly wait on their children.
 * - `postgres`: files that start PostgreSQL (and worker processes on it).
 * - `browser`: files that drive Chromium.
 * - `package`: `npm pack`, an offline install and the consumer's `tsc` runs; its own step of
 *   `npm test` (`npm run test:package`), run once.
 * - `no-proto`: the in-process projects again with `--disable-proto=throw`: no code path of the
 *   library reaches an object's prototype through `__proto__`. The guarantee is about the code in
 *   the test's own process, so files whose work happens in child processes or a database are not run
 *   twice. Forks: Node refuses that flag in a worker thread's execArgv.
 *
 * - `soak`: thousands of runs watched for leaks, with `--expose-gc` for the heap figures.
 *
 * Every file belongs to exactly one of the projects but `no-proto` (test/project/suite-projects.test.ts
 * checks it). The CPU-bound projects run first with a worker per core, then the waiting ones with
 * twice as many (GROUPS).
 */
import { availableParallelism } from "node:os";
import { relative } from "node:path";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const CORE = [
  ...["grammar", "resolve", "plan", "lint", "shared", "step", "run", "editor", "draw", "formats", "codemirror", "syntaxes"].map(
    (folder) => `test/${folder}/**/*.test.ts`,
  ),
  // static checks of src/ (import directions, no eval, parameter lists, the linter's configuration), of the public API's types, of this file and of the documentation's links
  "test/project/api-types.test.ts",
  "test/project/docs-links.test.ts",
  "test/project/import-directions.test.ts",
  "test/project/max-params.test.ts",
  "test/project/lint-config.test.ts",
  "test/project/no-eval.test.ts",
  "test/project/suite-projects.test.ts",
  "test/project/root-exports.test.ts",
];

const BROWSER = ["test/draw/plan-chromium.test.ts", "test/codemirror/playground-chromium.test.ts"];
const SOAK = ["test/run/soak.test.ts"];
const LSP_OVER_STDIO = ["test/editor/lsp-server.test.ts"];
/** The CLI in this process, with `process.chdir` for its example, which a worker thread may not call. */
const CHANGES_FOLDER = ["test/formats/schema-command.test.ts"];
const POSTGRES_WITHOUT_DATABASE = [
  "test/postgres/sql-files.test.ts",
  "test/postgres/sql-states.test.ts",
  "test/postgres/tool-limits.test.ts",
  "test/postgres/worker-settings.test.ts",
  "test/postgres/worker-step.test.ts",
];

/** Files in the core folders that belong to another project. */
const NOT_CORE = [...SOAK, ...LSP_OVER_STDIO, ...BROWSER, ...CHANGES_FOLDER];

/** The command line run in this process (`runCli`), forks since a command may change folder. */
const CLI_IN_PROCESS = [
  "database-secrets",
  "flags",
  "lint-command",
  "report-json",
  "resolve-command",
  "run-command",
  "run-resume",
  "user-mistakes",
].map((name) => `test/cli/${name}.test.ts`);

const INTEGRATIONS = [
  ...CLI_IN_PROCESS,
  "test/agents/**/*.test.ts",
  "test/ai-sdk/**/*.test.ts",
  "test/openai-agents/**/*.test.ts",
  "test/mcp/answers.test.ts",
  "test/mcp/plan-server.test.ts",
  "test/mcp/split-command.test.ts",
  "test/tracing/run-plan.test.ts",
  "test/tracing/kernel-trace.test.ts",
  "test/tracing/step-trace.test.ts",
  ...POSTGRES_WITHOUT_DATABASE,
  ...CHANGES_FOLDER,
];

const PROCESSES = [
  "test/cli/**/*.test.ts",
  "test/project/run-parallel.test.ts",
  "test/project/build-script.test.ts",
  "test/mcp/serve-http.test.ts",
  "test/mcp/sessions.test.ts",
  "test/mcp/cli.test.ts",
  "test/mcp/http-answers.test.ts",
  "test/mcp/mcp.test.ts",
  "test/mcp/serve-command.test.ts",
  "test/mcp/stdio-transport.test.ts",
  ...LSP_OVER_STDIO,
  "test/tracing/cli.test.ts",
  "test/tracing/mcp.test.ts",
  "test/tracing/without-api.test.ts",
  "test/project/agent-example.test.ts",
  "test/project/ai-sdk-example.test.ts",
  "test/project/readme.test.ts",
  "test/project/readme-pictures.test.ts",
  "test/project/exit-code.test.ts",
];

const POSTGRES = ["test/postgres/**/*.test.ts", "test/tracing/postgres.test.ts"];
/** One PostgreSQL server for the run, a database of its own for each file (test/postgres/server.ts). */
export const POSTGRES_SETUP = "test/postgres/global-setup.ts";

const PACKAGE = ["test/package/**/*.test.ts"];

const CORES = Math.max(1, availableParallelism());

/**
 * How a project's files share the machine. Vitest runs projects of one `sequence.groupOrder` in one
 * pool, which must have one `maxWorkers`; groups run one after another.
 *
 * - `cpu`, first: files that compute in their worker, one worker per core. More would not finish
 *   sooner and would stretch each test (a property's 150 cases) towards its timeout, above all while
 *   a second copy of the suite runs beside this one.
 * - `waits`: files that spend most of their time waiting on child processes, PostgreSQL or Chromium:
 *   twice as many workers as cores keep the cores busy while they wait.
 * - `alone`: the package test, its own step of `npm test`.
 */
export const GROUPS = {
  cpu: { groupOrder: 0, maxWorkers: CORES },
  waits: { groupOrder: 1, maxWorkers: 2 * CORES },
  alone: { groupOrder: 2, maxWorkers: 1 },
} as const;

/** A project: the root options every project shares (tags, timeouts), its name, files, pool and group. */
function project(
  name: string,
  group: keyof typeof GROUPS,
  test: NonNullable<TestProjectInlineConfiguration["test"]>,
): TestProjectInlineConfiguration {
  const { groupOrder, maxWorkers } = GROUPS[group];
  return { extends: true, test: { name, maxWorkers, sequence: { groupOrder }, ...test } };
}

/**
 * The order projects start in within their group when an earlier run's durations are not known for
 * every file. Vitest's own sequencer takes projects by name, which put the files with the longest
 * waits (child processes, then PostgreSQL) behind the browser's. A project not listed goes last.
 */
const START_ORDER = ["processes", "postgres", "browser", "no-proto", "core", "integrations", "soak", "package"];

/**
 * Within each group, the longest files first, whatever their project, so that no long file starts
 * last and keeps the run waiting on it alone: by the durations vitest keeps from the last run
 * (node_modules/.vite/vitest), else by project in START_ORDER and vitest's order within a project.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const durations = new Map(
      sorted.map((file) => [
        file,
        this.ctx.cache.getFileTestResults(`${file.project.name}:${relative(this.ctx.config.root, file.moduleId)}`)?.duration,
      ]),
    );
    const known = [...durations.values()].every((duration) => duration !== undefined);
    const rank = (file: TestSpecification): number => {
      const index = START_ORDER.indexOf(file.project.name);
      return index === -1 ? START_ORDER.length : index;
    };
    const later = (a: TestSpecification, b: TestSpecification): number =>
      known ? (durations.get(b) ?? 0) - (durations.get(a) ?? 0) : rank(a) - rank(b);
    return sorted.sort((a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || later(a, b));
  }
}

export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
    // Tags say why a test is left out of mutation runs (vitest.mutation.config.ts); npm test runs them all.
    tags: [
      { name: "slow", description: "inputs of megabytes or tens of thousands of nodes; smaller cases reach the same code" },
      { name: "other-layers", description: "reaches src/grammar and src/resolve only through other layers or the built dist/" },
      {
        name: "counts-cases",
        description:
          "a property that also checks how many of its generated cases reached what it tests (mutation runs cut properties short)",
      },
      {
        name: "compiles-schemas",
        description: "a property whose every case compiles a new schema with Ajv: longer than the mutation runs give a property",
      },
    ],
    testTimeout: 30_000,
    // Imports in beforeAll hooks (poisoning, the TextMate engine) can take seconds on a loaded machine.
    hookTimeout: 60_000,
    projects: [
      project("core", "cpu", { include: CORE, exclude: NOT_CORE, pool: "threads" }),
      project("integrations", "cpu", { include: INTEGRATIONS, pool: "forks" }),
      project("processes", "waits", { include: PROCESSES, exclude: CLI_IN_PROCESS, pool: "forks" }),
      project("postgres", "waits", {
        include: POSTGRES,
        exclude: POSTGRES_WITHOUT_DATABASE,
        pool: "forks",
        globalSetup: [POSTGRES_SETUP],
      }),
      project("browser", "waits", { include: BROWSER, pool: "forks" }),
      // The soak measures the heap after a collection on demand: its worker gets gc (the file refuses to run without it).
      project("soak", "cpu", { include: SOAK, pool: "forks", execArgv: ["--expose-gc"] }),
      // Its afterAll removes two installed node_modules trees: over a minute on a busy disk.
      project("package", "alone", { include: PACKAGE, pool: "forks", hookTimeout: 180_000 }),
      project("no-proto", "cpu", {
        include: [...CORE, ...INTEGRATIONS],
        exclude: [...SOAK, ...LSP_OVER_STDIO, ...BROWSER],
        pool: "forks",
        execArgv: ["--disable-proto=throw"],
        env: { PLAN_REFS_NO_PROTO: "1" },
      }),
    ],
  },
});
