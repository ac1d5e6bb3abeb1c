/**
 * The README's TypeScript blocks that import "ai", typechecked against the current AI SDK major: the
 * blocks as test/project/readme.test.ts writes them (there against the root's ai 6), with this folder's
 * tsconfig paths (ai 7, its provider types, zod) for every import of those packages, dist/'s included.
 * Needs `npm run build` first (the blocks import plan-refs/ai-sdk, the built declarations).
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { distProblem, fencedBlocks, root, strictOptions, tsconfigPaths, typecheck, writeFile } from "../helpers/doc-code.js";

const fixture = join(root, "test/runtimes");
const dir = join(root, "test-artifacts/readme-ai-current");

const blocks = fencedBlocks(readFileSync(join(root, "README.md"), "utf8")).filter(
  (block) => (block.lang === "ts" || block.lang === "typescript") && block.marker?.kind !== "skip" && /from\s+"ai"/.test(block.code),
);

beforeAll(() => {
  const problem = distProblem();
  if (problem !== undefined) throw new Error(problem);
});

test("the README's ts blocks importing \"ai\" typecheck against the current AI SDK", () => {
  expect(blocks.length).toBeGreaterThan(0);
  rmSync(dir, { recursive: true, force: true });
  const files = blocks.map((block) => {
    const file = join(dir, `line-${block.line}.ts`);
    writeFile(file, block.code);
    return file;
  });
  expect(typecheck(files, { ...strictOptions, paths: tsconfigPaths(join(fixture, "tsconfig.json")) })).toEqual([]);
});
