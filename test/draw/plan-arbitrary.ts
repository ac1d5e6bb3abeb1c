/**
 * Random plans for the picture properties (test/draw/properties.test.ts in Node, the Chromium test in
 * a browser): missing steps, self-references, cycles, wide levels, any tool names, keys short and long
 * (past the widest arrow label, so some labels are cut).
 */
import fc from "fast-check";

/** Tool names: common ones, any binary string, any graphemes. */
export const toolNameArbitrary = fc.oneof(
  fc.constantFrom("geocode", "weather", "a", "send_email"),
  fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
);

const key = fc.oneof(
  fc.constant(""),
  fc.stringMatching(/^[a-z][a-z0-9_]{0,12}$/),
  fc.stringMatching(/^[a-z][a-z0-9_]{0,12}\[[0-9]\]$/),
  fc.stringMatching(/^[a-z]{40,70}$/),
);

/**
 * A random plan of up to `maxSteps` steps, ids from a small range (so references hit, miss, loop back,
 * or point at themselves).
 *
 * @example
 * fc.sample(planArbitrary(50), 1)[0]!.steps.length <= 50 // true
 */
export function planArbitrary(maxSteps: number): fc.Arbitrary<{ steps: { id: number; tool: string; args: Record<string, string> }[] }> {
  return fc
    .array(
      fc.record({
        id: fc.integer({ min: 0, max: maxSteps }),
        tool: toolNameArbitrary,
        refs: fc.array(fc.record({ to: fc.integer({ min: 0, max: maxSteps + 5 }), key }), { maxLength: 4 }),
      }),
      { maxLength: maxSteps },
    )
    .map((specs) => ({
      steps: specs.map((spec) => ({
        id: spec.id,
        tool: spec.tool,
        args: Object.fromEntries(spec.refs.map((ref, i) => [`a${i}`, ref.key === "" ? `$${ref.to}` : `$${ref.to}.${ref.key}`])),
      })),
    }));
}
