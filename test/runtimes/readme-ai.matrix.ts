/**
 * The documentation's TypeScript blocks that import "ai" (README.md and docs/), typechecked against the
 * current AI SDK major: the blocks as test/project/readme.test.ts writes them (there against the root's ai 6), with this folder's
 * tsconfig paths (ai 7, its provider types, zod) for every import of those packages, dist/'s included.
 * Needs `npm run build` first (the blocks import plan-refs/ai-sdk, the built declarations).
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import {
  distProblem,
  documentationFiles,
  fencedBlocks,
  root,
  strictOptions,
  tsconfigPaths,
  typecheck,
  writeFile,
} from "../helpers/doc-code.js";

const fixture = join(root, "test/runtimes");
const dir = join(root, "test-artifacts/readme-ai-current");

const blocks = documentationFiles().flatMap((file) =>
  fencedBlocks(readFileSync(join(root, file), "utf8"))
    .filter(
      (block) => (block.lang === "ts" || block.lang === "typescript") && block.marker?.kind !== "skip" && /from\s+"ai"/.test(block.code),
    )
    .map((block) => ({ ...block, name: `${file.replace(/\.md$/, "").replaceAll("/", "_")}-line-${block.line}` })),
);

beforeAll(() => {
  const problem = distProblem();
  if (problem !== undefined) throw new Error(problem);
});

test('the documentation\'s ts blocks importing "ai" typecheck against the current AI SDK', () => {
  expect(blocks.length).toBeGreaterThan(0);
  rmSync(dir, { recursive: true, force: true });
  const files = blocks.map((block) => {
    const file = join(dir, `${block.name}.ts`);
    writeFile(file, block.code);
    return file;
  });
  expect(typecheck(files, { ...strictOptions, paths: tsconfigPaths(join(fixture, "tsconfig.json")) })).toEqual([]);
});
