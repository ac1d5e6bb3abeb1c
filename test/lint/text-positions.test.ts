/**
 * From JSON Pointers and spans inside string values to the exact characters of a JSON text
 * (test/cases/text-positions.json), and the bracket a too-deep text points at.
 */
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { MAX_NESTING } from "../../src/plan/json-text.js";
import { locatePositions, type PositionRequest } from "../../src/lint/text-positions.js";

interface Row {
  readonly name: string;
  readonly text: string;
  readonly requests: PositionRequest[];
  readonly expected: string[];
}

const rows = (JSON.parse(readFileSync(new URL("../cases/text-positions.json", import.meta.url), "utf8")) as { cases: Row[] }).cases;

test.each(rows)("$name", ({ text, requests, expected }) => {
  const spans = locatePositions(text, requests);
  expect(spans.map((span) => text.slice(span.start, span.end))).toEqual(expected);
  for (const span of spans) expect(span.start).toBeLessThanOrEqual(span.end);
});

test("an empty span sits where it was asked for", () => {
  const text = '{"a": "hello"} ';
  expect(
    locatePositions(text, [
      { pointer: "/a", span: { start: 99, end: 100 } },
      { pointer: "/a", span: { start: 3, end: 1 } },
    ]),
  ).toEqual([
    { start: 12, end: 12 },
    { start: 10, end: 10 },
  ]);
  expect(locatePositions('{"a": "\\tab"}', [{ pointer: "/a", span: { start: 50, end: 60 } }])).toEqual([{ start: 11, end: 11 }]);
});

test("a text nested past MAX_NESTING: every request is the bracket that goes too deep", () => {
  const text = `{"a": 1, "b": ${"[".repeat(MAX_NESTING + 1)}${"]".repeat(MAX_NESTING + 1)}}`;
  const bracket = text.indexOf("[") + MAX_NESTING - 1;
  expect(locatePositions(text, [{ pointer: "/a" }, { pointer: "/b", at: "key" }])).toEqual([
    { start: bracket, end: bracket + 1 },
    { start: bracket, end: bracket + 1 },
  ]);
  const fits = `{"a": 1, "b": ${"[".repeat(MAX_NESTING - 1)}${"]".repeat(MAX_NESTING - 1)}}`;
  expect(locatePositions(fits, [{ pointer: "/a" }])).toEqual([{ start: 6, end: 7 }]);
});
