/**
 * The incremental plan reader: fed a plan's JSON text in any chunks, it hands out each step as soon as
 * its text is complete, once, in order, with its offsets; it refuses text that cannot be a plan.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { PlanTextReader } from "../../src/plan/incremental-reader.js";
import { readPlan } from "../../src/plan/plan.js";

/** Feed `text` cut at `cuts` (sorted offsets); every element handed out, and the reader. */
function feed(text: string, cuts: readonly number[], end = true): { reader: PlanTextReader; found: ReturnType<PlanTextReader["push"]> } {
  const reader = new PlanTextReader();
  const found: ReturnType<PlanTextReader["push"]> = [];
  let at = 0;
  for (const cut of [...cuts, text.length]) {
    found.push(...reader.push(text.slice(at, cut)));
    at = cut;
  }
  if (end) found.push(...reader.end());
  return { reader, found };
}

const stepArbitrary = fc.record({
  id: fc.nat(50),
  tool: fc.constantFrom("geocode", "weather", 'a"b', "ü\u2028"),
  args: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }),
});
/** A plan's text: an object with steps (keys in any order, white space anywhere) or a bare array. */
const planTextArbitrary = fc
  .tuple(fc.array(stepArbitrary, { maxLength: 8 }), fc.boolean(), fc.boolean(), fc.constantFrom(0, 2))
  .map(([steps, bare, outputFirst, indent]) => {
    if (bare) return JSON.stringify(steps, null, indent);
    const output = { answer: "$1" };
    return JSON.stringify(outputFirst ? { output, steps } : { steps, output }, null, indent);
  });
const cutsArbitrary = (text: string): fc.Arbitrary<number[]> =>
  fc.uniqueArray(fc.integer({ min: 0, max: text.length }), { maxLength: 12 }).map((cuts) => cuts.sort((a, b) => a - b));

describe("PlanTextReader", () => {
  test("for any plan and any chunking, the elements handed out are the plan's steps, in order, with their own text", () => {
    fc.assert(
      fc.property(
        planTextArbitrary.chain((text) => fc.tuple(fc.constant(text), cutsArbitrary(text))),
        ([text, cuts]) => {
          const { reader, found } = feed(text, cuts);
          expect(reader.problem).toBeUndefined();
          const parsed = JSON.parse(text) as unknown;
          const steps = Array.isArray(parsed) ? parsed : (parsed as { steps: unknown[] }).steps;
          expect(found.map((step) => step.value)).toEqual(steps);
          expect(found.map((step) => step.index)).toEqual(steps.map((_, i) => i));
          for (const step of found) expect(JSON.parse(text.slice(step.start, step.end))).toEqual(step.value);
          // What the run reads of them is what readPlan reads of the whole plan.
          expect(readPlan(found.map((step) => step.value)).steps.map(({ id, tool, args }) => ({ id, tool, args }))).toEqual(
            readPlan(parsed).steps.map(({ id, tool, args }) => ({ id, tool, args })),
          );
          expect(new Set(found.map((step) => step.pointer)).size).toBe(found.length);
        },
      ),
    );
  });

  test("for any prefix, only steps wholly inside it are handed out", () => {
    fc.assert(
      fc.property(
        planTextArbitrary.chain((text) => fc.tuple(fc.constant(text), fc.integer({ min: 0, max: text.length }), cutsArbitrary(text))),
        ([text, length, cuts]) => {
          const prefix = text.slice(0, length);
          const { found } = feed(
            prefix,
            cuts.filter((cut) => cut <= length),
            false,
          );
          const whole = feed(text, []).found;
          expect(found.length).toBeLessThanOrEqual(whole.length);
          for (const [i, step] of found.entries()) {
            expect(step.end).toBeLessThanOrEqual(length);
            expect(step).toEqual(whole[i]);
          }
          // Every step that is wholly inside the prefix and followed by a delimiter is out already.
          expect(found.length).toBe(
            whole.filter((step) => step.end <= length && (typeof step.value === "object" || step.end < length)).length,
          );
        },
      ),
    );
  });

  test("a step is handed out by the chunk holding its closing bracket, never twice", () => {
    const reader = new PlanTextReader();
    expect(reader.push('{"steps":[{"id":1,"tool":"geocode","args":{"city":"Oslo"}')).toEqual([]);
    const first = reader.push("}");
    expect(first).toEqual([
      { value: { id: 1, tool: "geocode", args: { city: "Oslo" } }, index: 0, pointer: "/steps/0", start: 10, end: 58 },
    ]);
    expect(reader.push(" ,")).toEqual([]);
    expect(reader.push('{"id":2,"tool":"weather","args":{"at":"$1"}}]}').map((step) => step.index)).toEqual([1]);
    expect(reader.end()).toEqual([]);
    expect(reader.complete).toBe(true);
    expect(reader.problem).toBeUndefined();
  });

  test.each([
    ["a number split across chunks", ["[1", "2]"], [12]],
    ["a string split inside an escape", ['["a\\', 'u00e9"]'], ["aé"]],
    ["a word split", ["[tr", "ue]"], [true]],
  ])("a token cut by a chunk is read whole: %s", (_, chunks, values) => {
    const reader = new PlanTextReader();
    const found = chunks.flatMap((chunk) => reader.push(chunk));
    found.push(...reader.end());
    expect(found.map((step) => step.value)).toEqual(values);
  });

  test.each([
    ["not a plan", "42"],
    ["a comment", '{"steps":[] // no\n}'],
    ["a trailing comma", '{"steps":[],}'],
    ["a missing colon", '{"steps" []}'],
    ["text after the plan", "[] []"],
    ["steps twice", '{"steps":[],"steps":[]}'],
    ["a step that is not JSON", '{"steps":[{"id":01}]}'],
    ["unfinished", '{"steps":[{"id":1'],
    ["a bad string", '{"steps":["\u0001"]}'],
  ])("text that cannot be a plan is refused with invalid-plan: %s", (_, text) => {
    const { reader } = feed(text, []);
    expect(reader.problem?.code).toBe("invalid-plan");
    expect(reader.problem?.message).toMatch(/\(at offset \d+\)$/);
  });

  test("limits: the text's length, the number of steps, the nesting", () => {
    const long = new PlanTextReader({ maxLength: 10 });
    long.push('{"steps":[');
    expect(long.push("{}")).toEqual([]);
    expect(long.problem?.message).toMatch(/longer than 10 characters/);
    const many = new PlanTextReader({ maxSteps: 2 });
    expect(many.push("[{},{},{}]").length).toBe(2);
    expect(many.problem?.message).toMatch(/more than 2 steps/);
    const deep = new PlanTextReader();
    deep.push(`[${"[".repeat(600)}`);
    expect(deep.problem?.message).toMatch(/nests deeper than 512/);
  });

  test("where the plan's options or tools stand: before the steps, after them, or nowhere", () => {
    const place = (text: string): string => feed(text, []).reader.settings;
    expect(place('{"steps":[]}')).toBe("none");
    expect(place('{"options":{"syntax":"path"},"steps":[]}')).toBe("before");
    expect(place('{"steps":[],"tools":{}}')).toBe("after");
    expect(place('{"options":{"tools":1},"steps":[]}')).toBe("before");
  });
});
