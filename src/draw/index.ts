/**
 * `plan-refs/draw`: pictures of plans and runs, as text, with pure functions (no DOM, no external
 * tool). `planToSvg`, `planToMermaid`, `planToDot`: a plan's dependency graph, steps as boxes by
 * execution level from left to right, an arrow per dependency labelled with the keys it reads,
 * missing steps, cycles and lint errors in red. `runToSvg`, `runToMermaid`: a finished run's timeline.
 *
 * Large pictures: a plan's picture grows to the right (one column per level; a level with more than
 * `maxRows` steps, default 12, wraps into more columns), so its height stays bounded and it scrolls
 * horizontally; a run's timeline has a fixed width (time is scaled) and one row per step, so it scrolls
 * vertically. Both are drawn at their natural size (`width`, `height`, `viewBox`): put them in a
 * scrolling container rather than scaling them down.
 *
 * The SVG is safe to open from an untrusted plan: every text escaped, no script, no style sheet, no
 * external reference; a box's labels are cut with `…` to fit the box, an arrow's only past `LONGEST_LABEL`
 * characters (no label ever covers another, a box or a foreign arrow), the full text in a `<title>` tooltip.
 */
export { planToSvg, planToMermaid, planToDot, layoutToSvg, mermaidText, dotText, COLORS } from "./plan-svg.js";
export {
  layoutPlan,
  PLAN_GEOMETRY,
  type PlanLayout,
  type LayoutBox,
  type LayoutEdge,
  type LayoutColumn,
  type PlacedLabel,
} from "./plan-layout.js";
export {
  OUTPUT_NODE,
  planPicture,
  WHOLE_RESULT,
  type DrawPlanOptions,
  type EdgeState,
  type PlanPicture,
  type PictureStep,
  type PictureEdge,
} from "./plan-model.js";
export {
  runToSvg,
  runToMermaid,
  layoutRun,
  runLayoutToSvg,
  formatMs,
  RUN_GEOMETRY,
  OUTCOME_COLORS,
  type DrawRunOptions,
  type RunLayout,
  type StepOutcome,
  type TimelineEdge,
  type TimelineRow,
} from "./run-timeline.js";
export { textWidth, fitText, escapeXml, FONT_FAMILY, LONGEST_LABEL } from "./text.js";
