/**
 * examples/ai-sdk/run.mjs (`npm run example:ai-sdk`), tested: run with node it prints exactly
 * examples/ai-sdk/output.txt (the AI SDK's test model, so no network). Needs `npm run build` first
 * (`npm test` builds before vitest).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { distProblem, root, staleNote } from "../helpers/doc-code.js";

beforeAll(() => {
  const problem = distProblem();
  if (problem !== undefined) throw new Error(problem);
});

test("examples/ai-sdk/run.mjs prints examples/ai-sdk/output.txt", () => {
  const child = spawnSync(process.execPath, [join(root, "examples/ai-sdk/run.mjs")], { cwd: root, encoding: "utf8", timeout: 60_000 });
  expect(child.stderr, `the example failed${staleNote()}`).toBe("");
  expect(child.status).toBe(0);
  expect(child.stdout).toBe(readFileSync(join(root, "examples/ai-sdk/output.txt"), "utf8"));
});

test("npm run example:ai-sdk builds first and runs the example", () => {
  const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  expect(scripts["example:ai-sdk"]).toBe("npm run build --silent && node examples/ai-sdk/run.mjs");
});
