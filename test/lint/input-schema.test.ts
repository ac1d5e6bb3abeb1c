/**
 * Ajv's errors turned into findings, one row per rule (test/cases/input-schema.json): a failed
 * `anyOf`/`oneOf` folded into one line or into its best branch, each keyword's message, unknown keys
 * escaped into their pointer, missing names with their types, the dialects' `unevaluatedProperties`,
 * and what is left out where a value is not known before the run. Untagged and small, so the mutation
 * runs see every rule of `input-schema.ts`.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { argumentsCopy, compileInputSchema, inputIssues, type Unsure } from "../../src/lint/input-schema.js";

interface Row {
  readonly name: string;
  readonly schema: unknown;
  readonly value: unknown;
  readonly unsure?: Readonly<Record<string, Unsure>>;
  readonly issues: readonly unknown[];
}

const rows = JSON.parse(readFileSync(new URL("../cases/input-schema.json", import.meta.url), "utf8")) as Row[];

describe("input issues", () => {
  test.each(rows.map((row) => [row.name, row] as const))("%s", (_, row) => {
    const compiled = compileInputSchema(row.schema);
    if (!compiled.ok) throw new Error(compiled.reason);
    const unsure = row.unsure === undefined ? undefined : new Map(Object.entries(row.unsure));
    const issues = inputIssues(compiled, argumentsCopy(row.value, 16), unsure);
    // Type sets compare as sorted lists: a JSON row cannot hold a Set.
    const plain = issues.map((issue) => (issue.kind === "missing" ? { ...issue, names: issue.names.map((n) => ({ name: n.name, types: n.types === null ? null : [...n.types] })) } : issue));
    expect(plain).toEqual(row.issues);
    // The same map given as a function that makes it gives the same findings.
    if (unsure !== undefined) expect(inputIssues(compiled, argumentsCopy(row.value, 16), () => unsure)).toEqual(issues);
  });
});
