/**
 * Standard JSON Schema catalogs: a schema of Zod 4 or ArkType as a catalog entry's input or output is
 * converted once, and the linter, runPlan, planSchema and defineTools read the JSON Schema it gives.
 */
import { type } from "arktype";
import { describe, expect, expectTypeOf, test } from "vitest";
import { z } from "zod";
import { planSchema } from "../../src/formats/index.js";
import { lintPlan } from "../../src/lint/index.js";
import { readPlan, readTools, type ToolCatalog } from "../../src/plan/index.js";
import { defineTools, runPlan } from "../../src/run/index.js";
import { isStandardJsonSchema, standardJsonSchema, type StandardJsonSchema } from "../../src/shared/standard-schema.js";

const zodCatalog = {
  geocode: {
    description: "a city's coordinates",
    input: z.object({ city: z.string() }),
    output: z.object({ lat: z.number(), lon: z.number() }),
  },
  weather: { input: z.object({ lat: z.number(), lon: z.number(), days: z.number().int().optional() }) },
};

const arkCatalog = {
  geocode: { input: type({ city: "string" }), output: type({ lat: "number", lon: "number", "+": "reject" }) },
  weather: { input: type({ lat: "number", lon: "number", "days?": "number.integer" }) },
};

const plan = (key: string) => ({
  steps: [
    { id: 1, tool: "geocode", args: { city: "Lisbon" } },
    { id: 2, tool: "weather", args: { lat: `$1.${key}`, lon: "$1.lon" } },
  ],
});

/** A schema library of the test's own: counts how often it converts. */
function countingSchema(json: Record<string, unknown>): { schema: StandardJsonSchema<{ city: string }>; calls: string[] } {
  const calls: string[] = [];
  const schema: StandardJsonSchema<{ city: string }> = {
    "~standard": {
      version: 1,
      vendor: "counting",
      jsonSchema: {
        input: (options) => (calls.push(`input ${options.target}`), json),
        output: (options) => (calls.push(`output ${options.target}`), json),
      },
    },
  };
  return { schema: Object.freeze(Object.create(Object.freeze(schema)) as typeof schema), calls };
}

describe.each([
  ["Zod 4", zodCatalog],
  ["ArkType", arkCatalog],
])("a catalog of %s schemas", (_, catalog) => {
  test("readTools gives JSON Schemas (input from the input side, output from the output side)", () => {
    const problems: string[] = [];
    const tools = readTools(catalog, (pointer, message) => problems.push(`${pointer}: ${message}`), "");
    expect(problems).toEqual([]);
    expect(tools!.geocode!.input).toMatchObject({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
    expect(tools!.geocode!.output).toMatchObject({ type: "object", properties: { lat: { type: "number" } }, additionalProperties: false });
    expect(Object.getPrototypeOf(tools!.geocode!.input)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(tools!.geocode!.input))).toEqual(tools!.geocode!.input);
    expect(tools!.geocode!.description).toBe((catalog.geocode as { description?: string }).description);
  });

  test("the linter checks references against the converted output schema (did-you-mean included)", () => {
    expect(lintPlan(plan("lon"), { tools: catalog })).toEqual([]);
    const [diagnostic, ...rest] = lintPlan(plan("lat_"), { tools: catalog });
    expect(rest).toEqual([]);
    expect(diagnostic).toMatchObject({ code: "unknown-key", severity: "error", pointer: "/steps/1/args/lat" });
    expect(diagnostic!.message).toContain(`did you mean "lat"?`);
  });

  test("runPlan lints with it and validates outputs against it", async () => {
    const tools = { geocode: () => ({ lat: 38.7, lon: "west" }), weather: () => "sunny" };
    const report = await runPlan(plan("lat"), tools, { catalog, validateOutputs: true });
    expect(report.status).toBe("failed");
    expect(report.errors.get(1)).toMatchObject({ code: "invalid-output" });
    const refused = await runPlan(plan("lat_"), tools, { catalog });
    expect(refused.status).toBe("invalid");
  });

  test("planSchema writes each tool's arguments from its input schema", () => {
    const schema = planSchema(catalog, { dialect: "openai-strict" });
    const weather = schema.properties.steps.items.anyOf.find((branch) => branch.properties.tool.enum[0] === "weather")!;
    expect(JSON.stringify(weather.properties.args)).toContain(`"lat"`);
    expect(JSON.stringify(weather.properties.args)).toContain(`"days"`);
  });
});

describe("conversion", () => {
  test("each schema is converted once per side, however often the catalog is read", () => {
    const { schema, calls } = countingSchema({ type: "object", properties: { city: { type: "string" } } });
    const catalog = { geocode: { input: schema, output: schema } };
    for (let i = 0; i < 3; i++) {
      expect(lintPlan({ steps: [{ id: 1, tool: "geocode", args: { city: "Lisbon" } }] }, { tools: catalog })).toEqual([]);
    }
    expect(calls).toEqual(["input draft-2020-12", "output draft-2020-12"]);
  });

  test("a schema the library cannot convert is one invalid-options diagnostic saying why", () => {
    const catalog = { when: { input: z.object({ at: z.date() }) } };
    const diagnostics = lintPlan({ steps: [{ id: 1, tool: "when", args: {} }] }, { tools: catalog });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: "invalid-options", severity: "error" });
    expect(diagnostics[0]!.message).toContain(
      `options.tools/when/input: "input" is a schema object, but its input JSON Schema could not be made: Date cannot be represented in JSON Schema`,
    );
  });

  test("a converter that returns no object is refused", () => {
    const bad: StandardJsonSchema = {
      "~standard": { version: 1, vendor: "bad", jsonSchema: { input: () => [] as never, output: () => [] as never } },
    };
    expect(() => standardJsonSchema(Object.create(bad) as StandardJsonSchema, "input")).toThrow("its input JSON Schema is not an object");
  });

  test("plain JSON Schemas, booleans and objects without a converter are not schema objects", () => {
    expect(isStandardJsonSchema({ type: "object" })).toBe(false);
    expect(isStandardJsonSchema(true)).toBe(false);
    expect(isStandardJsonSchema(new Map())).toBe(false);
    expect(isStandardJsonSchema(Object.create({ "~standard": { jsonSchema: {} } }))).toBe(false);
    // A converted Zod schema carries a ~standard of its own, yet is a plain object: JSON Schema.
    expect(isStandardJsonSchema(z.toJSONSchema(z.string()))).toBe(false);
    expect(isStandardJsonSchema(z.string())).toBe(true);
    expect(isStandardJsonSchema(type("string"))).toBe(true);
  });

  test("a plan's inline tools are data: a schema object there is a problem, and its converter never runs", () => {
    const { schema, calls } = countingSchema({ type: "object" });
    const read = readPlan({ steps: [], tools: { geocode: { input: schema } } });
    expect(read.problems).toEqual([
      { code: "invalid-plan", pointer: "/tools/geocode/input", message: `"input" must be a JSON Schema (an object or a boolean)` },
    ]);
    expect(calls).toEqual([]);
  });
});

describe("defineTools over a Standard Schema catalog", () => {
  test("each tool's arguments have the schema's inferred input type", async () => {
    const tools = defineTools(zodCatalog, {
      geocode: ({ city }) => {
        expectTypeOf(city).toEqualTypeOf<string>();
        return { lat: 38.7, lon: -9.1 };
      },
      weather: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ lat: number; lon: number; days?: number | undefined }>();
        return `${args.lat},${args.lon}`;
      },
    });
    const ark = defineTools(arkCatalog, {
      geocode: ({ city }) => {
        expectTypeOf(city).toEqualTypeOf<string>();
        return { lat: 38.7, lon: -9.1 };
      },
      weather: (args) => {
        expectTypeOf(args.days).toEqualTypeOf<number | undefined>();
        return "sunny";
      },
    });
    expectTypeOf(zodCatalog).toExtend<ToolCatalog>();
    expectTypeOf(arkCatalog).toExtend<ToolCatalog>();
    const report = await runPlan(plan("lat"), tools, { catalog: zodCatalog });
    expect(report.results.get(2)).toBe("38.7,-9.1");
    expect((await runPlan(plan("lat"), ark, { catalog: arkCatalog })).results.get(2)).toBe("sunny");
  });

  test("a tool missing from the catalog is refused, as with JSON Schemas", () => {
    // @ts-expect-error: weather is not implemented
    expect(() => defineTools(zodCatalog, { geocode: () => ({}) })).toThrow(`the catalog's tool "weather" has no function`);
  });
});
