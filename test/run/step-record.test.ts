/**
 * `runPlan`'s step record: every step of a run has one for the whole run, so its own fields are kept to
 * what most steps use; the state few steps need (a signal read, an abort, a retry, arguments that cannot
 * be resolved) lives beside it, made on first use, and reads the same through the record.
 */
import { describe, expect, test } from "vitest";
import { StepRecord } from "../../src/run/step-record.js";

function record(): StepRecord {
  return new StepRecord({ id: 1, tool: "weather", args: { city: "Paris" } }, 0, 0, [], undefined);
}

/** The record's own fields: one more costs 8 bytes on every step of every run. */
const OWN_FIELDS = [
  "state",
  "pending",
  "dependents",
  "fn",
  "timer",
  "attempt",
  "resolved",
  "span",
  "slot",
  "placeholders",
  "dependencies",
  "owner",
  "id",
  "tool",
  "args",
];

describe("StepRecord", () => {
  test("its own fields are those most steps use, and nothing else", () => {
    expect(Object.keys(record()).sort()).toEqual([...OWN_FIELDS].sort());
  });

  const controller = new AbortController();
  const rows = [
    { field: "controller", unset: undefined, value: controller },
    { field: "abortReason", unset: undefined, value: { reason: "stopped" } },
    { field: "retryFailure", unset: undefined, value: { code: "tool-error", detail: "down" } },
    { field: "retryEndMs", unset: 0, value: 12.5 },
    { field: "unresolved", unset: undefined, value: { error: new Error("no such step") } },
  ] as const;

  test.each(rows)("$field: unset on a new record, kept once set, cleared back", ({ field, unset, value }) => {
    const step = record() as unknown as Record<string, unknown>;
    expect(step[field]).toBe(unset);
    step[field] = unset; // clearing a record that never had it changes nothing
    expect(step[field]).toBe(unset);
    step[field] = value;
    expect(step[field]).toBe(value);
    for (const other of rows) if (other.field !== field) expect(step[other.field]).toBe(other.unset);
    step[field] = unset;
    expect(step[field]).toBe(unset);
    expect(Object.keys(step).sort()).toEqual([...OWN_FIELDS].sort());
  });
});
