/**
 * examples/ai-sdk/run.mjs with the current AI SDK major: imported in this run, whose configuration
 * resolves every "ai" (the example's, `ai/test`'s and dist/ai-sdk's) to this folder's ai 7, it prints
 * exactly examples/ai-sdk/output.txt, as test/project/ai-sdk-example.test.ts checks it with the root's
 * ai 6. Imported rather than started as a child: a child node would resolve "ai" from examples/, to ai 6.
 * Needs `npm run build` first (the example imports dist/).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, expect, test, vi } from "vitest";
import { distProblem, root, staleNote } from "../helpers/doc-code.js";

beforeAll(() => {
  const problem = distProblem();
  if (problem !== undefined) throw new Error(problem);
});

afterEach(() => {
  vi.restoreAllMocks();
});

test("examples/ai-sdk/run.mjs on the current AI SDK prints examples/ai-sdk/output.txt", async () => {
  const { version } = JSON.parse(readFileSync(join(root, "test/runtimes/node_modules/ai/package.json"), "utf8")) as { version: string };
  expect(version.split(".")[0]).toBe("7");
  // The example's only output is console.log's lines: they are collected, not printed.
  const lines: string[] = [];
  vi.spyOn(console, "log").mockImplementation((...items: unknown[]) => {
    lines.push(items.map(String).join(" "));
  });
  await import(pathToFileURL(join(root, "examples/ai-sdk/run.mjs")).href);
  expect(lines.map((line) => `${line}\n`).join(""), `the example's output${staleNote()}`).toBe(
    readFileSync(join(root, "examples/ai-sdk/output.txt"), "utf8"),
  );
});
