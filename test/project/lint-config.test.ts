/**
 * The linter's configuration (eslint.config.mjs) bites: its type-aware rules report a floating promise,
 * a promise where a callback's void is expected and a switch that forgets a case, through ESLint's Node
 * API in this process. The text is linted as test/project/lint-config/sample.ts, whose own tsconfig.json
 * is a program of one file; which rules the library's files get is read from the configuration (no program).
 */
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const eslint = new ESLint({ cwd: root });
const SAMPLE = "test/project/lint-config/sample.ts";

/** The rule ids ESLint reports for `text` linted as the sample file, in order. */
async function ruleIds(text: string): Promise<(string | null)[]> {
  const [result] = await eslint.lintText(text, { filePath: SAMPLE });
  return (result?.messages ?? []).map((message) => message.ruleId);
}

/** The severity a rule has for a file (2: an error), read from the configuration alone. */
async function severity(file: string, rule: string): Promise<unknown> {
  const config = (await eslint.calculateConfigForFile(file)) as { rules?: Record<string, unknown> };
  const setting = config.rules?.[rule];
  return Array.isArray(setting) ? setting[0] : setting;
}

describe("eslint.config.mjs", () => {
  test.each([
    [
      "a promise neither awaited nor handled",
      "export async function go(): Promise<void> {}\nexport function start(): void {\n  go();\n}\n",
      ["@typescript-eslint/no-floating-promises"],
    ],
    [
      "an async function where a callback returns void",
      "export function wire(_listeners: { onDone: () => void }): void {}\nwire({ onDone: async () => {} });\n",
      ["@typescript-eslint/no-misused-promises"],
    ],
    [
      "a switch without a default that forgets a case",
      'export type Kind = "a" | "b";\nexport function name(kind: Kind): string {\n  switch (kind) {\n    case "a":\n      return "A";\n  }\n  return "?";\n}\n',
      ["@typescript-eslint/switch-exhaustiveness-check"],
    ],
    [
      "the same, clean",
      'export type Kind = "a" | "b";\nexport function name(kind: Kind): string {\n  switch (kind) {\n    case "a":\n      return "A";\n    case "b":\n      return "B";\n  }\n}\n',
      [],
    ],
    [
      "a promise marked as not awaited",
      "export async function go(): Promise<void> {}\nexport function start(): void {\n  void go();\n}\n",
      [],
    ],
  ])("%s", async (_name, text, expected) => {
    expect(await ruleIds(text)).toEqual(expected);
  });

  test("the library's files get the promise, switch and unsafe-any rules as errors", async () => {
    const rules = [
      "@typescript-eslint/no-floating-promises",
      "@typescript-eslint/no-misused-promises",
      "@typescript-eslint/switch-exhaustiveness-check",
      "@typescript-eslint/no-unsafe-argument",
      "@typescript-eslint/no-unsafe-assignment",
      "@typescript-eslint/no-unsafe-call",
      "@typescript-eslint/no-unsafe-member-access",
      "@typescript-eslint/no-unsafe-return",
    ];
    const severities = await Promise.all(rules.map((rule) => severity("src/run/run-plan.ts", rule)));
    expect(Object.fromEntries(rules.map((rule, i) => [rule, severities[i]]))).toEqual(Object.fromEntries(rules.map((rule) => [rule, 2])));
  });

  test("generated data is not linted", async () => {
    expect(await eslint.isPathIgnored("src/formats/unicode-names/data.ts")).toBe(true);
    expect(await eslint.isPathIgnored("src/formats/unicode-names/names.ts")).toBe(false);
  });
});
