/**
 * Progress of `plan-refs run` on stderr: on a terminal a live table of the steps (redrawn in place),
 * otherwise one plain line per event, which logs and CI keep readably.
 */
import pc from "picocolors";
import type { RunEvent } from "../run/run-plan.js";

type State = "waiting" | "running" | "done" | "failed" | "skipped";

interface Row {
  readonly id: number;
  readonly tool: string;
  state: State;
  detail: string;
}

/** A progress view: feed it events, call `finish` at the end. */
export interface Progress {
  readonly onEvent: (event: RunEvent) => void;
  readonly finish: () => void;
}

const ms = (value: number): string => `${Math.round(value)} ms`;

/** One line per event, for pipes and logs. */
export function lineProgress(write: (text: string) => void): Progress {
  return {
    onEvent(event) {
      const head = `step ${event.stepId} (${event.tool})`;
      switch (event.type) {
        case "step-start":
          return write(`${head} started at ${ms(event.startMs)}\n`);
        case "step-done":
          return write(`${head} done in ${ms(event.durationMs)}\n`);
        case "step-failed":
          return write(`${head} failed after ${ms(event.durationMs)}: ${event.error.message}\n`);
        case "step-skipped":
          return write(`${head} skipped: step ${event.blockedBy} did not succeed\n`);
      }
    },
    finish() {},
  };
}

/** A live table redrawn in place, for terminals. */
export function liveProgress(write: (text: string) => void, steps: readonly { id: number; tool: string }[]): Progress {
  const rows = new Map<number, Row>(steps.map((step) => [step.id, { ...step, state: "waiting", detail: "" }]));
  let drawn = 0;
  const colour: Record<State, (text: string) => string> = { waiting: pc.dim, running: pc.cyan, done: pc.green, failed: pc.red, skipped: pc.yellow };
  const draw = (): void => {
    const lines = [...rows.values()].map((row) => `  ${colour[row.state](row.state.padEnd(8))} step ${String(row.id).padEnd(4)} ${row.tool.padEnd(16)} ${pc.dim(row.detail)}`);
    write(`${drawn > 0 ? `\u001b[${drawn}A` : ""}${lines.map((line) => `\u001b[2K${line}`).join("\n")}\n`);
    drawn = lines.length;
  };
  draw();
  return {
    onEvent(event) {
      const row = rows.get(event.stepId) ?? { id: event.stepId, tool: event.tool, state: "waiting" as State, detail: "" };
      rows.set(event.stepId, row);
      switch (event.type) {
        case "step-start":
          row.state = "running";
          row.detail = `started at ${ms(event.startMs)}`;
          break;
        case "step-done":
          row.state = "done";
          row.detail = ms(event.durationMs);
          break;
        case "step-failed":
          row.state = "failed";
          row.detail = event.error.message.slice(0, 80);
          break;
        case "step-skipped":
          row.state = "skipped";
          row.detail = `step ${event.blockedBy} did not succeed`;
          break;
      }
      draw();
    },
    finish: draw,
  };
}
