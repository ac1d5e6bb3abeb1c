/**
 * fromLLMCompiler and fromReWOO on tables of plans in their planners' shapes
 * (test/cases/formats-llmcompiler.json, formats-rewoo.json): the plan each makes, and every
 * diagnostic with its code, line and column in the source text.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fromLLMCompiler } from "../../src/formats/llmcompiler.js";
import { fromReWOO } from "../../src/formats/rewoo.js";
import type { ConvertOptions } from "../../src/formats/convert.js";
import type { ToolCatalog } from "../../src/plan/plan.js";

interface Row {
  readonly name: string;
  readonly text: readonly string[];
  readonly catalog?: string | null;
  readonly options?: Omit<ConvertOptions, "catalog">;
  readonly plan: unknown;
  readonly diagnostics: readonly { code: string; severity?: "warning"; line: number; column: number; endColumn?: number; message?: string; pointer?: string }[];
}

const cases = join(import.meta.dirname, "../cases");
export const catalogs = JSON.parse(readFileSync(join(cases, "formats-catalogs.json"), "utf8")) as Record<string, ToolCatalog>;

const tables = [
  { file: "formats-llmcompiler.json", convert: fromLLMCompiler, catalog: "research" },
  { file: "formats-rewoo.json", convert: fromReWOO, catalog: "rewoo" },
] as const;

for (const { file, convert, catalog: defaultCatalog } of tables) {
  const rows = (JSON.parse(readFileSync(join(cases, file), "utf8")) as { cases: Row[] }).cases;
  describe(file, () => {
    test("has rows", () => expect(rows.length).toBeGreaterThan(8));
    for (const row of rows) {
      test(row.name, () => {
        const text = row.text.join("\n");
        const name = row.catalog === undefined ? defaultCatalog : row.catalog;
        const catalog = name === null ? undefined : catalogs[name];
        const { plan, diagnostics } = convert(text, { ...row.options, ...(catalog === undefined ? {} : { catalog }) });
        expect(plan).toEqual(row.plan);
        const seen = diagnostics.map((diagnostic, index) => {
          const want = row.diagnostics[index];
          return {
            code: diagnostic.code,
            ...(diagnostic.severity === "error" ? {} : { severity: diagnostic.severity }),
            line: diagnostic.range?.start.line,
            column: diagnostic.range?.start.column,
            ...(want?.endColumn === undefined ? {} : { endColumn: diagnostic.range?.end.column }),
            ...(want?.message === undefined ? {} : { message: diagnostic.message }),
            ...(want?.pointer === undefined ? {} : { pointer: diagnostic.pointer }),
          };
        });
        expect(seen).toEqual(row.diagnostics);
        for (const diagnostic of diagnostics) {
          // Offsets and the range say the same place; the range stays on one line of the text.
          const { offset, range } = diagnostic;
          expect(offset).toBeDefined();
          const lines = text.split("\n");
          const lineStart = lines.slice(0, range!.start.line - 1).reduce((sum, line) => sum + line.length + 1, 0);
          expect(offset!.start).toBe(lineStart + range!.start.column - 1);
          expect(offset!.end - offset!.start).toBe(range!.end.column - range!.start.column);
          expect(["error", "warning"]).toContain(diagnostic.severity);
        }
      });
    }
  });
}
