/**
 * Hover on a reference: the step it points at, the step's tool and its description, and the schema
 * of the value the reference selects (from the tool's output schema), as Markdown.
 */
import type { Span } from "../shared/span.js";
import { cursorAt, fileSpan, pathOf, referenceAt, segmentEnd, segmentStart, stepNumber } from "./cursor.js";
import { ownData } from "../shared/own-data.js";
import type { EditorOptions } from "./editor-options.js";
import { withFallback } from "./guard.js";
import { analyzePlan } from "./plan-document.js";
import { safeJson } from "./safe-json.js";
import { dereference, schemasAt } from "./schema-at.js";

/** A hover: Markdown, and the file span of the reference part it describes. */
export interface Hover {
  readonly markdown: string;
  readonly span: Span;
}

/**
 * The hover at file offset `offset`: on a reference's `$` or step, the step's whole result; on a path
 * segment, the value selected up to that segment. Never throws.
 *
 * @example
 * hoverAt(planText, offsetOf("$1.ci|ty"))?.markdown
 * // "**Step 1** · `geocode`\n\nFind a city.\n\n`$1.city`:\n\n```json\n{\n  \"type\": \"string\"\n}\n```"
 */
export function hoverAt(planText: string, offset: number, options?: EditorOptions): Hover | undefined {
  return withFallback("hoverAt", undefined, () => hover(planText, offset, options));
}

function hover(planText: string, offset: number, options: EditorOptions | undefined): Hover | undefined {
  const document = analyzePlan(planText, options);
  const cursor = cursorAt(document, offset);
  if (cursor === undefined) return undefined;
  const reference = referenceAt(cursor.lexed, cursor.at);
  const id = reference === undefined ? undefined : stepNumber(cursor.site.string.value, reference);
  if (reference === undefined || id === undefined) return undefined;
  const value = cursor.site.string.value;

  // The segments up to the one under the cursor (none when it is on the `$` or the step).
  let count = 0;
  reference.segments.forEach((segment, i) => {
    if (segmentStart(segment) <= cursor.at) count = i + 1;
  });
  const segments = reference.segments.slice(0, count);
  const end = count === 0 ? reference.step.end : segmentEnd(segments[count - 1]!);
  const span = fileSpan(cursor.site, { start: reference.start, end });
  const expression = (reference.dollar ? "" : "$") + value.slice(reference.start, end);

  const step = document.byId.get(id);
  if (step === undefined) {
    return { markdown: `${code(expression)}: step ${id} is not in the plan.`, span };
  }
  const lines: string[] = [
    `**Step ${id}** · ${step.tool === undefined ? "no tool" : code(step.tool)}${step.id === cursor.site.step?.id ? " (this step itself)" : ""}`,
  ];
  const spec = step.tool === undefined || document.catalog === undefined ? undefined : ownData(document.catalog, step.tool);
  const description = ownData(spec, "description");
  if (typeof description === "string" && description !== "") lines.push(description);
  const output = ownData(spec, "output");
  const path = pathOf(value, segments);
  if (step.tool === undefined) {
    // Nothing more to say about a step without a tool.
  } else if (spec === undefined) {
    lines.push(
      document.catalog === undefined ? "No tool catalog: the value's schema is unknown." : `${code(step.tool)} is not in the tool catalog.`,
    );
  } else if (output === undefined) {
    lines.push(`${code(step.tool)} has no output schema.`);
  } else if (path !== undefined) {
    lines.push(describeValue(expression, output, schemasAt(output, path)));
  }
  return { markdown: lines.join("\n\n"), span };
}

function describeValue(expression: string, output: unknown, lookup: { schemas: readonly unknown[]; open: boolean }): string {
  if (lookup.schemas.length === 0) {
    return lookup.open
      ? `${code(expression)} can be any value: the output schema does not describe it.`
      : `${code(expression)} is not in the output schema.`;
  }
  const shown = lookup.schemas.map((schema) => dereference(output, schema));
  return `${code(expression)}:\n\n${fenced(safeJson(shown.length === 1 ? shown[0] : { anyOf: shown }))}`;
}

/** Inline code that survives backticks in the text. */
function code(text: string): string {
  const fence = "`".repeat(longestBacktickRun(text) + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A fenced JSON block whose fence is longer than any backtick run inside. */
function fenced(json: string): string {
  const fence = "`".repeat(Math.max(3, longestBacktickRun(json) + 1));
  return `${fence}json\n${json}\n${fence}`;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    run = text.charCodeAt(i) === 96 ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}
