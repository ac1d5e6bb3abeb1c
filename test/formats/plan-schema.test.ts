/**
 * planSchema: a JSON Schema of a plan over a catalog. Ajv (strict mode) compiles every schema made from
 * the example catalogs, in both dialects; the example plans validate against them and plans with a
 * wrong tool name or a wrong argument type do not; the openai-strict output keeps the strict subset's
 * rules (a checker, and a fast-check property over random catalogs); the reference pattern accepts
 * exactly the whole-value references the parser accepts.
 */
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import Ajv2020Module from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { planSchema, STRICT_REWRITES, type PlanSchemaOptions } from "../../src/formats/plan-schema.js";
import { fromStrictOutput } from "../../src/formats/strict-output.js";
import { lintPlan } from "../../src/lint/lint-plan.js";
import { referencePattern } from "../../src/formats/reference-pattern.js";
import { tryParseRef } from "../../src/grammar/parse.js";
import type { JsonSchema, ToolCatalog } from "../../src/plan/plan.js";
import { RefError } from "../../src/shared/errors.js";
import { strictViolations } from "./strict-subset.js";

const Ajv2020 = Ajv2020Module.default;
const root = join(import.meta.dirname, "../..");

function ajv(): InstanceType<typeof Ajv2020> {
  // Strict mode; formats are the tool's business (Ajv knows none without ajv-formats), so they are not validated.
  return new Ajv2020({ strict: true, validateFormats: false, allErrors: true });
}

const examples = readdirSync(join(root, "examples"))
  .filter((name) => existsSync(join(root, "examples", name, "tools.json")))
  .map((name) => ({ name, catalog: JSON.parse(readFileSync(join(root, "examples", name, "tools.json"), "utf8")) as ToolCatalog }));

const examplePlans = examples.flatMap(({ name, catalog }) =>
  readdirSync(join(root, "examples", name))
    .filter((file) => file === "plan.json" || file === "clean.plan.json")
    .map((file) => ({
      file: `examples/${name}/${file}`,
      catalog,
      plan: JSON.parse(readFileSync(join(root, "examples", name, file), "utf8")) as {
        steps: { id: number; tool: string; args: Record<string, unknown> }[];
        options?: PlanSchemaOptions;
      },
    })),
);

/** A plan as the strict dialect wants it: only `steps`, and every optional argument written as null. */
function strictShape(plan: { steps: { id: number; tool: string; args: Record<string, unknown> }[] }, catalog: ToolCatalog): unknown {
  return {
    steps: plan.steps.map((step) => {
      const input = catalog[step.tool]?.input as { properties?: Record<string, unknown> } | undefined;
      const args: Record<string, unknown> = {};
      for (const name of Object.keys(input?.properties ?? {})) args[name] = Object.hasOwn(step.args, name) ? step.args[name] : null;
      return { id: step.id, tool: step.tool, args };
    }),
    output: null,
  };
}

describe("planSchema on the example catalogs", () => {
  test("there are example catalogs and plans", () => {
    expect(examples.length).toBeGreaterThanOrEqual(2);
    expect(examplePlans.length).toBeGreaterThanOrEqual(2);
  });

  for (const { name, catalog } of examples) {
    for (const dialect of ["json-schema", "openai-strict"] as const) {
      for (const language of [{}, { syntax: "path" as const, templates: true }, { syntax: "path" as const, templates: true, deep: true }]) {
        test(`examples/${name}: Ajv (strict) compiles the ${dialect} schema with ${JSON.stringify(language)}`, () => {
          const schema = planSchema(catalog, { dialect, ...language });
          expect(() => ajv().compile(schema)).not.toThrow();
          if (dialect === "openai-strict") expect(strictViolations(schema)).toEqual([]);
        });
      }
    }
  }

  for (const { file, catalog, plan } of examplePlans) {
    const language = { syntax: plan.options?.syntax, templates: plan.options?.templates, deep: plan.options?.deep };
    test(`${file} validates against its catalog's schema, both dialects`, () => {
      const validate = ajv().compile(planSchema(catalog, language));
      expect(validate({ steps: plan.steps }), JSON.stringify(validate.errors)).toBe(true);
      const strict = ajv().compile(planSchema(catalog, { dialect: "openai-strict", ...language }));
      expect(strict(strictShape(plan, catalog)), JSON.stringify(strict.errors)).toBe(true);
    });

    test(`${file}: written the strict way (nulls for what is left out), fromStrictOutput gives the plan back and it lints clean`, () => {
      const back = fromStrictOutput(strictShape(plan, catalog), catalog);
      expect(back).toEqual({ steps: plan.steps.map(({ id, tool, args }) => ({ id, tool, args })) });
      expect(lintPlan(back, { tools: catalog, ...language }).filter((d) => d.severity === "error")).toEqual([]);
    });

    test(`${file} with a wrong tool name, a wrong argument type or an extra argument does not validate`, () => {
      for (const dialect of ["json-schema", "openai-strict"] as const) {
        const validate = ajv().compile(planSchema(catalog, { dialect, ...language }));
        const shape = (steps: typeof plan.steps): unknown => (dialect === "openai-strict" ? strictShape({ steps }, catalog) : { steps });
        const first = plan.steps[0]!;
        const wrongTool = [{ ...first, tool: `${first.tool}_x` }, ...plan.steps.slice(1)];
        expect(
          validate(dialect === "openai-strict" ? { steps: [{ id: 1, tool: `${first.tool}_x`, args: {} }] } : { steps: wrongTool }),
        ).toBe(false);
        // The first declared string argument of the first step, given a number.
        const input = catalog[first.tool]!.input as { properties: Record<string, { type?: string }> };
        const stringArg = Object.keys(input.properties).find((key) => input.properties[key]!.type === "string")!;
        expect(validate(shape([{ ...first, args: { ...first.args, [stringArg]: 42 } }]))).toBe(false);
        // A step whose argument is a malformed reference in a number slot.
        const numberTool = Object.keys(catalog).find((tool) =>
          Object.values((catalog[tool]!.input as { properties?: Record<string, { type?: string }> }).properties ?? {}).some(
            (p) => p.type === "number",
          ),
        );
        if (numberTool !== undefined) {
          const props = (catalog[numberTool]!.input as { properties: Record<string, { type?: string }> }).properties;
          const numberArg = Object.keys(props).find((key) => props[key]!.type === "number")!;
          const args = Object.fromEntries(
            Object.keys(props).map((key) => [key, props[key]!.type === "number" ? 1 : props[key]!.type === "string" ? "x" : null]),
          );
          const good =
            dialect === "openai-strict"
              ? { steps: [{ id: 1, tool: numberTool, args }], output: null }
              : { steps: [{ id: 1, tool: numberTool, args: Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null)) }] };
          expect(validate(good), JSON.stringify(validate.errors)).toBe(true);
          const asReference = structuredClone(good) as { steps: { args: Record<string, unknown> }[] };
          asReference.steps[0]!.args[numberArg] = "$1.lat";
          expect(validate(asReference)).toBe(true);
          asReference.steps[0]!.args[numberArg] = "$x.lat";
          expect(validate(asReference)).toBe(false);
        }
        expect(validate({ steps: [{ ...first, extra: 1 }] })).toBe(false);
      }
    });
  }
});

const weather: ToolCatalog = {
  weather: {
    input: {
      type: "object",
      properties: {
        city: { type: "string" },
        days: { type: "integer" },
        filters: { type: "object", properties: { min: { type: "number" } } },
        tags: { type: "array", items: { type: "number" } },
      },
      required: ["city"],
    },
  },
};

describe("where a reference may stand", () => {
  test("top-level arguments accept a reference; nested values only with deep", () => {
    const shallow = ajv().compile(planSchema(weather));
    const deep = ajv().compile(planSchema(weather, { deep: true }));
    const plan = (args: Record<string, unknown>): unknown => ({ steps: [{ id: 2, tool: "weather", args: { city: "Paris", ...args } }] });
    expect(shallow(plan({ days: "$1.days", filters: "$1", tags: "$1.tags" }))).toBe(true);
    expect(shallow(plan({ filters: { min: "$1.min" } }))).toBe(false);
    expect(deep(plan({ filters: { min: "$1.min" }, tags: [1, "$1.n"] }))).toBe(true);
    expect(shallow(plan({ days: "${1.days}" }))).toBe(false);
    expect(ajv().compile(planSchema(weather, { templates: true }))(plan({ days: "${1.days}" }))).toBe(true);
    expect(ajv().compile(planSchema(weather, { syntax: "path" }))(plan({ days: "$1.d[0] ?? 3" }))).toBe(true);
    expect(shallow(plan({ days: "$1 ?? 3" }))).toBe(false); // a default is path syntax: in seed it is no reference
  });

  test("each branch carries its tool's description; a reference is one more branch of an argument's anyOf", () => {
    const catalog: ToolCatalog = {
      t: { description: "Does t.", input: { type: "object", properties: { v: { anyOf: [{ type: "number" }, { type: "boolean" }] } } } },
    };
    for (const dialect of ["json-schema", "openai-strict"] as const) {
      const branch = planSchema(catalog, { dialect }).properties.steps.items.anyOf[0]!;
      expect(branch["description"]).toBe("Does t.");
      const v = (branch.properties.args as { properties: Record<string, unknown> }).properties["v"];
      expect(v).toEqual({
        anyOf: [
          { type: "number" },
          { type: "boolean" },
          { $ref: "#/$defs/reference" },
          ...(dialect === "openai-strict" ? [{ type: "null" }] : []),
        ],
      });
    }
  });

  test("a plain string argument takes references as it is; a constrained one gets the reference branch", () => {
    const catalog: ToolCatalog = {
      t: {
        input: {
          type: "object",
          properties: { q: { type: "string" }, units: { type: "string", enum: ["metric", "imperial"] } },
          required: ["q", "units"],
        },
      },
    };
    const args = planSchema(catalog).properties.steps.items.anyOf[0]!.properties.args as { properties: Record<string, unknown> };
    expect(args.properties["q"]).toEqual({ type: "string" });
    expect(args.properties["units"]).toEqual({ anyOf: [{ type: "string", enum: ["metric", "imperial"] }, { $ref: "#/$defs/reference" }] });
    const validate = ajv().compile(planSchema(catalog));
    expect(validate({ steps: [{ id: 2, tool: "t", args: { q: "$1.q", units: "$1.units" } }] })).toBe(true);
    expect(validate({ steps: [{ id: 2, tool: "t", args: { q: "x", units: "kelvin" } }] })).toBe(false);
  });

  test("local $refs are hoisted into the plan's $defs, recursion included", () => {
    const catalog: ToolCatalog = {
      tree: {
        input: {
          type: "object",
          properties: { node: { $ref: "#/$defs/node" } },
          required: ["node"],
          $defs: {
            node: {
              type: "object",
              properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
              required: ["name"],
            },
          },
        },
      },
    };
    for (const dialect of ["json-schema", "openai-strict"] as const) {
      const schema = planSchema(catalog, { dialect });
      if (dialect === "openai-strict") expect(strictViolations(schema)).toEqual([]);
      const validate = ajv().compile(schema);
      const children = dialect === "openai-strict" ? [{ name: "b", children: [] }] : [{ name: "b" }];
      const output = dialect === "openai-strict" ? { output: null } : {};
      expect(
        validate({ steps: [{ id: 1, tool: "tree", args: { node: { name: "a", children } } }], ...output }),
        JSON.stringify(validate.errors),
      ).toBe(true);
      expect(validate({ steps: [{ id: 1, tool: "tree", args: { node: { name: "a", children: [{ name: 3 }] } } }] })).toBe(false);
    }
  });

  test("openai-strict: optional arguments are required and nullable", () => {
    const schema = planSchema(weather, { dialect: "openai-strict" });
    const args = schema.properties.steps.items.anyOf[0]!.properties.args as { required: string[]; properties: Record<string, unknown> };
    expect(args.required).toEqual(["city", "days", "filters", "tags"]);
    expect(args.properties["days"]).toEqual({ anyOf: [{ type: "integer" }, { $ref: "#/$defs/reference" }, { type: "null" }] });
    const validate = ajv().compile(schema);
    expect(
      validate({ steps: [{ id: 1, tool: "weather", args: { city: "x", days: null, filters: null, tags: null } }], output: null }),
    ).toBe(true);
    expect(validate({ steps: [{ id: 1, tool: "weather", args: { city: "x" } }] })).toBe(false);
  });
});

describe("a plan's output", () => {
  test("json-schema: an optional object; openai-strict: name and value pairs or null, which fromStrictOutput turns back", () => {
    const plain = ajv().compile(planSchema(weather));
    const step = { id: 1, tool: "weather", args: { city: "x" } };
    expect(plain({ steps: [step] })).toBe(true);
    expect(plain({ steps: [step], output: { forecast: "$1", fixed: 3 } })).toBe(true);
    expect(plain({ steps: [step], output: "$1" })).toBe(false);
    const schema = planSchema(weather, { dialect: "openai-strict" });
    expect(strictViolations(schema)).toEqual([]);
    const strict = ajv().compile(schema);
    const strictStep = { id: 1, tool: "weather", args: { city: "x", days: null, filters: null, tags: null } };
    const written = {
      steps: [strictStep],
      output: [
        { name: "forecast", value: "$1" },
        { name: "__proto__", value: "$1.city" },
      ],
    };
    expect(strict(written), JSON.stringify(strict.errors)).toBe(true);
    expect(strict({ steps: [strictStep] })).toBe(false);
    const plan = fromStrictOutput(written, weather);
    expect(Object.keys(plan.output!)).toEqual(["forecast", "__proto__"]);
    expect(Object.getPrototypeOf(plan.output)).toBe(Object.prototype);
    expect(plan.output!["forecast"]).toBe("$1");
    expect(Object.hasOwn(fromStrictOutput({ steps: [strictStep], output: null }, weather), "output")).toBe(false);
    // A list that is not pairs is kept as it is, for readPlan to report.
    expect(fromStrictOutput({ steps: [strictStep], output: [1] }, weather).output).toEqual([1]);
  });
});

describe("planSchema's mistakes", () => {
  const cases: [string, unknown, unknown, string][] = [
    ["an empty catalog", {}, undefined, "invalid-options"],
    ["a catalog that is not an object", [1], undefined, "invalid-options"],
    ["a tool whose input is not a schema", { a: { input: 3 } }, undefined, "invalid-options"],
    ["an unknown dialect", weather, { dialect: "gemini" }, "invalid-options"],
    ["a bad syntax", weather, { syntax: "dots" }, "invalid-options"],
    ["a deep that is not a boolean", weather, { deep: "yes" }, "invalid-options"],
    ["a schema nested past the limit", { a: { input: nested(100) } }, undefined, "limit"],
  ];
  for (const [name, catalog, options, code] of cases) {
    test(`${name}: RefError ${code}`, () => {
      let thrown: unknown;
      try {
        planSchema(catalog as ToolCatalog, options as PlanSchemaOptions);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RefError);
      expect((thrown as RefError).code).toBe(code);
    });
  }

  test("a getter in the catalog is never run", () => {
    let ran = false;
    const input = { type: "object", properties: {} };
    Object.defineProperty(input.properties, "q", { enumerable: true, get: () => ((ran = true), { type: "string" }) });
    planSchema({ a: { input } });
    expect(ran).toBe(false);
  });
});

function nested(depth: number): JsonSchema {
  let schema: JsonSchema = { type: "string" };
  for (let i = 0; i < depth; i++) schema = { type: "object", properties: { a: schema } };
  return schema;
}

/** Random tool input schemas, of the kinds tool catalogs use. */
const schemaArb: fc.Arbitrary<JsonSchema> = fc.letrec<{ schema: JsonSchema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<JsonSchema>(
      true,
      {},
      { type: "string" },
      { type: "number", minimum: 0 },
      { type: "integer" },
      { type: "boolean" },
      { type: "null" },
      { type: "string", format: "date" },
      { type: "string", minLength: 1, pattern: "^a" },
      { enum: ["a", "b"] },
      { const: 3 },
      { type: ["string", "null"] },
      { type: "array" },
      { type: "object" },
    ),
    fc.record({ type: fc.constant("array"), items: tie("schema"), uniqueItems: fc.boolean() }),
    fc.record({
      type: fc.constant("object"),
      properties: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), tie("schema"), { maxKeys: 4 }),
      additionalProperties: fc.boolean(),
    }),
    fc.record({ anyOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
    fc.record({
      allOf: fc.array(
        fc.record({
          type: fc.constant("object"),
          properties: fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), tie("schema"), { maxKeys: 3 }),
        }),
        { minLength: 1, maxLength: 2 },
      ),
    }),
    fc.record({ not: tie("schema"), type: fc.constant("string") }),
  ),
})).schema;

const catalogArb: fc.Arbitrary<ToolCatalog> = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 10 }),
  fc.record(
    {
      input: fc.record({
        type: fc.constant("object"),
        properties: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), schemaArb, { maxKeys: 5 }),
        required: fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
      }),
    },
    { requiredKeys: [] },
  ),
  { minKeys: 1, maxKeys: 5 },
);

describe("properties", () => {
  test("openai-strict output keeps the strict subset's rules, for any catalog and language", () => {
    fc.assert(
      fc.property(
        catalogArb,
        fc.record({ syntax: fc.constantFrom("seed" as const, "path" as const), templates: fc.boolean(), deep: fc.boolean() }),
        (catalog, language) => {
          const schema = planSchema(catalog, { dialect: "openai-strict", ...language });
          expect(strictViolations(schema)).toEqual([]);
          expect(() => ajv().compile(schema)).not.toThrow();
        },
      ),
      { numRuns: 150 },
    );
    // 150 Ajv compilations: seconds on a quiet machine, far more on a loaded one; the bound is not the point.
  }, 300_000);

  test("the reference pattern matches exactly the strings the parser reads as one whole reference", () => {
    const pieces = fc.constantFrom(
      "$",
      "1",
      "01",
      "2",
      ".",
      "a",
      "city",
      "[",
      "]",
      "0",
      '"',
      '"k"',
      "{",
      "}",
      "${",
      " ",
      "??",
      " ?? ",
      "null",
      "-1.5e3",
      "\\",
      "x y",
      "é",
      "\n",
    );
    fc.assert(
      fc.property(
        fc.array(pieces, { maxLength: 10 }).map((parts) => parts.join("")),
        fc.constantFrom<{ syntax?: "path"; templates?: boolean }>(
          {},
          { syntax: "path" },
          { templates: true },
          { syntax: "path", templates: true },
        ),
        (text, options) => {
          const parsed = tryParseRef(text, options);
          const whole =
            parsed.ok &&
            (parsed.value.type !== "template" || (parsed.value.parts.length === 1 && parsed.value.parts[0]!.type === "interpolation"));
          expect(new RegExp(referencePattern(options), "u").test(text)).toBe(whole);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe("fromStrictOutput", () => {
  const catalog: ToolCatalog = {
    t: {
      input: {
        type: "object",
        properties: {
          a: { type: "string" },
          b: { type: ["string", "null"] },
          o: { $ref: "#/$defs/o" },
          list: { type: "array", items: { $ref: "#/$defs/o" } },
        },
        required: ["a", "b"],
        $defs: { o: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x"] } },
      },
    },
  };

  test("drops the nulls of optional properties only, following properties, items and local $refs", () => {
    const output = {
      steps: [
        { id: 1, tool: "t", args: { a: null, b: null, o: { x: null, y: null }, list: [{ x: 1, y: null }] } },
        { id: 2, tool: "unknown", args: { z: null } },
      ],
    };
    expect(fromStrictOutput(output, catalog)).toEqual({
      steps: [
        { id: 1, tool: "t", args: { a: null, b: null, o: { x: null }, list: [{ x: 1 }] } },
        { id: 2, tool: "unknown", args: { z: null } },
      ],
    });
    expect(output.steps[0]!.args.o).toEqual({ x: null, y: null }); // the output is not changed
  });

  test("what is not a plan comes back as it is, and getters never run", () => {
    expect(fromStrictOutput(42, catalog)).toBe(42);
    const noSteps = { steps: 3 };
    expect(fromStrictOutput(noSteps, catalog)).toBe(noSteps);
    let ran = false;
    const step = { id: 1, tool: "t" };
    Object.defineProperty(step, "args", { enumerable: true, get: () => ((ran = true), {}) });
    fromStrictOutput({ steps: [step] }, catalog);
    expect(ran).toBe(false);
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("trap");
        },
      },
    );
    expect(fromStrictOutput(hostile, catalog)).toBe(hostile);
  });
});

describe("documentation", () => {
  test("docs/agents.md lists every openai-strict rewrite, as STRICT_REWRITES says it", () => {
    const page = readFileSync(join(root, "docs/agents.md"), "utf8");
    for (const [construct, becomes] of STRICT_REWRITES) expect(page).toContain(`| ${construct} | ${becomes} |`);
  });
});

test("an input schema without a type still makes args an object (and Ajv's strict mode compiles it)", () => {
  const schema = planSchema({ t: { input: { properties: { q: { type: "string" } } } } });
  const args = schema.properties.steps.items.anyOf[0]!.properties.args as Record<string, unknown>;
  expect(args["type"]).toBe("object");
  const validate = ajv().compile(schema);
  expect(validate({ steps: [{ id: 1, tool: "t", args: { q: "x" } }] })).toBe(true);
  expect(validate({ steps: [{ id: 1, tool: "t", args: [] }] })).toBe(false);
});

describe("__proto__ is a name like any other", () => {
  test("a property, a keyword and a tool named __proto__ stay own data in both dialects", () => {
    const input = JSON.parse(
      '{ "type": "object", "properties": { "__proto__": { "type": "string" } }, "__proto__": { "x": 1 }, "required": ["__proto__"] }',
    ) as JsonSchema;
    const catalog = JSON.parse('{ "__proto__": { "input": { "type": "object" } } }') as ToolCatalog;
    Object.defineProperty(catalog, "t", { value: { input }, enumerable: true });
    for (const dialect of ["json-schema", "openai-strict"] as const) {
      const schema = planSchema(catalog, { dialect });
      const branches = schema.properties.steps.items.anyOf;
      expect(branches.map((branch) => branch.properties.tool.enum[0])).toEqual(["__proto__", "t"]);
      const args = branches[1]!.properties.args as Record<string, unknown>;
      expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
      expect(Object.hasOwn(args["properties"] as object, "__proto__")).toBe(true);
      if (dialect === "json-schema") expect(Object.hasOwn(args, "__proto__")).toBe(true);
    }
  });
});
