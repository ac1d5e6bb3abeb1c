/**
 * scripts/build.mjs, `npm run build`, which `npm test` runs after `npm ci` built dist/ already: it spawns
 * `node scripts/build.mjs` (the script is a program of its own, and the compiler it runs is a process) in a
 * small package of its own in a temporary folder, with this repository's TypeScript, so that what it
 * builds, skips and stamps is that package's and never this checkout's.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempFolder } from "../helpers/temp.js";

const ROOT = join(import.meta.dirname, "../..");
const SCRIPT = join(ROOT, "scripts/build.mjs");
const pkg = tempFolder("build-script");

writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
writeFileSync(
  join(pkg, "tsconfig.json"),
  // The smallest library and no @types: each build here is the compiler's start-up and two lines.
  JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2022"],
      types: [],
      skipLibCheck: true,
      module: "NodeNext",
      outDir: "dist",
      rootDir: "src",
    },
  }),
);
writeFileSync(join(pkg, "tsconfig.build.json"), JSON.stringify({ extends: "./tsconfig.json", include: ["src"] }));
mkdirSync(join(pkg, "src"));
writeFileSync(join(pkg, "src/a.ts"), "export const a: number = 1;\n");
// Its own node_modules (the stamp goes in its .cache), with this repository's compiler.
mkdirSync(join(pkg, "node_modules"));
symlinkSync(join(ROOT, "node_modules/typescript"), join(pkg, "node_modules/typescript"), "dir");

const at = (path: string): string => join(pkg, path);
const read = (path: string): string => readFileSync(at(path), "utf8");

/** Runs the build in the scratch package; `built` says whether the compiler wrote dist/a.js again. */
function build(): { status: number | null; stderr: string; built: boolean } {
  const before = statSync(at("dist/a.js"), { throwIfNoEntry: false })?.mtimeMs;
  const { status, stderr } = spawnSync(process.execPath, [SCRIPT], { cwd: pkg, encoding: "utf8" });
  return { status, stderr, built: statSync(at("dist/a.js")).mtimeMs !== before };
}

// One after another: each row changes the package, then builds; `built` is whether the compiler ran.
const rows: readonly { readonly change: string; readonly apply: () => void; readonly built: boolean; readonly then?: () => void }[] = [
  { change: "nothing built yet", apply: () => {}, built: true, then: () => expect(read("dist/a.js")).toContain("= 1") },
  { change: "nothing changed", apply: () => {}, built: false },
  {
    change: "a source file edited",
    apply: () => writeFileSync(at("src/a.ts"), "export const a: number = 2;\n"),
    built: true,
    then: () => expect(read("dist/a.js")).toContain("= 2"),
  },
  { change: "nothing changed since the edit", apply: () => {}, built: false },
  { change: "dist/ deleted", apply: () => rmSync(at("dist"), { recursive: true }), built: true },
  {
    change: "a built file edited",
    apply: () => writeFileSync(at("dist/a.js"), "export const a = 3;\n"),
    built: true,
    then: () => expect(read("dist/a.js")).toContain("= 2"),
  },
  {
    change: "a source file added",
    apply: () => writeFileSync(at("src/b.ts"), "export const b: string = 'b';\n"),
    built: true,
    then: () => expect(read("dist/b.js")).toContain("'b'"),
  },
  {
    change: "the build's tsconfig edited",
    apply: () => writeFileSync(at("tsconfig.build.json"), read("tsconfig.build.json") + "\n"),
    built: true,
  },
  { change: "the stamp deleted", apply: () => rmSync(at("node_modules/.cache"), { recursive: true }), built: true },
  { change: "nothing changed at last", apply: () => {}, built: false },
];

describe("npm run build compiles unless dist/ is what the compiler made from the inputs as they are", () => {
  for (const row of rows)
    test(`${row.change}: ${row.built ? "builds" : "skips"}`, () => {
      row.apply();
      expect(build()).toEqual({ status: 0, stderr: "", built: row.built });
      row.then?.();
    });
});

test("an argument is refused with the usage", () => {
  const { status, stderr } = spawnSync(process.execPath, [SCRIPT, "--force"], { cwd: pkg, encoding: "utf8" });
  expect({ status, stderr }).toEqual({ status: 2, stderr: "usage: node scripts/build.mjs (no arguments)\n" });
});
