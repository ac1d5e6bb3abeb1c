/**
 * Progress of `plan-refs run` on stderr: on a terminal a live view redrawn in place, otherwise one
 * plain line per event, which logs and CI keep readably. Every message printed is escaped
 * (`printable`): a tool's error text cannot forge lines or drive the terminal.
 *
 * The live view is bounded: it is redrawn at most `FRAMES_PER_SECOND` times a second, and only the
 * rows that fit the terminal (the steps running now, then one line of counts), so what is written
 * grows with the number of steps, not with its square. A failed step's line is printed once, above
 * the view, where it stays.
 */
import pc from "picocolors";
import type { RunEvent } from "../run/run-plan.js";
import { cutText, printable } from "../shared/text.js";

/** A progress view: feed it events, call `finish` at the end. */
export interface Progress {
  readonly onEvent: (event: RunEvent) => void;
  readonly finish: () => void;
}

/** Most redraws of the live view per second. */
export const FRAMES_PER_SECOND = 10;
/** Widest error detail shown on a line. */
const MAX_DETAIL = 200;

const ms = (value: number): string => `${Math.round(value)} ms`;
const tool = (name: string): string => printable(cutText(name, 60));
const detail = (message: string): string => printable(cutText(message, MAX_DETAIL));

/** What one event says, as one line without its step prefix (also used by the live view). */
function describe(event: RunEvent): string {
  switch (event.type) {
    case "step-start":
      return `started at ${ms(event.startMs)}`;
    case "step-done":
      return `done in ${ms(event.durationMs)}`;
    case "step-failed":
      return `failed after ${ms(event.durationMs)}: ${detail(event.error.message)}`;
    case "step-skipped":
      return `skipped: step ${event.blockedBy} did not succeed`;
    case "step-retry":
      return `${retryingText(event.delayMs, event.attempt + 1, event.attempts)}: ${detail(event.error.message)}`;
    case "step-awaiting-approval":
      return `waiting for approval at ${ms(event.atMs)}`;
  }
}

/**
 * What a step waiting to be tried again shows: the wait in seconds, the next try and the tries in all.
 *
 * @example
 * retryingText(2000, 2, 3) // "retrying in 2.0 s (attempt 2 of 3)"
 */
export function retryingText(delayMs: number, next: number, attempts: number): string {
  return `retrying in ${(delayMs / 1000).toFixed(1)} s (attempt ${next} of ${attempts})`;
}

/**
 * One line per event, for pipes and logs.
 *
 * @example
 * const progress = lineProgress((text) => process.stderr.write(text))
 */
export function lineProgress(write: (text: string) => void): Progress {
  return {
    onEvent(event) {
      write(`step ${event.stepId} (${tool(event.tool)}) ${describe(event)}\n`);
    },
    finish() {},
  };
}

/** Options of the live view. */
export interface LiveOptions {
  /** The terminal's height in rows (default 24): the view uses at most all but two of them. */
  readonly rows?: number | undefined;
  /** The terminal's width in columns (default 100): longer lines are cut. */
  readonly columns?: number | undefined;
}

/**
 * A live view redrawn in place, for terminals: the running steps, then the counts of every state.
 *
 * @example
 * const progress = liveProgress((text) => process.stderr.write(text), 3000, { rows: process.stderr.rows })
 */
export function liveProgress(write: (text: string) => void, total: number, options: LiveOptions = {}): Progress {
  // A pseudo-terminal may report 0 rows and columns: then the defaults.
  const height = Math.max(2, Math.min(40, (options.rows || 24) - 2));
  const width = Math.max(40, Math.min(400, options.columns || 100));
  const running = new Map<number, { tool: string; startMs: number; retrying?: string }>();
  const counts = { done: 0, failed: 0, skipped: 0 };
  let failures: string[] = [];
  let drawn = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastDraw = -Infinity;

  const cut = (line: string): string => (line.length > width ? cutText(line, width - 1, "…") : line);
  const draw = (): void => {
    timer = undefined;
    lastDraw = performance.now();
    const lines: string[] = [];
    const shown = [...running].slice(0, height - 1 - (running.size > height - 1 ? 1 : 0));
    for (const [id, step] of shown) {
      const state = step.retrying === undefined ? pc.cyan("running ") : pc.yellow("waiting ");
      lines.push(
        `  ${state} step ${String(id).padEnd(4)} ${cut(step.tool).padEnd(16)} ${pc.dim(step.retrying ?? `started at ${ms(step.startMs)}`)}`,
      );
    }
    if (shown.length < running.size) lines.push(pc.dim(`  … and ${running.size - shown.length} more running`));
    const waiting = Math.max(0, total - running.size - counts.done - counts.failed - counts.skipped);
    lines.push(
      `  ${pc.cyan(`${running.size} running`)}, ${pc.dim(`${waiting} waiting`)}, ${pc.green(`${counts.done} done`)}, ${pc.red(`${counts.failed} failed`)}, ${pc.yellow(`${counts.skipped} skipped`)}`,
    );
    // Up to the first line of the last view, clear to the end of the screen, then the failures (which
    // stay) and the new view.
    const head = drawn > 0 ? `\u001b[${drawn}A\r\u001b[J` : "";
    write(`${head}${failures.map((line) => `${cut(line)}\n`).join("")}${lines.join("\n")}\n`);
    failures = [];
    drawn = lines.length;
  };
  const schedule = (): void => {
    if (timer !== undefined) return;
    const wait = Math.max(0, 1000 / FRAMES_PER_SECOND - (performance.now() - lastDraw));
    timer = setTimeout(draw, wait);
    timer.unref?.();
  };
  draw();
  return {
    onEvent(event) {
      switch (event.type) {
        case "step-start":
          running.set(event.stepId, { tool: tool(event.tool), startMs: event.startMs });
          break;
        case "step-done":
          running.delete(event.stepId);
          counts.done++;
          break;
        case "step-failed":
          running.delete(event.stepId);
          counts.failed++;
          failures.push(`  ${pc.red("failed  ")} step ${event.stepId} (${tool(event.tool)}): ${describe(event)}`);
          break;
        case "step-skipped":
          counts.skipped++;
          break;
        case "step-awaiting-approval":
          running.delete(event.stepId);
          failures.push(`  ${pc.yellow("waiting ")} step ${event.stepId} (${tool(event.tool)}): ${describe(event)}`);
          break;
        case "step-retry":
          running.set(event.stepId, {
            tool: tool(event.tool),
            startMs: event.atMs,
            retrying: retryingText(event.delayMs, event.attempt + 1, event.attempts),
          });
          break;
      }
      schedule();
    },
    finish() {
      if (timer !== undefined) clearTimeout(timer);
      draw();
    },
  };
}
