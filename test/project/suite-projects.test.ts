/**
 * The projects of vitest.config.ts: every test file is run by exactly one of them (besides `no-proto`),
 * so none is dropped from `npm test` nor run twice; `no-proto` runs exactly the in-process projects'
 * files again, under the flag, in forks (Node refuses --disable-proto in a worker thread's execArgv);
 * and every file outside the in-process projects (it spawns, starts a server or a browser) opens with
 * the comment that says what it starts and why.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import config from "../../vitest.config.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** Every `*.test.ts` under test/, as a path from the repository root with `/`. */
function testFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    // An installed package's own tests (test/runtimes/node_modules) are no test files of ours: vitest leaves node_modules out too.
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : testFiles(path);
    return entry.name.endsWith(".test.ts") ? [relative(root, path).split(sep).join("/")] : [];
  });
}

/** The two pattern shapes the config uses: a file, or every test file under a folder. */
function matches(pattern: string, file: string): boolean {
  const folder = /^(.+)\/\*\*\/\*\.test\.ts$/.exec(pattern);
  if (folder) return file.startsWith(`${folder[1]}/`);
  if (/[*?{[]/.test(pattern)) throw new Error(`a pattern this test cannot read: ${pattern}`);
  return file === pattern;
}

interface Project {
  readonly name: string;
  readonly pool: string | undefined;
  readonly execArgv: readonly string[];
  readonly files: readonly string[];
}

const files = testFiles(join(root, "test")).sort();
const projects: Project[] = (config.test?.projects ?? []).map((entry) => {
  if (typeof entry !== "object" || entry === null || !("test" in entry)) throw new Error("a project that is not an inline config");
  const options = entry.test ?? {};
  const include = options.include ?? [];
  const exclude = options.exclude ?? [];
  return {
    name: typeof options.name === "object" ? options.name.label : String(options.name),
    pool: typeof options.pool === "string" ? options.pool : undefined,
    execArgv: options.execArgv ?? [],
    files: files.filter((file) => include.some((pattern) => matches(pattern, file)) && !exclude.some((pattern) => matches(pattern, file))),
  };
});
const byName = new Map(projects.map((project) => [project.name, project]));
const IN_PROCESS = ["core", "integrations"];

describe("the suite's projects", () => {
  test("every test file is in exactly one project besides no-proto", () => {
    const owners = files.map(
      (file) =>
        [
          file,
          projects.filter((project) => project.name !== "no-proto" && project.files.includes(file)).map((project) => project.name),
        ] as const,
    );
    expect(owners.filter(([, names]) => names.length !== 1)).toEqual([]);
    expect(files.length).toBeGreaterThan(100);
  });

  test("no-proto runs the in-process projects' files again, in forks, under --disable-proto=throw", () => {
    const noProto = byName.get("no-proto");
    expect(noProto?.files).toEqual(IN_PROCESS.flatMap((name) => byName.get(name)?.files ?? []).sort());
    expect(noProto?.pool).toBe("forks");
    expect(noProto?.execArgv).toEqual(["--disable-proto=throw"]);
  });

  test("a file outside the in-process projects opens with the comment that says what it starts", () => {
    const outside = projects
      .filter((project) => project.name !== "no-proto" && !IN_PROCESS.includes(project.name))
      .flatMap((project) => project.files);
    const bare = outside.filter((file) => !/^(\/\/\/ <reference [^\n]*\n)*\/\*\*\n/.test(readFileSync(join(root, file), "utf8")));
    expect(bare).toEqual([]);
  });
});
