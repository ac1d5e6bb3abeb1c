/**
 * plan-refs/formats sits on top: it imports the layers below it (grammar, plan, lint, shared, whose
 * own-data.ts holds the reading policy) and nothing but the package root, the `schema` command and
 * the agent integrations (the plan tool's schema) imports it. The import directions of every folder are in test/project/import-directions.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, test } from "vitest";

const src = join(import.meta.dirname, "../../src");

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []));
}

const importsOf = (file: string): string[] => [...readFileSync(file, "utf8").matchAll(/^(?:import|export)[^;]*? from "([^"]+)";/gms)].map((match) => match[1]!);

test("src/formats imports only the layers below it", () => {
  const allowed = /^(?:\.\/[\w-]+\.js|\.\.\/(?:grammar|plan|lint|shared)\/[\w-]+\.js)$/;
  for (const file of files(join(src, "formats"))) {
    expect(importsOf(file).filter((specifier) => !allowed.test(specifier)), relative(src, file)).toEqual([]);
  }
});

test("only the package root, the schema command and the agent integrations import src/formats", () => {
  const importers = files(src)
    .filter((file) => !file.startsWith(join(src, "formats")))
    .filter((file) => importsOf(file).some((specifier) => specifier.includes("formats/")))
    .map((file) => relative(src, file))
    .sort();
  expect(importers).toEqual(["agents/plan-call.ts", "ai-sdk/index.ts", "cli/schema-command.ts", "index.ts", "openai-agents/index.ts"]);
});
