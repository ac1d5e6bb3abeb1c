/**
 * An agent's use of plan-refs: a model streams its plan as JSON lines, one step per line; each step
 * is parsed and linted the moment it arrives (a step with lint errors is held back, with the errors
 * and their positions printed — a real agent would send them back to the model), the good steps are
 * run at once by runPlan with typed tools, and the run's failures are printed with their step and
 * argument. The model and the tools are stand-ins that answer from constants, with no network.
 *
 * Run it with `npm run build && npx tsc -p examples/agent && node test-artifacts/examples-agent/agent.js`
 * (test/project/agent-example.test.ts runs it and compares its output with output.txt).
 */
import { defineTools, lintPlan, readPlan, runPlan, type Diagnostic, type PlanStep, type RunReport } from "plan-refs";
import { parseJsonText } from "plan-refs/plan";

/** The tools' catalog: the linter checks references against the output schemas, defineTools types the arguments from the input schemas. */
const catalog = {
  geocode: {
    description: "A city's name, country and coordinates.",
    input: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    output: {
      type: "object",
      properties: { name: { type: "string" }, country: { type: "string" }, lat: { type: "number" }, lon: { type: "number" } },
      required: ["name", "country", "lat", "lon"],
      additionalProperties: false,
    },
  },
  weather: {
    description: "Today's weather at a place.",
    input: { type: "object", properties: { lat: { type: "number" }, lon: { type: "number" } }, required: ["lat", "lon"] },
    output: {
      type: "object",
      properties: { sky: { type: "string" }, highC: { type: "number" } },
      required: ["sky", "highC"],
      additionalProperties: false,
    },
  },
  sights: {
    description: "The best-rated sights of a city.",
    input: { type: "object", properties: { city: { type: "string" }, limit: { type: "integer" } }, required: ["city"] },
    output: {
      type: "object",
      properties: {
        sights: {
          type: "array",
          items: { type: "object", properties: { name: { type: "string" } }, required: ["name"], additionalProperties: false },
        },
      },
      required: ["sights"],
      additionalProperties: false,
    },
  },
  notify: {
    description: "Send the user a message.",
    input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    output: { type: "object", properties: { sent: { type: "boolean" } }, required: ["sent"], additionalProperties: false },
  },
} as const;

const places: Readonly<Record<string, { name: string; country: string; lat: number; lon: number }>> = {
  lisbon: { name: "Lisbon", country: "Portugal", lat: 38.72, lon: -9.14 },
};

/** The messages `notify` sent, printed after the run. */
const outbox: string[] = [];

/** The tools: each argument is typed from the catalog (`city: string`, `limit?: number`, …). */
const tools = defineTools(catalog, {
  geocode: async ({ city }) => {
    const place = places[city.toLowerCase()];
    if (place === undefined) throw new Error(`no place called ${JSON.stringify(city)}`);
    return place;
  },
  weather: async ({ lat, lon }) => ({ sky: lat > 30 && lon < 0 ? "sunny" : "cloudy", highC: 17 }),
  sights: async ({ limit = 3 }, { signal }) => {
    signal.throwIfAborted();
    return { sights: [{ name: "Jerónimos Monastery" }, { name: "Belém Tower" }, { name: "São Jorge Castle" }].slice(0, limit) };
  },
  notify: async ({ text }) => {
    outbox.push(text);
    return { sent: true };
  },
});

/** What the model writes: one step per line, streamed in small pieces as a model's tokens are. */
const modelText = [
  `{"id": 1, "tool": "geocode", "args": {"city": "Lisbon"}}`,
  `{"id": 2, "tool": "weather", "args": {"lat": "$1.lat", "lon": "$1.lon"}}`,
  `{"id": 3, "tool": "sights", "args": {"city": "$1.name", "limit": 2}}`,
  `{"id": 4, "tool": "notify", "args": {"text": "In \${1.name}: \${2.sky}, up to \${2.highC} °C. Start with \${3.sights[0].name}."}}`,
  `{"id": 5, "tool": "notify", "args": {"text": "Tomorrow: \${2.skyTomorrow}"}}`,
  `{"id": 6, "tool": "geocode", "args": {"city": "Atlantis"}`,
  `{"id": 7, "tool": "geocode", "args": {"city": "Atlantis"}}`,
  `{"id": 8, "tool": "weather", "args": {"lat": "$7.lat", "lon": "$7.lon"}}`,
].join("\n");

async function* modelOutput(): AsyncGenerator<string> {
  for (let at = 0; at < modelText.length; at += 23) {
    await new Promise((resolve) => setImmediate(resolve));
    yield modelText.slice(at, at + 23);
  }
}

/** The language options of these plans: `$3.sights[0].name` paths and `${…}` templates. */
const options = { syntax: "path", templates: true } as const;

/** A diagnostic with its position: the step, the JSON Pointer, and carets under the failing characters. */
function printDiagnostic(diagnostic: Diagnostic, step: PlanStep | undefined): void {
  console.log(`  ${diagnostic.severity} ${diagnostic.code} at ${diagnostic.pointer}: ${diagnostic.message}`);
  const key = /^\/steps\/\d+\/args\/([^/]+)$/.exec(diagnostic.pointer)?.[1];
  const value = key === undefined ? undefined : step?.args[key.replaceAll("~1", "/").replaceAll("~0", "~")];
  if (typeof value !== "string" || diagnostic.span === undefined) return;
  // The value as a JSON string (every control character escaped), the carets placed through the same escapes.
  const before = JSON.stringify(value.slice(0, diagnostic.span.start)).length - 1;
  const width = JSON.stringify(value.slice(diagnostic.span.start, diagnostic.span.end)).length - 2;
  console.log(`    ${JSON.stringify(value)}`);
  console.log(`    ${" ".repeat(before)}${"^".repeat(Math.max(1, width))}`);
}

/**
 * The steps of the model's output as they arrive: each line parsed (a line that is not JSON is
 * reported with its line and column) and linted with the steps before it; a step with lint errors
 * is held back. A reference to a step that has not arrived yet is not an error here: runPlan waits
 * for it, and fails the step if it never comes.
 */
async function* checkedSteps(chunks: AsyncIterable<string>): AsyncGenerator<PlanStep> {
  const arrived: PlanStep[] = [];
  let pending = "";
  let line = 0;
  const parseLine = (text: string): PlanStep | undefined => {
    line++;
    const parsed = parseJsonText(text);
    if (!parsed.ok) {
      console.log(`model output line ${line}, column ${parsed.error.column}: not JSON: ${parsed.error.message}`);
      return undefined;
    }
    // Linted with the steps before it (its shape too: a step that is not { id, tool, args } is an error).
    // Each lint reads the steps so far again: fine for the few steps a model plans; for thousands, lint once at the end.
    const here = `/steps/${arrived.length}/`;
    const problems = lintPlan({ steps: [...arrived, parsed.value], tools: catalog }, options).filter(
      (diagnostic) => `${diagnostic.pointer}/`.startsWith(here) && diagnostic.code !== "unknown-step",
    );
    const step = readPlan([parsed.value]).plan.steps[0];
    const errors = problems.filter((diagnostic) => diagnostic.severity === "error");
    // The tool's name is the model's text: printed as a JSON string, so no control character reaches the terminal.
    const what = step === undefined ? "a step" : `step ${step.id} (tool ${JSON.stringify(step.tool)})`;
    console.log(`model output line ${line}: ${what} ${errors.length > 0 || step === undefined ? "held back" : "runs"}`);
    for (const diagnostic of problems) printDiagnostic(diagnostic, step);
    if (errors.length > 0 || step === undefined) return undefined;
    arrived.push(step);
    return step;
  };
  for await (const chunk of chunks) {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const step = parseLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      if (step !== undefined) yield step;
    }
  }
  if (pending.trim() !== "") {
    const step = parseLine(pending);
    if (step !== undefined) yield step;
  }
}

function printReport(report: RunReport): void {
  console.log(`run: ${report.status}`);
  for (const [id, result] of [...report.results].sort(([a], [b]) => a - b)) console.log(`  step ${id}: ${JSON.stringify(result)}`);
  for (const [id, error] of [...report.errors].sort(([a], [b]) => a - b)) {
    console.log(`  step ${id} failed: ${error.code}: ${error.message}`);
  }
  if (report.skipped.length > 0) console.log(`  skipped (a step they depend on failed): ${report.skipped.join(", ")}`);
  for (const text of outbox) console.log(`sent: ${JSON.stringify(text)}`);
}

const report = await runPlan(checkedSteps(modelOutput()), tools, { catalog, ...options });
printReport(report);
