/**
 * defineTools: tools with typed arguments that runPlan takes without a cast (the type tests are
 * checked by `tsc --noEmit`, which `npm test` runs over test/), and the checks it makes at run time.
 */
import { describe, expect, expectTypeOf, test } from "vitest";
import * as root from "../../src/index.js";
import { RefError } from "../../src/resolve/index.js";
import type { ToolCatalog } from "../../src/plan/index.js";
import {
  defineTools,
  runPlan,
  type CatalogTools,
  type DefinedTools,
  type SchemaValue,
  type ToolArgs,
  type ToolContext,
  type ToolFunction,
  type ToolFunctions,
  type TypedTool,
} from "../../src/run/index.js";

const catalog = {
  geocode: {
    description: "a city's coordinates",
    input: { type: "object", properties: { city: { type: "string" }, country: { type: ["string", "null"] } }, required: ["city"] },
    output: { type: "object", properties: { lat: { type: "number" }, lon: { type: "number" } }, required: ["lat", "lon"] },
  },
  weather: {
    input: {
      type: "object",
      properties: {
        lat: { type: "number" },
        lon: { type: "number" },
        days: { type: "integer" },
        units: { enum: ["metric", "imperial"] },
        hours: { type: "array", items: { type: "integer" } },
      },
      required: ["lat", "lon"],
      additionalProperties: false,
    },
  },
  ping: {},
} as const;

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("defineTools types", () => {
  test("typed arguments, an untyped context and untyped arguments; the result is ToolFunctions", async () => {
    const tools = defineTools({
      geocode: async ({ city }: { city: string }, { signal }) => {
        expectTypeOf(signal).toEqualTypeOf<AbortSignal>();
        return { city, lat: 38.72, lon: -9.14 };
      },
      weather: ({ lat, lon }: { lat: number; lon: number }) => `${lat},${lon}`,
      echo: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        return args;
      },
      constant: () => 1,
    });
    expectTypeOf(tools).toEqualTypeOf<DefinedTools<"geocode" | "weather" | "echo" | "constant">>();
    expectTypeOf(tools).toExtend<ToolFunctions>();
    expectTypeOf(tools.geocode).toEqualTypeOf<ToolFunction>();
    void (() => {
      // @ts-expect-error: without defineTools, a tool that declares its arguments is not a ToolFunction (the README's old TS2322)
      void runPlan({ steps: [] }, { geocode: async ({ city }: { city: string }) => city });
    });
    const report = await runPlan(
      {
        steps: [
          { id: 1, tool: "geocode", args: { city: "Lisbon" } },
          { id: 2, tool: "weather", args: { lat: "$1.lat", lon: "$1.lon" } },
        ],
      },
      tools,
    );
    expect(report.results.get(2)).toBe("38.72,-9.14");
  });

  test("arguments declared by an interface; arguments that are not an object do not compile", () => {
    interface Place {
      city: string;
    }
    const tools = defineTools({ geocode: ({ city }: Place) => city, echo: (args) => args });
    expectTypeOf(tools).toExtend<ToolFunctions>();
    // Never called: each only has to fail to compile without the @ts-expect-error.
    void (() => {
      // @ts-expect-error: a tool's arguments are an object
      defineTools({ length: (text: string) => text.length });
      // @ts-expect-error: next to an interface, untyped arguments are `object`, which has no key "city"
      defineTools({ geocode: ({ city }: Place) => city, other: ({ city }) => city });
      // @ts-expect-error: not a function
      defineTools({ geocode: "geocode" });
    });
    expect(Object.keys(tools)).toEqual(["geocode", "echo"]);
  });

  test("with a catalog: arguments typed from the input schemas, names checked against the catalog", async () => {
    const tools = defineTools(catalog, {
      geocode: ({ city, country }, { stepId }) => {
        expectTypeOf(city).toEqualTypeOf<string>();
        expectTypeOf(country).toEqualTypeOf<string | null | undefined>();
        expectTypeOf(stepId).toEqualTypeOf<number>();
        return { lat: 38.72, lon: -9.14 };
      },
      weather: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ lat: number; lon: number; days?: number; units?: "metric" | "imperial"; hours?: number[] }>();
        return args.units ?? "metric";
      },
      ping: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        return "pong";
      },
    });
    expectTypeOf(tools).toEqualTypeOf<DefinedTools<"geocode" | "weather" | "ping">>();
    expectTypeOf(tools).toExtend<ToolFunctions>();
    void (() => {
      // @ts-expect-error: "ping" has no function
      defineTools(catalog, { geocode: () => 1, weather: () => 2 });
      // @ts-expect-error: "geocod" is not in the catalog
      defineTools(catalog, { geocode: () => 1, weather: () => 2, ping: () => 3, geocod: () => 4 });
      // @ts-expect-error: city is a string by the input schema
      defineTools(catalog, { geocode: (args: { city: number }) => args.city, weather: () => 2, ping: () => 3 });
      // @ts-expect-error: the schema has no key "town"
      defineTools(catalog, { geocode: ({ town }) => town, weather: () => 2, ping: () => 3 });
    });
    const report = await runPlan(
      {
        steps: [
          { id: 1, tool: "geocode", args: { city: "Lisbon" } },
          { id: 2, tool: "weather", args: { lat: "$1.lat", lon: "$1.lon", units: "metric" } },
        ],
      },
      tools,
      { catalog },
    );
    expect(report.status).toBe("ok");
    expect(report.results.get(2)).toBe("metric");
  });

  test("a catalog written inline needs no `as const`", () => {
    const tools = defineTools(
      { geocode: { input: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } },
      { geocode: ({ city }) => city.toUpperCase() },
    );
    expectTypeOf(tools).toEqualTypeOf<DefinedTools<"geocode">>();
    expect(tools.geocode({ city: "lisbon" }, { stepId: 1, signal: new AbortController().signal })).toBe("LISBON");
  });

  test("a catalog known only as a ToolCatalog (read at run time) or read from JSON: any names, arguments Record<string, unknown>", () => {
    const wide: ToolCatalog = { geocode: { input: { type: "object" } } };
    const fromWide = defineTools(wide, {
      geocode: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        return args;
      },
    });
    expectTypeOf(fromWide).toExtend<ToolFunctions>();
    // What `import catalog from "./tools.json" with { type: "json" }` gives: types widened to string.
    const json: { geocode: { input: { type: string; properties: { city: { type: string } } } } } = {
      geocode: { input: { type: "object", properties: { city: { type: "string" } } } },
    };
    const fromJson = defineTools(json, {
      geocode: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        return args;
      },
    });
    expectTypeOf(fromJson).toEqualTypeOf<DefinedTools<"geocode">>();
    expect(Object.keys(fromWide)).toEqual(["geocode"]);
  });

  test("SchemaValue and ToolArgs", () => {
    expectTypeOf<SchemaValue<{ type: "string" }>>().toEqualTypeOf<string>();
    expectTypeOf<SchemaValue<{ type: "integer" }>>().toEqualTypeOf<number>();
    expectTypeOf<SchemaValue<{ type: readonly ["boolean", "null"] }>>().toEqualTypeOf<boolean | null>();
    expectTypeOf<SchemaValue<{ const: "x" }>>().toEqualTypeOf<"x">();
    expectTypeOf<SchemaValue<{ enum: readonly [1, 2] }>>().toEqualTypeOf<1 | 2>();
    expectTypeOf<SchemaValue<{ type: "array"; items: { type: "string" } }>>().toEqualTypeOf<string[]>();
    expectTypeOf<SchemaValue<{ type: "array" }>>().toEqualTypeOf<unknown[]>();
    expectTypeOf<SchemaValue<{ properties: { a: { type: "number" } } }>>().toEqualTypeOf<{ a?: number }>();
    expectTypeOf<SchemaValue<{ type: "object" }>>().toEqualTypeOf<Record<string, unknown>>();
    // A schema read from a .json file has `type: string`: nothing is known.
    expectTypeOf<SchemaValue<{ type: string; properties: { a: { type: string } } }>>().toEqualTypeOf<unknown>();
    expectTypeOf<SchemaValue<{ minimum: 3 }>>().toEqualTypeOf<unknown>();
    expectTypeOf<SchemaValue<true>>().toEqualTypeOf<unknown>();
    // Arguments are always an object: a schema that says otherwise (or nothing) gives Record<string, unknown>.
    expectTypeOf<ToolArgs<{ input: { type: "string" } }>>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<ToolArgs<{ input: { type: "array" } }>>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<ToolArgs<{ input: true }>>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<ToolArgs<{ description: "no input" }>>().toEqualTypeOf<Record<string, unknown>>();
    expectTypeOf<ToolArgs<(typeof catalog)["geocode"]>>().toEqualTypeOf<{ city: string; country?: string | null }>();
    expectTypeOf<CatalogTools<typeof catalog>["ping"]>().toEqualTypeOf<TypedTool<Record<string, unknown>>>();
    expectTypeOf<TypedTool<{ a: 1 }>>().toEqualTypeOf<(args: { a: 1 }, context: ToolContext) => unknown>();
    expect(root.defineTools).toBe(defineTools);
  });
});

describe("defineTools at run time", () => {
  test("gives back the very same object", () => {
    const tools = { a: () => 1 };
    expect(defineTools(tools)).toBe(tools);
    const catalogTools = { geocode: () => 1, weather: () => 2, ping: () => 3 };
    expect(defineTools(catalog, catalogTools)).toBe(catalogTools);
    expect(defineTools({})).toEqual({});
  });

  const invalid: [name: string, args: unknown[], message: string][] = [
    ["not an object", [null], "defineTools: the tools must be a plain object mapping tool names to functions"],
    ["an array", [[() => 1]], "defineTools: the tools must be a plain object mapping tool names to functions"],
    ["a value that is not a function", [{ a: () => 1, b: "b" }], 'defineTools: tool "b" must be a function'],
    ["a hostile name, escaped", [{ "\u001b[31mred\n": 1 }], 'defineTools: tool "\\u001b[31mred\\n" must be a function'],
    ["no arguments", [], "defineTools takes the tools, or a catalog and the tools (it was given 0 arguments)"],
    [
      "a catalog that is not one",
      [[], {}],
      'defineTools: the catalog is not a tool catalog: "tools" must be an object mapping tool names to { description, input, output }',
    ],
    [
      "a catalog tool that is not an object",
      [{ a: 1 }, { a: () => 1 }],
      'defineTools: the catalog is not a tool catalog: at /a: tool "a" must be an object with description, input and output',
    ],
    [
      "a name not in the catalog, near one",
      [catalog, { geocode: () => 1, weather: () => 2, ping: () => 3, wether: () => 4 }],
      'defineTools: tool "wether" is not in the catalog; did you mean "weather"?',
    ],
    [
      "a name not in the catalog",
      [catalog, { geocode: () => 1, weather: () => 2, ping: () => 3, zzzzzz: () => 4 }],
      'defineTools: tool "zzzzzz" is not in the catalog; its tools: geocode, weather, ping',
    ],
    [
      "a catalog tool with no function",
      [catalog, { geocode: () => 1, weather: () => 2 }],
      'defineTools: the catalog\'s tool "ping" has no function',
    ],
  ];
  test.each(invalid)("%s: a RefError invalid-args", (_name, args, message) => {
    const error = catchError(() => (defineTools as (...args: unknown[]) => unknown)(...args));
    expect(error).toBeInstanceOf(RefError);
    expect(error).toMatchObject({ code: "invalid-args", message });
  });

  test("getters never run; a throwing Proxy is a RefError access", () => {
    let ran = false;
    const withGetter = Object.defineProperty({}, "a", { enumerable: true, get: () => ((ran = true), () => 1) });
    expect(catchError(() => defineTools(withGetter))).toMatchObject({
      code: "invalid-args",
      message: 'defineTools: tool "a" must be a function',
    });
    expect(ran).toBe(false);
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("trap");
        },
      },
    );
    const error = catchError(() => defineTools(hostile));
    expect(error).toBeInstanceOf(RefError);
    expect(error).toMatchObject({ code: "access", message: "could not read the tools given to defineTools: trap" });
  });

  test("inherited members are not tools", () => {
    const tools = Object.create({ inherited: "not a function" }) as Record<string, () => number>;
    tools["own"] = () => 1;
    // Not a plain object (its prototype is not Object.prototype): refused rather than half read.
    expect(catchError(() => defineTools(tools))).toMatchObject({ code: "invalid-args" });
    const parsed = JSON.parse('{"__proto__": 1}') as Record<string, never>;
    expect(catchError(() => defineTools(parsed))).toMatchObject({
      code: "invalid-args",
      message: 'defineTools: tool "__proto__" must be a function',
    });
  });
});
