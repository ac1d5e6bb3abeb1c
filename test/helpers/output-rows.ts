/**
 * The rows of test/cases/output.json and the tools they call, shared by the test that runs them
 * through runPlan and the one that runs them through the PostgreSQL workers.
 */
import { readFileSync } from "node:fs";
import type { RunOptions, ToolFunctions } from "../../src/run/run-plan.js";

/** One row: a plan, its options, the run's status, and the output, its error, or neither (`none`). */
export interface OutputRow {
  readonly name: string;
  readonly plan: Record<string, unknown>;
  readonly options?: RunOptions;
  readonly status: string;
  readonly output?: unknown;
  readonly outputError?: { readonly code: string; readonly messageIncludes: string };
  readonly none?: true;
}

export const outputRows = (JSON.parse(readFileSync(new URL("../cases/output.json", import.meta.url), "utf8")) as { cases: OutputRow[] })
  .cases;

/** The rows' tools: `echo` gives back `value`, `fail` throws, `wrong` gives what its output schema refuses. */
export const outputTools: ToolFunctions = {
  echo: ({ value }) => value,
  fail: () => {
    throw new Error("down");
  },
  wrong: () => "not a number",
};

/** The rows' catalog (`wrong`'s output schema, for `validateOutputs`). */
export const outputCatalog = { echo: {}, fail: {}, wrong: { output: { type: "number" } } };
