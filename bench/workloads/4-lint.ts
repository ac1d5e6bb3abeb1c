/**
 * Workload 4: `lintPlan` on plans of 1,000, 10,000 and 100,000 steps, in two shapes (a chain and a wide
 * fan-out). The target is linear growth: 10 times the steps may cost at most 12 times the time.
 */
import { setParseCacheSize } from "../../src/grammar/index.js";
import { lintPlan, lintPlanText } from "../../src/index.js";
import { measure, ratioTarget, type Row, type Target, type Workload } from "../harness.js";

const SIZES = [1_000, 10_000, 100_000] as const;

/** Step `i` of a chain: reads the previous step's result (step 0 reads nothing). */
function chainStep(i: number): unknown {
  if (i === 0) return { id: 0, tool: "geocode", args: { query: "Paris", limit: 1, lang: "en" } };
  const p = i - 1;
  return {
    id: i,
    tool: "weather",
    args: { city: `$${p}.city`, country: `$${p}.country`, lat: `$${p}.lat`, units: "metric", days: 3, note: "$5 off" },
  };
}

/** Step `i` of a fan-out: every step after 0 reads step 0's result. */
function fanStep(i: number): unknown {
  if (i === 0) return { id: 0, tool: "geocode", args: { query: "Paris", limit: 1, lang: "en" } };
  return {
    id: i,
    tool: "weather",
    args: { city: "$0.city", country: "$0.country", lat: "$0.lat", units: "metric", days: i % 7, note: "$5 off" },
  };
}

/** A plan through JSON, as a plan arrives (flat strings, no shared objects). */
function plan(size: number, step: (i: number) => unknown): { value: unknown; text: string } {
  const text = JSON.stringify({ steps: Array.from({ length: size }, (_, i) => step(i)) });
  return { value: JSON.parse(text) as unknown, text };
}

/** Input and output schemas for both tools: every argument of the fan-out plan is checked, its literals by Ajv. */
const CATALOG = {
  geocode: {
    input: {
      type: "object",
      properties: { query: { type: "string", minLength: 1 }, limit: { type: "integer", minimum: 1 }, lang: { enum: ["en", "fr"] } },
      required: ["query"],
      additionalProperties: false,
    },
    output: {
      type: "object",
      properties: { city: { type: "string" }, country: { type: "string" }, lat: { type: "number" } },
      additionalProperties: false,
    },
  },
  weather: {
    input: {
      type: "object",
      properties: {
        city: { type: "string" },
        country: { type: "string" },
        lat: { type: "number" },
        units: { enum: ["metric", "imperial"] },
        days: { type: "integer", minimum: 0, maximum: 6 },
        note: { type: "string", maxLength: 40 },
      },
      required: ["city", "units"],
      additionalProperties: false,
    },
  },
} as const;
const SCHEMA_ROW = "lintPlan, fan-out, 10,000 steps, with input schemas";

const label = (shape: string, size: number) => `lintPlan, ${shape}, ${size.toLocaleString("en")} steps`;
const textLabel = (shape: string, size: number) => `lintPlanText, ${shape}, ${size.toLocaleString("en")} steps`;

const workload: Workload = {
  id: "4",
  title: "lintPlan on plans of 1,000 to 100,000 steps (chain and fan-out)",
  async run() {
    const shapes = { chain: chainStep, "fan-out": fanStep } as const;
    const plans = new Map<string, { value: unknown; text: string }>();
    for (const [shape, step] of Object.entries(shapes)) for (const size of SIZES) plans.set(label(shape, size), plan(size, step));
    // A clean plan lints clean: the timings are of the checks, not of building diagnostics.
    const withSchemas = plans.get(label("fan-out", 10_000))!.value;
    for (const [name, { value }, options] of [
      ...[...plans].map(([name, plan]) => [name, plan, undefined] as const),
      [SCHEMA_ROW, { value: withSchemas }, { tools: CATALOG }] as const,
    ]) {
      const found = lintPlan(value, options);
      if (found.length > 0) throw new Error(`workload 4: ${name} has diagnostics: ${JSON.stringify(found[0])}`);
    }
    // Chain rows run with the parse cache off, so that every size parses every placeholder fresh (with
    // the default 10,000 entries the 1,000-step chain would fit in the cache and the larger ones not,
    // and the ratio would measure the cache rather than the linter). Fan-out rows keep the default cache.
    const chainNames = new Set(SIZES.map((size) => label("chain", size)));
    const chain100k = plans.get(label("chain", 100_000))!.text;
    const groups = { chain: { small: {}, large: {} }, "fan-out": { small: {}, large: {} } } as Record<
      string,
      { small: Record<string, () => unknown>; large: Record<string, () => unknown> }
    >;
    for (const [name, { value }] of plans)
      groups[chainNames.has(name) ? "chain" : "fan-out"]![name.includes("100,000") ? "large" : "small"][name] = () => lintPlan(value);
    groups.chain!.large[textLabel("chain", 100_000)] = () => lintPlanText(chain100k);
    groups["fan-out"]!.small[SCHEMA_ROW] = () => lintPlan(withSchemas, { tools: CATALOG });
    const measureGroup = async (group: { small: Record<string, () => unknown>; large: Record<string, () => unknown> }) => [
      ...(await measure(group.small, { batch: 1, time: 200, rounds: 5 })),
      // About a sixth of a second per call: three timed calls per round (one alone made the median of
      // five rounds swing between 11.7 and 14.6 times the 10,000-step row), one warm-up call.
      ...(await measure(group.large, { batch: 1, time: 1, rounds: 5, iterations: 3, warmupIterations: 1 })),
    ];
    const previousCacheSize = setParseCacheSize(0);
    let chainRows: Row[];
    try {
      chainRows = await measureGroup(groups.chain!);
    } finally {
      setParseCacheSize(previousCacheSize);
    }
    const fanRows = await measureGroup(groups["fan-out"]!);
    const all = [...chainRows, ...fanRows];
    const order = [
      ...Object.keys(shapes).flatMap((shape) => SIZES.map((size) => label(shape, size))),
      SCHEMA_ROW,
      textLabel("chain", 100_000),
    ];
    const rows: Row[] = order.map((name) => {
      const found = all.find((r) => r.name === name)!;
      return name.startsWith("lintPlanText")
        ? { ...found, note: `${(chain100k.length / 2 ** 20).toFixed(1)} MB of text, no target` }
        : found;
    });
    const targets: Target[] = Object.keys(shapes).flatMap((shape) => [
      ratioTarget(rows, `${shape}: t(10,000 steps) ÷ t(1,000 steps)`, label(shape, 10_000), label(shape, 1_000), "max", 12),
      ratioTarget(rows, `${shape}: t(100,000 steps) ÷ t(10,000 steps)`, label(shape, 100_000), label(shape, 10_000), "max", 12),
    ]);
    targets.push(
      ratioTarget(rows, "fan-out, 10,000 steps: t(with input schemas) ÷ t(no catalog)", SCHEMA_ROW, label("fan-out", 10_000), "max", 2),
    );
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows,
      baselines: [label("chain", 1_000)],
      targets,
      notes: [
        "One operation lints one whole plan (no catalog, so no schema checks). Each step has 6 arguments: 3 placeholders (`$<n>.city`, `$<n>.country`, `$<n>.lat`), a near-miss `$5 off`, a plain string and a number.",
        "Chain: step i reads step i-1 (every placeholder string distinct), measured with the parse cache off (`setParseCacheSize(0)`), so every size parses every placeholder: the cold worst case. Fan-out: every step reads step 0 (the same strings again: the default cache hits).",
        "The 100,000-step rows take one timed call and one warm-up call per round (about a second each); the others at least 200 ms of calls per round.",
        "lintPlanText also parses the JSON text; it finds positions only for the diagnostics there are (none here).",
        "With input schemas: the 10,000-step fan-out plan linted with a catalog giving both tools input schemas (types, enum, minimum/maximum, lengths, required, additionalProperties false) and geocode an output schema, so every step's literals go through Ajv (compiled once per tool) and every placeholder's path and type are checked.",
      ],
    };
  },
};

export default workload;
