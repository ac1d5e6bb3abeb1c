/**
 * fromLLMCompiler and fromLLMCompilerStream on plans in the shapes LLMCompiler's own planner writes
 * (test/cases/formats-llmcompiler-shapes.json): the steps LLMCompiler's parser would make, and every
 * diagnostic with its severity and place; the stream gives the same steps and diagnostics however
 * the text is cut into chunks.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { Diagnostic } from "../../src/shared/diagnostic.js";
import { fromLLMCompiler, fromLLMCompilerStream } from "../../src/formats/llmcompiler.js";
import type { ConvertedStep } from "../../src/formats/convert.js";
import type { ToolCatalog } from "../../src/plan/plan.js";

interface Row {
  readonly name: string;
  readonly text: readonly string[];
  readonly plan: { readonly steps: readonly ConvertedStep[] };
  readonly diagnostics: readonly { code: string; severity?: string; line: number; column: number; endColumn?: number; message?: string }[];
}

const rows = (JSON.parse(readFileSync(join(import.meta.dirname, "../cases/formats-llmcompiler-shapes.json"), "utf8")) as { cases: Row[] })
  .cases;
const catalog = (
  JSON.parse(readFileSync(new URL("../cases/formats-catalogs.json", import.meta.url), "utf8")) as Record<string, ToolCatalog>
)["research"]!;

/** The diagnostics in the table's shape, with the fields a row gives. */
function shape(diagnostics: readonly Diagnostic[], want: Row["diagnostics"]): unknown[] {
  return diagnostics.map((diagnostic, index) => ({
    code: diagnostic.code,
    ...(diagnostic.severity === "error" ? {} : { severity: diagnostic.severity }),
    line: diagnostic.range?.start.line,
    column: diagnostic.range?.start.column,
    ...(want[index]?.endColumn === undefined ? {} : { endColumn: diagnostic.range?.end.column }),
    ...(want[index]?.message === undefined ? {} : { message: diagnostic.message }),
  }));
}

/** The text cut into chunks of `size` characters (every place a chunk can end, for size 1). */
function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

describe("LLMCompiler's shapes", () => {
  test("has rows", () => expect(rows.length).toBeGreaterThan(10));
  for (const row of rows) {
    const text = row.text.join("\n");
    test(row.name, () => {
      const { plan, diagnostics } = fromLLMCompiler(text, { catalog });
      expect(plan).toEqual(row.plan);
      expect(shape(diagnostics, row.diagnostics)).toEqual(row.diagnostics);
    });
    test.each([1, 7, text.length])(`${row.name}: streamed in chunks of %i characters, the same steps and diagnostics`, async (size) => {
      const stream = fromLLMCompilerStream(chunks(text, size), { catalog });
      const steps: ConvertedStep[] = [];
      for await (const step of stream) steps.push(step);
      expect(steps).toEqual(row.plan.steps);
      // Found line by line, in the order found; the whole text's are in source order.
      const found = [...stream.diagnostics].sort((a, b) => (a.offset?.start ?? 0) - (b.offset?.start ?? 0));
      expect(shape(found, row.diagnostics)).toEqual(row.diagnostics);
    });
  }
});
