/**
 * The tools of one `runPlan` run and their output schemas, each looked up once per name: a tool's
 * function is an own data property of the tools object (a getter never runs), its output schema an own
 * data property of its catalog entry.
 */
import type { JsonSchema, LocatedStep, ToolCatalog } from "../plan/plan.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { ownData } from "../shared/own-data.js";
import {
  checkOutput,
  describeError,
  outputSchemaOf,
  STEP_FAILURES,
  toolNames,
  unknownToolMessage,
  type StepFailure,
  type ToolFunction,
} from "../step/attempt.js";
import { prepareOutputSchema } from "../step/output-validator.js";
import type { ToolFunctions } from "./run-options.js";

export class RunTools {
  readonly #functions = new Map<string, ToolFunction | undefined>();
  readonly #schemas = new Map<string, JsonSchema | undefined>();

  constructor(
    readonly tools: ToolFunctions,
    /** The catalog given in the options, else (once a whole plan is read) the plan's inline `tools`. */
    public catalog: ToolCatalog | undefined,
  ) {}

  /** The tool's function, looked up once per name. Throws what a hostile tools object throws (a Proxy trap). */
  lookUp(name: string): ToolFunction | undefined {
    let fn = this.#functions.get(name);
    if (fn === undefined && !this.#functions.has(name)) {
      const value = ownData(this.tools, name);
      fn = typeof value === "function" ? (value as ToolFunction) : undefined;
      this.#functions.set(name, fn);
    }
    return fn;
  }

  /** Every tool of a whole plan looked up, once: a tools object that throws rejects the run before anything runs. */
  lookUpAll(steps: readonly LocatedStep[], diagnostics: Diagnostic[]): void {
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      if (this.lookUp(step.tool) === undefined) {
        diagnostics.push({
          code: "unknown-tool",
          severity: "error",
          step: step.id,
          pointer: `${step.pointer}/tool`,
          message: unknownToolMessage(step.tool, " among the tools given to runPlan", this.names()),
        });
      }
    }
  }

  /** The names there are, for a did-you-mean. */
  names(): string[] {
    return toolNames(this.tools);
  }

  /** The catalog's output schema of a tool, if it has a usable one (looked up once; compiled ahead when `prepare`). */
  schemaOf(tool: string, prepare: boolean): JsonSchema | undefined {
    if (this.catalog === undefined) return undefined;
    let schema = this.#schemas.get(tool);
    if (schema === undefined && !this.#schemas.has(tool)) {
      schema = outputSchemaOf(this.catalog, tool);
      this.#schemas.set(tool, schema);
    }
    if (prepare && schema !== undefined) prepareOutputSchema(schema);
    return schema;
  }

  /** Why a tool's result fails its output schema, or `undefined`. Never throws. */
  checkOutput(tool: string, value: unknown): StepFailure | undefined {
    let schema: JsonSchema | undefined;
    try {
      schema = this.schemaOf(tool, false);
    } catch (error) {
      // The catalog is read here too: a getter or Proxy trap that throws fails the step, not the run.
      return STEP_FAILURES.invalidOutput(`the result could not be read: ${describeError(error)}`);
    }
    return checkOutput(schema, value);
  }
}
