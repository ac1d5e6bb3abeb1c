/**
 * The plan-call core shared by the agent integrations: results cut at maxResultChars (a property),
 * and runPlanCall's answers for a plan that does not lint and one that runs.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { cutResult, planCallDescription, runPlanCall } from "../../src/agents/plan-call.js";

describe("cutResult", () => {
  test("a result is kept when its JSON text fits, else it is a prefix of that text and a marker, never a split surrogate pair", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 200 }), (value, max) => {
        const text = JSON.stringify(value);
        const cut = cutResult(value, max);
        if (text.length <= max) {
          expect(cut).toBe(value);
          return;
        }
        expect(typeof cut).toBe("string");
        const [prefix, marker] = (cut as string).split("… [cut: ");
        expect(marker).toBe(`${max} of ${text.length} characters]`);
        expect(text.startsWith(prefix!)).toBe(true);
        expect(prefix!.length === max || prefix!.length === max - 1).toBe(true);
        expect(/[\uD800-\uDBFF]$/.test(prefix!)).toBe(false);
      }),
    );
  });
});

describe("runPlanCall", () => {
  const catalog = {
    geocode: { output: { type: "object", properties: { lat: { type: "number" } }, additionalProperties: false } },
    weather: {},
  };
  const tools = { geocode: () => ({ lat: 1 }), weather: ({ lat }: Record<string, unknown>) => `lat ${String(lat)}` };

  test("a plan with lint errors is not run: its error diagnostics, code, message and pointer", async () => {
    let ran = 0;
    const answer = await runPlanCall(
      {
        steps: [
          { id: 1, tool: "geocode", args: {} },
          { id: 2, tool: "weather", args: { lat: "$1.latt" } },
        ],
      },
      { tools: { geocode: () => (ran++, { lat: 1 }), weather: () => ran++ }, catalog },
      {},
    );
    expect(answer).toEqual({
      status: "invalid",
      diagnostics: [
        { code: "unknown-key", pointer: "/steps/1/args/lat", message: expect.stringContaining(`did you mean "lat"?`) as string },
      ],
    });
    expect(ran).toBe(0);
  });

  test("a plan that runs answers with its status, results, errors and skipped steps", async () => {
    expect(
      await runPlanCall(
        [
          { id: 1, tool: "geocode", args: {} },
          { id: 2, tool: "weather", args: { lat: "$1.lat" } },
        ],
        { tools, catalog },
        {},
      ),
    ).toEqual({ status: "ok", results: { "1": { lat: 1 }, "2": "lat 1" } });
  });

  test("the description names the tools and shows an example plan that lints clean", () => {
    const text = planCallDescription({
      geocode: catalog.geocode,
      weather: { input: { type: "object", properties: { lat: { type: "number" } }, required: ["lat"] } },
    });
    expect(text).toContain("Tools: geocode, weather.");
    expect(text).toContain(`Example: {"steps":[{"id":1,"tool":"geocode","args":{}},{"id":2,"tool":"weather","args":{"lat":"$1.lat"}}]}`);
  });

  test.each([
    [
      "every required argument the first output has a key for is a reference (by name), no literal beside a reference",
      { lat: { type: "number" }, lon: { type: "number" } },
      { lat: { type: "number" }, lon: { type: "number" } },
      ["lat", "lon"],
      `{"id":2,"tool":"weather","args":{"lat":"$1.lat","lon":"$1.lon"}}`,
    ],
    [
      "by type when no key has the argument's name (a key not used yet first)",
      { latitude: { type: "number" }, longitude: { type: "number" } },
      { lat: { type: "number" }, lon: { type: "number" } },
      ["lat", "lon"],
      `{"id":2,"tool":"weather","args":{"lat":"$1.latitude","lon":"$1.longitude"}}`,
    ],
    [
      "an argument nothing in the output fits keeps its example literal",
      { lat: { type: "number" } },
      { lat: { type: "number" }, units: { type: "string" } },
      ["lat", "units"],
      `{"id":2,"tool":"weather","args":{"lat":"$1.lat","units":"<units>"}}`,
    ],
  ])("the example plan: %s", (_, output, input, required, second) => {
    const text = planCallDescription({
      geocode: { output: { type: "object", properties: output, additionalProperties: false } },
      weather: { input: { type: "object", properties: input, required } },
    });
    expect(text).toContain(`{"id":1,"tool":"geocode","args":{}},${second}]}`);
  });
});
