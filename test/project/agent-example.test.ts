/**
 * examples/agent/agent.ts, tested: it typechecks under --strict (importing the built package as
 * `plan-refs`), and run with node it prints exactly examples/agent/output.txt. Needs `npm run build`
 * first (`npm test` builds before vitest).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { distProblem, root, runModule, staleNote, toModule, typecheck, writeFile } from "../helpers/doc-code.js";

const example = join(root, "examples/agent/agent.ts");

beforeAll(() => {
  const problem = distProblem();
  if (problem !== undefined) throw new Error(problem);
});

test("examples/agent/agent.ts typechecks under --strict", () => {
  expect(typecheck([example]), `examples/agent/agent.ts does not typecheck${staleNote()}`).toEqual([]);
}, 60_000);

test("examples/agent/agent.ts prints examples/agent/output.txt", async () => {
  const file = join(root, "test-artifacts/agent/agent.mjs");
  writeFile(file, toModule(readFileSync(example, "utf8"), example));
  const run = await runModule(file);
  expect(run.stderr, `the example failed${staleNote()}`).toBe("");
  expect(run.code).toBe(0);
  expect(run.stdout).toBe(readFileSync(join(root, "examples/agent/output.txt"), "utf8"));
});
