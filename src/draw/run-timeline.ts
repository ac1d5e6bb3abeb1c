/**
 * A finished run as a timeline (Gantt chart): one row per step, in the order the steps started, a bar
 * from its start to its end coloured by outcome, arrows from the end of a producer to the start of
 * its consumer (when the plan is given), the critical path outlined, a time axis on top. The chart has
 * a fixed width (time is scaled to fit) and one row per step, so a long run grows downwards only (it
 * scrolls vertically). Steps that never ran (skipped) have no bar: a dashed marker stands at the time
 * their last dependency ended. A step waiting for approval has a dashed bar from when its turn came
 * to the run's end: the time it waited.
 */
import { ownOption, planPicture, pushTo } from "./plan-model.js";
import type { PlacedLabel } from "./plan-layout.js";
import { arrowDefs, mermaidText, textElement } from "./plan-svg.js";
import { escapeXml, FONT_FAMILY, fitText, num, tooltip } from "./text.js";
import type { RunReport } from "../run/run-plan.js";
import { reportField } from "../run/run-report.js";
import { RefError } from "../shared/errors.js";

/**
 * How a step of a run ended. `not-run`: in the plan, but the run never reached it (an `invalid` run,
 * or a step waiting on one that waits); `waiting`: its turn came and it waits for approval.
 */
export type StepOutcome = "ok" | "failed" | "aborted" | "skipped" | "waiting" | "not-run";

/** Options of `layoutRun`, `runToSvg` and `runToMermaid`. */
export interface DrawRunOptions {
  /** The plan that ran: its tools name the rows and its references draw the dependency arrows. */
  readonly plan?: unknown;
}

/**
 * Sizes of the timeline, in pixels.
 *
 * @example
 * RUN_GEOMETRY.rowHeight * 1000 // 22,000: a 1,000-step run's rows, to scroll through
 */
export const RUN_GEOMETRY = Object.freeze({
  labelWidth: 208,
  chartWidth: 720,
  rowHeight: 22,
  barHeight: 14,
  padding: 16,
  /** From the top to the first row: the title line and the axis. */
  header: 56,
  legend: 30,
  labelFont: 12,
  barFont: 10,
  axisFont: 10,
  /** Width of the marker of a step that never ran. */
  marker: 8,
});

/** One row of the timeline. */
export interface TimelineRow {
  readonly id: number;
  readonly tool: string;
  readonly outcome: StepOutcome;
  /** Milliseconds from the run's start; `undefined` for a step that never ran. */
  readonly startMs: number | undefined;
  readonly endMs: number | undefined;
  /** Where the row stands in time: its start, or for a step that never ran, when its last dependency ended. */
  readonly atMs: number;
  /** The bar (or the marker of a step that never ran). */
  readonly bar: { readonly x: number; readonly y: number; readonly width: number; readonly height: number };
  readonly label: PlacedLabel;
  /** The duration, inside the bar or after it when there is room. */
  readonly duration: PlacedLabel | undefined;
  readonly critical: boolean;
  readonly tooltip: string;
  /**
   * A step tried more than once: each try (its times and its bar), the waits between them are the
   * gaps, the last try ends with the row's bar (`report.attemptTimes`); absent for a step tried once.
   */
  readonly tries?: readonly { readonly startMs: number; readonly endMs: number; readonly x: number; readonly width: number }[];
}

/** A dependency arrow from the end of `from`'s bar to the start of `to`'s. */
export interface TimelineEdge {
  readonly from: number;
  readonly to: number;
  readonly path: string;
  readonly critical: boolean;
}

/** The timeline's geometry, as `runToSvg` draws it. */
export interface RunLayout {
  readonly width: number;
  readonly height: number;
  readonly totalMs: number;
  readonly rows: readonly TimelineRow[];
  readonly edges: readonly TimelineEdge[];
  /** Axis ticks: time and x. */
  readonly ticks: readonly { readonly ms: number; readonly x: number; readonly label: PlacedLabel }[];
  /** The critical path, first step first. */
  readonly criticalPath: readonly number[];
  readonly title: PlacedLabel;
  readonly summary: string;
  /** Where the rows start and end (the axis and grid lines span this). */
  readonly top: number;
  readonly bottom: number;
  readonly chartLeft: number;
}

const R = RUN_GEOMETRY;

/**
 * Fill, stroke and text colour of each outcome.
 *
 * @example
 * OUTCOME_COLORS.failed.fill // "#dc2626"
 */
export const OUTCOME_COLORS: Readonly<Record<StepOutcome, { readonly fill: string; readonly stroke: string; readonly text: string }>> =
  Object.freeze({
    ok: { fill: "#22c55e", stroke: "#15803d", text: "#ffffff" },
    failed: { fill: "#dc2626", stroke: "#991b1b", text: "#ffffff" },
    aborted: { fill: "#f59e0b", stroke: "#b45309", text: "#111827" },
    skipped: { fill: "#f3f4f6", stroke: "#9ca3af", text: "#374151" },
    waiting: { fill: "#ede9fe", stroke: "#7c3aed", text: "#4c1d95" },
    "not-run": { fill: "#ffffff", stroke: "#d1d5db", text: "#374151" },
  });
const CRITICAL = "#111827";

function place(text: string, maxWidth: number, fontSize: number, x: number, y: number, anchor: PlacedLabel["anchor"]): PlacedLabel {
  const fitted = fitText(text, maxWidth, fontSize);
  const left = anchor === "start" ? x : anchor === "end" ? x - fitted.width : x - fitted.width / 2;
  return {
    text: fitted.text,
    cut: fitted.cut,
    fontSize,
    x,
    y,
    anchor,
    box: { x: left, y: y - fontSize * 0.8, width: fitted.width, height: fontSize },
  };
}

/** A 1-2-5 step giving about `count` ticks over `total`. */
function tickStep(total: number, count: number): number {
  const raw = total / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const factor of [1, 2, 5, 10]) if (factor * power >= raw) return factor * power;
  return 10 * power;
}

/**
 * Milliseconds as an axis or tooltip shows them.
 *
 * @example
 * formatMs(12.345) // "12.3 ms"
 * formatMs(1234.5) // "1,235 ms"
 * formatMs(65432) // "65.4 s"
 */
export function formatMs(ms: number): string {
  if (ms >= 10_000) return `${Number((ms / 1000).toFixed(ms >= 100_000 ? 0 : 1)).toLocaleString("en")} s`;
  if (ms >= 100 || Number.isInteger(ms)) return `${Math.round(ms).toLocaleString("en")} ms`;
  return `${Number(ms.toFixed(ms >= 10 ? 1 : 2))} ms`;
}

const finite = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

/** The most tries of one step a timeline draws (a policy's attempts may be many more). */
const MAX_TRIES_DRAWN = 100;

interface ReadReport {
  readonly status: string;
  readonly totalMs: number;
  readonly timings: Map<number, { startMs: number; endMs: number }>;
  readonly results: ReadonlySet<number>;
  readonly errors: Map<number, { code: string; message: string; tool: string | undefined }>;
  readonly skipped: ReadonlySet<number>;
  readonly pending: ReadonlySet<number>;
  /** Steps whose results a resume took from the previous run. */
  readonly reused: ReadonlySet<number>;
  /** The tries of each step tried more than once, within the step's timing. */
  readonly tries: Map<number, { startMs: number; endMs: number }[]>;
}

/** The parts of a report the timeline needs, read as own data (a getter is never run, but `runPlan`'s own: `reportField`). */
function readReport(report: unknown): ReadReport {
  if (typeof report !== "object" || report === null) throw new RefError("invalid-options", "runToSvg needs the report of runPlan");
  const mapOf = (value: unknown): Map<unknown, unknown> => (value instanceof Map ? value : new Map());
  const timingsValue = reportField(report, "timings");
  const timings = new Map<number, { startMs: number; endMs: number }>();
  for (const [id, timing] of mapOf(reportField(timingsValue, "steps"))) {
    const start = finite(ownOption(timing, "startMs"));
    const end = finite(ownOption(timing, "endMs"));
    if (typeof id === "number" && start !== undefined && end !== undefined)
      timings.set(id, { startMs: Math.max(0, start), endMs: Math.max(start, end) });
  }
  const errors = new Map<number, { code: string; message: string; tool: string | undefined }>();
  for (const [id, error] of mapOf(ownOption(report, "errors"))) {
    if (typeof id !== "number") continue;
    const code = ownOption(error, "code");
    const message = ownOption(error, "message");
    const tool = ownOption(error, "tool");
    errors.set(id, {
      code: typeof code === "string" ? code : "tool-error",
      message: typeof message === "string" ? message : "",
      tool: typeof tool === "string" ? tool : undefined,
    });
  }
  const results = new Set([...mapOf(ownOption(report, "results")).keys()].filter((id): id is number => typeof id === "number"));
  const skippedValue = ownOption(report, "skipped");
  const skipped = new Set(Array.isArray(skippedValue) ? skippedValue.filter((id): id is number => typeof id === "number") : []);
  const pending = new Set([...mapOf(ownOption(report, "pending")).keys()].filter((id): id is number => typeof id === "number"));
  const reusedValue = ownOption(report, "reused");
  const reused = new Set(Array.isArray(reusedValue) ? reusedValue.filter((id): id is number => typeof id === "number") : []);
  const tries = new Map<number, { startMs: number; endMs: number }[]>();
  for (const [id, list] of mapOf(ownOption(report, "attemptTimes"))) {
    const timing = typeof id === "number" ? timings.get(id) : undefined;
    if (timing === undefined || !Array.isArray(list)) continue;
    // Within the step's bar and in order: a try that says otherwise is left out.
    const read: { startMs: number; endMs: number }[] = [];
    for (const each of list.slice(0, MAX_TRIES_DRAWN)) {
      const start = finite(ownOption(each, "startMs"));
      const end = finite(ownOption(each, "endMs"));
      if (start === undefined || end === undefined || start < (read.at(-1)?.endMs ?? timing.startMs) || end < start || end > timing.endMs)
        continue;
      read.push({ startMs: start, endMs: end });
    }
    if (read.length > 1) tries.set(id as number, read);
  }
  const status = ownOption(report, "status");
  return {
    status: typeof status === "string" ? status : "unknown",
    totalMs: finite(ownOption(timingsValue, "totalMs")) ?? 0,
    timings,
    results,
    errors,
    skipped,
    pending,
    reused,
    tries,
  };
}

const plural = (n: number, word: string): string => `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;

/**
 * A retried step's bar: the whole span dashed and pale (the waits between tries show through), each
 * failed try in the failed colours, the last try in the step's outcome's.
 */
function triesSvg(row: TimelineRow, colors: { readonly fill: string; readonly stroke: string }, stroke: string): string {
  const tries = row.tries!;
  const span = `<rect class="plan-refs-retry-wait" x="${num(row.bar.x)}" y="${num(row.bar.y + row.bar.height / 4)}" width="${num(row.bar.width)}" height="${num(row.bar.height / 2)}" rx="2" fill="#ffffff" stroke="${colors.stroke}" stroke-width="1" stroke-dasharray="3 2"/>`;
  const bars = tries.map((each, i) => {
    const last = i === tries.length - 1;
    const fill = last ? colors.fill : OUTCOME_COLORS.failed.fill;
    const edge = last ? stroke : `stroke="${OUTCOME_COLORS.failed.stroke}" stroke-width="1"`;
    return `<rect class="plan-refs-try" data-try="${i + 1}" x="${num(each.x)}" y="${num(row.bar.y)}" width="${num(each.width)}" height="${row.bar.height}" rx="2" fill="${fill}" ${edge}/>`;
  });
  return span + bars.join("");
}

/**
 * Lay out the timeline of a finished run (`runPlan`'s report); with `plan`, rows are named by tool
 * and dependencies drawn. `runToSvg` draws exactly this. Never throws on a report; a value that is
 * not an object is a `RefError` (`invalid-options`).
 *
 * @example
 * const report = await runPlan({ steps: [{ id: 1, tool: "now", args: {} }] }, { now: () => 1 });
 * layoutRun(report).rows[0]?.outcome // "ok"
 */
export function layoutRun(report: RunReport, options?: DrawRunOptions): RunLayout {
  const read = readReport(report);
  const plan = ownOption(options, "plan");
  const picture = plan === undefined ? undefined : planPicture(plan, { diagnostics: [] });
  const toolOf = new Map<number, string>();
  for (const step of picture?.steps ?? []) if (step.kind !== "missing") toolOf.set(step.id, step.tool);
  for (const [id, error] of read.errors) if (!toolOf.has(id) && error.tool !== undefined) toolOf.set(id, error.tool);
  const dependencies = new Map<number, number[]>();
  for (const edge of picture?.edges ?? []) if (edge.state !== "missing" && edge.from !== edge.to) pushTo(dependencies, edge.to, edge.from);

  const ids = new Set<number>([
    ...toolOf.keys(),
    ...read.timings.keys(),
    ...read.results,
    ...read.errors.keys(),
    ...read.skipped,
    ...read.pending,
  ]);
  const outcomeOf = (id: number): StepOutcome => {
    const error = read.errors.get(id);
    if (error !== undefined) return error.code === "aborted" ? "aborted" : "failed";
    if (read.results.has(id)) return "ok";
    if (read.skipped.has(id)) return "skipped";
    if (read.pending.has(id)) return "waiting";
    return read.timings.has(id) ? "aborted" : "not-run";
  };
  // A step without timing stands where its dependencies ended (or stand, for those that never ran
  // either): levels are in dependency order, so each dependency is placed before its dependents.
  const atOf = new Map<number, number>();
  const at = (id: number): number => {
    const timing = read.timings.get(id);
    if (timing !== undefined) return timing.startMs;
    let latest = 0;
    for (const dependency of dependencies.get(id) ?? [])
      latest = Math.max(latest, read.timings.get(dependency)?.endMs ?? atOf.get(dependency) ?? 0);
    return latest;
  };
  for (const level of picture?.levels ?? []) for (const id of level) atOf.set(id, at(id));
  for (const id of ids) if (!atOf.has(id)) atOf.set(id, at(id));
  const order = [...ids].map((id) => ({ id, at: atOf.get(id)! })).sort((a, b) => a.at - b.at || a.id - b.id);

  let totalMs = read.totalMs;
  for (const { at: time } of order) totalMs = Math.max(totalMs, time);
  for (const timing of read.timings.values()) totalMs = Math.max(totalMs, timing.endMs);
  // At least a millisecond: a run of no-op tools still gets a readable axis (and a tick step above 0).
  const span = Math.max(1, totalMs);
  const chartLeft = R.padding + R.labelWidth;
  const x = (ms: number): number => chartLeft + (ms / span) * R.chartWidth;
  const top = R.padding + R.header;

  // The critical path: back from the step that ended last, each time to the dependency that ended last.
  // A waiting step "ends" with the run without having run: the path is of the steps that ran.
  const criticalPath: number[] = [];
  let last: number | undefined;
  for (const [id, timing] of read.timings)
    if (!read.pending.has(id) && (last === undefined || timing.endMs > read.timings.get(last)!.endMs)) last = id;
  const onPath = new Set<number>();
  for (let current = last; current !== undefined && !onPath.has(current);) {
    onPath.add(current);
    criticalPath.push(current);
    let next: number | undefined;
    for (const dependency of dependencies.get(current) ?? []) {
      const end = read.timings.get(dependency)?.endMs;
      if (end !== undefined && (next === undefined || end > read.timings.get(next)!.endMs)) next = dependency;
    }
    current = next;
  }
  criticalPath.reverse();
  const pathIndex = new Map(criticalPath.map((id, i) => [id, i]));

  const rowOf = new Map<number, number>();
  const rows: TimelineRow[] = order.map(({ id, at: time }, index) => {
    rowOf.set(id, index);
    const timing = read.timings.get(id);
    const outcome = outcomeOf(id);
    const tool = toolOf.get(id) ?? "";
    const y = top + index * R.rowHeight + (R.rowHeight - R.barHeight) / 2;
    const start = x(timing?.startMs ?? time);
    const width = timing === undefined ? R.marker : Math.max(2, x(timing.endMs) - start);
    const barX = timing === undefined ? Math.min(start, chartLeft + R.chartWidth - R.marker) : start;
    const baseline = top + index * R.rowHeight + R.rowHeight / 2 + 4;
    const label = place(tool === "" ? `$${id}` : `$${id} ${tool}`, R.labelWidth - 12, R.labelFont, R.padding, baseline, "start");
    let duration: PlacedLabel | undefined;
    if (timing !== undefined) {
      const text = formatMs(timing.endMs - timing.startMs);
      const inside = place(text, width - 6, R.barFont, barX + 3, baseline - 1, "start");
      const after = place(
        text,
        chartLeft + R.chartWidth + R.padding - (barX + width + 4),
        R.barFont,
        barX + width + 4,
        baseline - 1,
        "start",
      );
      duration = !inside.cut && inside.text !== "…" ? inside : !after.cut ? after : undefined;
    }
    const lines = [`Step ${id}${tool === "" ? "" : ` (${tool})`}: ${outcome === "waiting" ? "waiting for approval" : outcome}`];
    if (outcome === "waiting" && timing !== undefined)
      lines.push(
        `its turn came at ${formatMs(timing.startMs)}; it waited ${formatMs(timing.endMs - timing.startMs)} (its tool was not called)`,
      );
    else if (timing !== undefined)
      lines.push(`from ${formatMs(timing.startMs)} to ${formatMs(timing.endMs)} (${formatMs(timing.endMs - timing.startMs)})`);
    else if (read.reused.has(id)) lines.push("its result was taken from the previous run (not called again)");
    else
      lines.push(outcome === "not-run" ? "never ran" : "never ran: a step it depends on failed or was skipped, or the run stopped first");
    const tries = read.tries.get(id);
    tries?.forEach((each, i) => {
      const waited = i + 1 < tries.length ? `; then waited ${formatMs(tries[i + 1]!.startMs - each.endMs)}` : "";
      lines.push(
        `try ${i + 1}: from ${formatMs(each.startMs)} to ${formatMs(each.endMs)} (${formatMs(each.endMs - each.startMs)})${i + 1 < tries.length ? ", failed" : ""}${waited}`,
      );
    });
    const error = read.errors.get(id);
    if (error !== undefined) lines.push(`${error.code}: ${error.message}`);
    if (onPath.has(id)) lines.push("on the critical path");
    return {
      id,
      tool,
      outcome,
      startMs: timing?.startMs,
      endMs: timing?.endMs,
      atMs: time,
      bar: { x: barX, y, width, height: R.barHeight },
      label,
      duration,
      critical: onPath.has(id),
      tooltip: lines.map((line) => tooltip(line)).join("\n"),
      ...(tries === undefined
        ? {}
        : { tries: tries.map((each) => ({ ...each, x: x(each.startMs), width: Math.max(1, x(each.endMs) - x(each.startMs)) })) }),
    };
  });

  const edges: TimelineEdge[] = [];
  for (const row of rows) {
    for (const from of dependencies.get(row.id) ?? []) {
      const source = rows[rowOf.get(from)!];
      if (source === undefined || source.startMs === undefined) continue;
      const x1 = source.bar.x + source.bar.width;
      const y1 = source.bar.y + source.bar.height / 2;
      const y2 = row.bar.y + row.bar.height / 2;
      const x2 = row.bar.x - 1;
      // Down (or up) from the producer's end, then along the consumer's row to its start.
      const path = `M ${num(x1)} ${num(y1 + (y2 > y1 ? source.bar.height / 2 : -source.bar.height / 2))} V ${num(y2)} H ${num(Math.max(x2, x1 + 0.01))}`;
      edges.push({
        from,
        to: row.id,
        path,
        critical: onPath.has(from) && onPath.has(row.id) && pathIndex.get(row.id) === pathIndex.get(from)! + 1,
      });
    }
  }

  const step = tickStep(span, 8);
  const ticks: RunLayout["ticks"][number][] = [];
  for (let k = 0, ms = 0; ms <= span + step * 1e-9 && k <= 20; k++, ms = k * step)
    ticks.push({ ms, x: x(ms), label: place(formatMs(Number(ms.toPrecision(12))), 80, R.axisFont, x(ms), top - 12, "middle") });

  const counts = new Map<StepOutcome, number>();
  for (const row of rows) counts.set(row.outcome, (counts.get(row.outcome) ?? 0) + 1);
  const parts = (["ok", "failed", "aborted", "skipped", "waiting", "not-run"] as const)
    .filter((outcome) => (counts.get(outcome) ?? 0) > 0)
    .map((outcome) => `${counts.get(outcome)} ${outcome}`);
  let summary = `Run ${read.status}: ${plural(rows.length, "step")}${parts.length > 0 ? ` (${parts.join(", ")})` : ""} in ${formatMs(read.totalMs)}`;
  if (criticalPath.length > 0) summary += `; critical path ${criticalPath.map((id) => `$${id}`).join(" → ")}`;
  const width = chartLeft + R.chartWidth + R.padding + 48;
  const bottom = top + rows.length * R.rowHeight;
  return {
    width,
    height: bottom + R.legend + R.padding,
    totalMs: span,
    rows,
    edges,
    ticks,
    criticalPath,
    title: place(summary, width - 2 * R.padding, R.labelFont, R.padding, R.padding + 12, "start"),
    summary: tooltip(summary),
    top,
    bottom,
    chartLeft,
  };
}

/**
 * The SVG of a layout from `layoutRun` (what `runToSvg` returns): for a caller that reads the
 * critical path or the rows before drawing.
 *
 * @example
 * const layout = layoutRun(report, { plan });
 * console.log(layout.criticalPath); // [1, 2, 4]
 * const svg = runLayoutToSvg(layout); // === runToSvg(report, { plan })
 */
export function runLayoutToSvg(layout: RunLayout): string {
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="plan-refs-timeline" width="${num(layout.width)}" height="${num(layout.height)}" viewBox="0 0 ${num(layout.width)} ${num(layout.height)}" role="img" font-family="${escapeXml(FONT_FAMILY)}">`,
  );
  out.push(`<title>${escapeXml(layout.summary)}</title>`);
  out.push(arrowDefs("plan-refs-timeline-arrow", { dependency: "#9ca3af", critical: CRITICAL }, 6));
  out.push(`<rect class="plan-refs-background" width="100%" height="100%" fill="#ffffff"/>`);
  out.push(textElement(layout.title, `class="plan-refs-timeline-title" fill="#111827" font-weight="700"`));
  // Stripes, so that a label can be followed to its bar across a wide chart.
  out.push(`<g class="plan-refs-stripes" fill="#f9fafb">`);
  layout.rows.forEach((_, i) => {
    if (i % 2 === 1)
      out.push(
        `<rect x="${R.padding}" y="${num(layout.top + i * R.rowHeight)}" width="${num(layout.width - 2 * R.padding)}" height="${R.rowHeight}"/>`,
      );
  });
  out.push(`</g>`);
  out.push(`<g class="plan-refs-axis" stroke="#e5e7eb">`);
  out.push(
    `<line x1="${num(layout.chartLeft)}" y1="${num(layout.top - 4)}" x2="${num(layout.chartLeft + R.chartWidth)}" y2="${num(layout.top - 4)}" stroke="#6b7683"/>`,
  );
  for (const tick of layout.ticks) {
    out.push(`<line x1="${num(tick.x)}" y1="${num(layout.top - 8)}" x2="${num(tick.x)}" y2="${num(layout.bottom)}"/>`);
    out.push(textElement(tick.label, `fill="#6b7683" stroke="none"`));
  }
  out.push(`</g>`);
  for (const row of layout.rows) out.push(textElement(row.label, `class="plan-refs-row-label" data-step="${row.id}" fill="#374151"`));
  out.push(`<g class="plan-refs-dependencies" fill="none">`);
  for (const edge of layout.edges) {
    out.push(
      `<path class="plan-refs-dependency${edge.critical ? " plan-refs-critical" : ""}" data-from="${edge.from}" data-to="${edge.to}" d="${edge.path}" stroke="${edge.critical ? CRITICAL : "#9ca3af"}" stroke-width="${edge.critical ? 1.8 : 1}" marker-end="url(#plan-refs-timeline-arrow-${edge.critical ? "critical" : "dependency"})"/>`,
    );
  }
  out.push(`</g>`);
  for (const row of layout.rows) {
    const colors = OUTCOME_COLORS[row.outcome];
    const dashed = row.startMs === undefined || row.outcome === "waiting" ? ` stroke-dasharray="3 2"` : "";
    const stroke = row.critical ? `stroke="${CRITICAL}" stroke-width="2"` : `stroke="${colors.stroke}" stroke-width="1"`;
    out.push(
      `<g class="plan-refs-bar plan-refs-${row.outcome}${row.critical ? " plan-refs-critical" : ""}" data-step="${row.id}"><title>${escapeXml(row.tooltip)}</title>` +
        (row.tries === undefined
          ? `<rect x="${num(row.bar.x)}" y="${num(row.bar.y)}" width="${num(row.bar.width)}" height="${row.bar.height}" rx="2" fill="${colors.fill}" ${stroke}${dashed}/>`
          : triesSvg(row, colors, stroke)) +
        (row.duration === undefined
          ? ""
          : textElement(row.duration, `fill="${row.duration.x < row.bar.x + row.bar.width ? colors.text : "#374151"}"`)) +
        `</g>`,
    );
  }
  // The legend.
  const legendY = layout.bottom + 20;
  let lx = R.padding;
  const entries: [string, string, string][] = [
    ["ok", OUTCOME_COLORS.ok.fill, OUTCOME_COLORS.ok.stroke],
    ["failed", OUTCOME_COLORS.failed.fill, OUTCOME_COLORS.failed.stroke],
    ["aborted", OUTCOME_COLORS.aborted.fill, OUTCOME_COLORS.aborted.stroke],
    ["skipped", OUTCOME_COLORS.skipped.fill, OUTCOME_COLORS.skipped.stroke],
    // Only in a picture that has one: every other picture stays as it was.
    ...(layout.rows.some((row) => row.outcome === "waiting")
      ? [["waiting", OUTCOME_COLORS.waiting.fill, OUTCOME_COLORS.waiting.stroke] as [string, string, string]]
      : []),
    ["critical path", "#ffffff", CRITICAL],
  ];
  out.push(`<g class="plan-refs-legend" font-size="11" fill="#374151">`);
  for (const [name, fill, stroke] of entries) {
    out.push(
      `<rect x="${lx}" y="${legendY - 10}" width="14" height="10" rx="2" fill="${fill}" stroke="${stroke}" stroke-width="${name === "critical path" ? 2 : 1}"/><text x="${lx + 19}" y="${legendY}">${name}</text>`,
    );
    lx += 19 + name.length * 7 + 18;
  }
  out.push(`</g>`);
  out.push(`</svg>`);
  return out.join("\n");
}

/**
 * The timeline (Gantt chart) of a finished run as a standalone SVG document: one bar per step from
 * its start to its end, coloured by outcome (ok, failed, aborted, skipped, waiting for approval), dependency arrows from a
 * producer's end to its consumer's start (with `plan`), the critical path outlined, a time axis. Safe
 * to open whatever the plan's names (everything escaped, no script, no external reference).
 *
 * @example
 * const plan = { steps: [{ id: 1, tool: "now", args: {} }, { id: 2, tool: "echo", args: { x: "$1" } }] };
 * const report = await runPlan(plan, { now: () => 1, echo: (args) => args });
 * runToSvg(report, { plan }).includes('data-from="1" data-to="2"') // true
 */
export function runToSvg(report: RunReport, options?: DrawRunOptions): string {
  return runLayoutToSvg(layoutRun(report, options));
}

/**
 * The timeline of a finished run as a Mermaid Gantt chart (`dateFormat x`: milliseconds from the
 * run's start): failed steps `crit`, aborted `crit, done`, steps on the critical path `active`,
 * steps that never ran as milestones. Task names escaped with entity codes.
 *
 * @example
 * const report = await runPlan({ steps: [{ id: 1, tool: "now", args: {} }] }, { now: () => 1 });
 * runToMermaid(report).split("\n")[0] // "gantt"
 */
export function runToMermaid(report: RunReport, options?: DrawRunOptions): string {
  const layout = layoutRun(report, options);
  const lines = [
    "gantt",
    `  title ${mermaidText(fitText(layout.summary, 120, 1 / 0.62).text)}`,
    "  dateFormat x",
    `  axisFormat ${layout.totalMs >= 60_000 ? "%M:%S" : "%S.%L s"}`,
  ];
  if (layout.criticalPath.length > 0) lines.push(`  %% critical path: ${layout.criticalPath.map((id) => `s${id}`).join(" ")}`);
  const waiting = layout.rows.filter((row) => row.outcome === "waiting");
  if (waiting.length > 0) lines.push(`  %% waiting for approval: ${waiting.map((row) => `s${row.id}`).join(" ")}`);
  lines.push("  section steps");
  for (const row of layout.rows) {
    const name = mermaidText(fitText(row.tool === "" ? `$${row.id}` : `$${row.id} ${row.tool}`, 48, 1 / 0.62).text);
    const tags: string[] = [];
    if (row.outcome === "failed") tags.push("crit");
    if (row.outcome === "aborted") tags.push("crit", "done");
    if (row.critical && row.outcome === "ok") tags.push("active");
    if (row.startMs === undefined) tags.push("milestone");
    const start = Math.round(row.atMs);
    const end = row.endMs === undefined ? start : Math.max(start + 1, Math.round(row.endMs));
    lines.push(`  ${name} :${[...tags, `s${row.id}`, String(start), String(end)].join(", ")}`);
  }
  return `${lines.join("\n")}\n`;
}
