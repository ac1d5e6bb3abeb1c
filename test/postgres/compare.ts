/** A report reduced to what two executors must agree on (maps as sorted entries, skipped as a sorted list). */
import type { RunReport } from "../../src/run/run-plan.js";

export function comparable(
  report: Pick<RunReport, "status" | "results" | "errors" | "skipped" | "diagnostics" | "timings" | "pending">,
): unknown {
  const byId = <T>(entries: Iterable<[number, T]>): [number, T][] => [...entries].sort((a, b) => a[0] - b[0]);
  return {
    status: report.status,
    results: byId(report.results),
    errors: byId(
      [...report.errors].map(
        ([id, error]) =>
          [
            id,
            {
              code: error.code,
              message: error.message,
              name: error.name,
              stepId: error.stepId,
              tool: error.tool,
              arg: error.arg,
              ref: error.ref,
            },
          ] as [number, unknown],
      ),
    ),
    skipped: [...report.skipped].sort((a, b) => a - b),
    pending: byId(report.pending ?? []),
    diagnostics: report.diagnostics.map((d) => ({ code: d.code, severity: d.severity, message: d.message, pointer: d.pointer })),
    timed: [...report.timings.steps.keys()].sort((a, b) => a - b),
  };
}
