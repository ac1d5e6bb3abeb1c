/**
 * Quick fixes (src/editor/quick-fixes.ts): for each diagnostic that knows its fix, the edits; applied,
 * the diagnostic is gone and the JSON is still valid. The language server's code actions and
 * CodeMirror's lint actions are made from these (their own tests drive them through a real client).
 */
import { describe, expect, test } from "vitest";
import { applyTextEdits, quickFixes } from "../../src/editor/index.js";
import { lintPlanText } from "../../src/lint/index.js";

/** A key longer than a fix's title shows: the title is cut with an ellipsis, the edit is whole. */
const LONG = `population_${"x".repeat(51)}`;

const tools = {
  geocode: {
    output: {
      type: "object",
      properties: { longitude: { type: "number" }, "the city": { type: "string" }, [LONG]: { type: "string" } },
      additionalProperties: false,
    },
  },
  weather: {
    input: {
      type: "object",
      properties: {
        lat: { type: "number" },
        units: { type: "string" },
        days: { type: "integer" },
        flags: { type: "array" },
        mode: { type: "object", properties: { kind: { type: "string" } }, required: ["kind"] },
      },
      required: ["lat", "units"],
      additionalProperties: false,
    },
  },
};

const plan = (steps: unknown[]) => JSON.stringify({ options: { syntax: "path" }, steps });

const rows: [string, string, string, string][] = [
  [
    "unknown-key: .key",
    plan([
      { id: 1, tool: "geocode" },
      { id: 2, tool: "weather", args: { lat: "$1.longtitude", units: "m" } },
    ]),
    "Change to .longitude",
    '"$1.longitude"',
  ],
  [
    "unknown-key: a quoted key, escaped inside the string",
    plan([
      { id: 1, tool: "geocode" },
      { id: 2, tool: "weather", args: { lat: 1, units: '$1["the ctiy"]' } },
    ]),
    'Change to ["the city"]',
    '"$1[\\"the city\\"]"',
  ],
  [
    "unknown-key: a long key, cut in the title",
    plan([
      { id: 1, tool: "geocode" },
      { id: 2, tool: "weather", args: { lat: 1, units: `$1.${LONG.replace("population", "popluation")}` } },
    ]),
    `Change to .${LONG.slice(0, 59)}…`,
    `"$1.${LONG}"`,
  ],
  ["unknown-tool", plan([{ id: 1, tool: "geocod" }]), 'Change to "geocode"', '"tool":"geocode"'],
  ["unknown-argument: the key", plan([{ id: 1, tool: "weather", args: { lat: 1, units: "m", dayz: 2 } }]), 'Change to "days"', '"days":2'],
  [
    "unknown-step: a close id",
    JSON.stringify({
      steps: [
        { id: 21, tool: "geocode" },
        { id: 22, tool: "weather", args: { lat: "$12.longitude", units: "m" } },
      ],
    }),
    "Change to $21",
    '"$21.longitude"',
  ],
  [
    "non-canonical-step",
    plan([
      { id: 1, tool: "geocode" },
      { id: 2, tool: "weather", args: { lat: "$01.longitude", units: "m" } },
    ]),
    "Change to 1",
    '"$1.longitude"',
  ],
  [
    "missing-argument: added after the last argument",
    plan([{ id: 1, tool: "weather", args: { lat: 1 } }]),
    'Add "units"',
    '"args":{"lat":1, "units": ""}',
  ],
  [
    "missing-argument: into empty args",
    plan([{ id: 1, tool: "weather", args: {} }]),
    'Add "lat", "units"',
    '"args":{ "lat": 0, "units": "" }',
  ],
  [
    "missing-argument: a step without args gets them",
    plan([{ id: 1, tool: "weather" }]),
    'Add "lat", "units"',
    '"tool":"weather", "args": { "lat": 0, "units": "" }',
  ],
  [
    "missing-argument: a nested object",
    plan([{ id: 1, tool: "weather", args: { lat: 1, units: "m", mode: {} } }]),
    'Add "kind"',
    '"mode":{ "kind": "" }',
  ],
];

describe("quickFixes", () => {
  test.each(rows)("%s", (_name, text, title, after) => {
    const fixes = quickFixes(text, { tools });
    const fix = fixes.find((item) => item.title === title);
    expect(fix, JSON.stringify(fixes.map((item) => item.title))).toBeDefined();
    const fixed = applyTextEdits(text, fix!.edits);
    expect(fixed).toContain(after);
    expect(() => JSON.parse(fixed)).not.toThrow();
    const before = lintPlanText(text, { tools }).filter((d) => d.code === fix!.diagnostic.code).length;
    expect(lintPlanText(fixed, { tools }).filter((d) => d.code === fix!.diagnostic.code)).toHaveLength(before - 1);
  });

  test("a diagnostic with no known fix has none; bad input gives none and never throws", () => {
    expect(
      quickFixes(
        plan([
          { id: 1, tool: "geocode" },
          { id: 2, tool: "weather", args: { lat: "$9", units: "m" } },
        ]),
        { tools },
      ),
    ).toEqual([]);
    expect(quickFixes("{ nope")).toEqual([]);
    expect(quickFixes(3 as unknown as string)).toEqual([]);
  });
});
