/**
 * A step's arguments against its tool's input schema: `missing-argument`, `unknown-argument` and
 * `invalid-argument`, one diagnostic per mistake. Literal values are checked as they are; a
 * placeholder's value is unknown here (the reference checks compare its producer's output schema), a
 * template is a string of unknown text. The schema is compiled once per tool (`input-schema.ts`).
 */
import { argsAbsent, type LocatedStep } from "../plan/plan.js";
import type { ArgScan } from "../plan/references.js";
import type { NormalizedOptions } from "../shared/options.js";
import { isPlainObject, ownData } from "../shared/own-data.js";
import { pointerTokens } from "../shared/pointer.js";
import { listSome, quoted } from "../shared/text.js";
import { didYouMean } from "./did-you-mean.js";
import { draft, type Draft } from "./draft.js";
import { argumentsCopy, compileInputSchema, inputIssues, type CompiledInput, type InputIssue, type Unsure } from "./input-schema.js";
import { declaredKeys, describeTypes, type JsonType, type TypeSet } from "./schema-walk.js";

/** What the checks need of one tool's input schema, made once per tool. */
export interface ToolInput {
  readonly compiled: CompiledInput;
  /** The argument names the schema declares at its root when it also allows others (for warnings), else `undefined`. */
  readonly openNames: ReadonlySet<string> | undefined;
}

/**
 * Compile a tool's input schema and read what the warnings need.
 *
 * @example
 * toolInput({ type: "object", properties: { q: { type: "string" } } }).openNames // Set { "q" }
 */
export function toolInput(schema: unknown): ToolInput {
  const compiled = compileInputSchema(schema);
  let openNames: ReadonlySet<string> | undefined;
  if (
    compiled.ok &&
    isPlainObject(schema) &&
    ownData(schema, "additionalProperties") !== false &&
    ownData(schema, "unevaluatedProperties") !== false
  ) {
    const additional = ownData(schema, "additionalProperties");
    const names = declaredKeys(schema);
    if (names.size > 0 && !isPlainObject(additional) && ownData(schema, "patternProperties") === undefined) openNames = names;
  }
  return { compiled, openNames };
}

/**
 * Push `invalid-catalog` for a tool whose input schema cannot be compiled, or has patterns that are
 * not tested (reported once per tool, at the first step that calls it).
 */
export function reportCatalog(step: LocatedStep, input: ToolInput, out: Draft[]): void {
  const where = { pointer: `${step.pointer}/tool`, step: step.id };
  if (!input.compiled.ok) {
    out.push(
      draft(
        "invalid-catalog",
        "warning",
        `the input schema of tool ${quoted(step.tool, 40)} cannot be compiled (${input.compiled.reason}); its arguments are not checked`,
        where,
      ),
    );
  } else if (input.compiled.untested.length > 0) {
    const notes = input.compiled.untested;
    out.push(
      draft(
        "invalid-catalog",
        "warning",
        `the input schema of tool ${quoted(step.tool, 40)}: ${notes.slice(0, 3).join("; ")}${notes.length > 3 ? ` (and ${notes.length - 3} more)` : ""}`,
        where,
      ),
    );
  }
}

/**
 * Check one step's arguments, pushing diagnostics to `out`.
 *
 * @example
 * checkArguments(step, toolInput(schema), scanArgs(step.args), normalizeOptions({}), out);
 */
export function checkArguments(step: LocatedStep, input: ToolInput, scan: ArgScan, options: NormalizedOptions, out: Draft[]): void {
  if (!input.compiled.ok) return;
  const unsure = (): Map<string, Unsure> => {
    const map = new Map<string, Unsure>();
    for (const ref of scan.refs) {
      const ast = ref.ast;
      const text = ast.type === "template" && !(ast.parts.length === 1 && ast.parts[0]?.type === "interpolation");
      map.set(ref.pointer, text ? "text" : "value");
    }
    return map;
  };
  let value: unknown;
  try {
    value = argumentsCopy(step.args, options.maxDepth);
  } catch {
    // Arguments that cannot be read (a Proxy trap) are reported by the other checks.
    return;
  }
  const issues = inputIssues(input.compiled, value, unsure);
  if (input.openNames !== undefined && isPlainObject(value)) {
    for (const name of Object.keys(value)) {
      const path = `/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (!input.openNames.has(name) && !issues.some((issue) => issue.path === path))
        issues.push({ kind: "unknown", path, name, declared: [...input.openNames], closed: false });
    }
  }
  for (const issue of issues) out.push(diagnosticOf(step, issue));
}

function diagnosticOf(step: LocatedStep, issue: InputIssue): Draft {
  const argsPointer = `${step.pointer}/args`;
  const tool = quoted(step.tool, 40);
  switch (issue.kind) {
    case "missing": {
      const names = issue.names.map(({ name, types }) => `${quoted(name, 40)}${typeNote(types)}`);
      const list = names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
      const plural = names.length === 1 ? "" : "s";
      const add = issue.names.map(({ name, types }) => ({ name, value: placeholderOf(types) }));
      if (issue.path === "") {
        const where = argsAbsent(step) ? { pointer: step.pointer } : { pointer: argsPointer, at: "key" as const };
        return draft("missing-argument", "error", `tool ${tool} needs argument${plural} ${list}`, {
          ...where,
          step: step.id,
          fix: { add },
        });
      }
      return draft(
        "missing-argument",
        "error",
        `${argumentName(issue.path)} of ${tool} needs propert${names.length === 1 ? "y" : "ies"} ${list}`,
        { pointer: argsPointer + issue.path, step: step.id, at: "key", fix: { add } },
      );
    }
    case "unknown": {
      const parent = issue.path.slice(0, issue.path.lastIndexOf("/"));
      const suggestion = didYouMean(issue.name, issue.declared);
      const known =
        suggestion !== undefined
          ? `; did you mean ${quoted(suggestion, 40)}?`
          : issue.declared.length === 0
            ? ""
            : ` (${parent === "" ? "arguments" : "properties"}: ${listSome(issue.declared)})`;
      const subject =
        parent === ""
          ? `tool ${tool} has no argument ${quoted(issue.name, 40)}`
          : `${argumentName(parent)} of ${tool} has no property ${quoted(issue.name, 40)}`;
      const closed = issue.closed;
      return draft(
        "unknown-argument",
        closed ? "error" : "warning",
        `${subject}${known}${closed ? "" : "; its schema allows other arguments, so the tool may ignore it"}`,
        {
          pointer: argsPointer + issue.path,
          step: step.id,
          at: "key",
          fix: suggestion === undefined ? undefined : { replace: suggestion },
        },
      );
    }
    case "invalid":
      return draft("invalid-argument", "error", `${argumentName(issue.path)} of ${tool} ${issue.message}`, {
        pointer: argsPointer + issue.path,
        step: step.id,
      });
  }
}

/** `argument "q"` at the top, `argument /filters/pool` below it. */
function argumentName(path: string): string {
  const tokens = pointerTokens(path);
  return tokens.length === 1 ? `argument ${quoted(tokens[0]!, 40)}` : `argument ${quoted(path, 60)}`;
}

const PLACEHOLDERS: readonly [JsonType, unknown][] = [
  ["string", ""],
  ["integer", 0],
  ["number", 0],
  ["boolean", false],
  ["array", []],
  ["object", {}],
  ["null", null],
];

/** A value of the right type for a missing property, for a quick fix to fill in (`null` when any type goes). */
function placeholderOf(types: TypeSet): unknown {
  if (types === null) return null;
  return PLACEHOLDERS.find(([type]) => types.has(type))?.[1] ?? null;
}

function typeNote(types: TypeSet): string {
  return types === null || types.size === 0 ? "" : ` (${describeTypes(types)})`;
}
