/**
 * The catalog stage of the linter: tool names, and the paths and types of references checked against
 * the tools' JSON Schemas. Each (tool, path) pair is walked once and remembered, so a plan with
 * 100,000 steps calling the same tools costs one walk per distinct path.
 */
import { assertNever, type Expression, type RefAst, type ReferenceNode, type Segment } from "../grammar/ast.js";
import type { LocatedStep, ToolCatalog } from "../plan/plan.js";
import type { ArgScan } from "../plan/references.js";
import type { NormalizedOptions } from "../shared/options.js";
import { isPlainArray, isPlainObject, ownData as own } from "../shared/own-data.js";
import { pointerTokens } from "../shared/pointer.js";
import { excerpt, listSome, quoted, safeText } from "../shared/text.js";
import { isPathLikeKey, pathSyntaxHint } from "../shared/path-hint.js";
import { checkArguments, reportCatalog, toolInput, type ToolInput } from "./check-arguments.js";
import { didYouMean } from "./did-you-mean.js";
import { draft, type Draft } from "./draft.js";
import {
  declaredKeys,
  describeTypes,
  intersectTypes,
  typeOfValue,
  unionTypes,
  walkSchema,
  type PathStep,
  type TypeSet,
  type WalkOutcome,
} from "./schema-walk.js";

/** Where a diagnostic goes: the argument's pointer and the step. */
interface Where {
  readonly pointer: string;
  /** The step the text is in; absent in the plan's `output`. */
  readonly step?: number | undefined;
}

/**
 * Checks against one tool catalog, with memoized schema walks.
 *
 * @example
 * const schemas = new SchemaChecker(catalog, (id) => stepsById.get(id));
 * schemas.checkTool(step, out);
 */
export class SchemaChecker {
  readonly #catalog: ToolCatalog;
  readonly #stepById: (id: number) => LocatedStep | undefined;
  readonly #walks = new Map<string, WalkOutcome>();
  readonly #declared = new Map<string, ReadonlySet<string> | undefined>();
  readonly #inputs = new Map<string, ToolInput | undefined>();
  readonly #specs = new Map<string, { input?: unknown; output?: unknown } | undefined>();
  readonly #outputWalks = new WeakMap<readonly Segment[], Map<string, WalkOutcome>>();
  /** `type-mismatch` messages (`null`: none) by tool, argument pointer and text. */
  readonly #typeVerdicts = new Map<string, Map<string, Map<string, string | null>>>();
  #names: string[] | undefined;

  constructor(catalog: ToolCatalog, stepById: (id: number) => LocatedStep | undefined) {
    this.#catalog = catalog;
    this.#stepById = stepById;
  }

  /** `unknown-tool`: the step's tool is not in the catalog. */
  checkTool(step: LocatedStep, out: Draft[]): void {
    if (this.#spec(step.tool) !== undefined) return;
    this.#names ??= Object.keys(this.#catalog);
    const suggestion = didYouMean(step.tool, this.#names);
    const hint =
      suggestion !== undefined
        ? `; did you mean ${quoted(suggestion)}?`
        : this.#names.length === 0
          ? " (the catalog is empty)"
          : ` (tools: ${listSome(this.#names)})`;
    out.push(
      draft("unknown-tool", "error", `tool ${quoted(step.tool)} is not in the tool catalog${hint}`, {
        pointer: `${step.pointer}/tool`,
        step: step.id,
        fix: suggestion === undefined ? undefined : { replace: suggestion },
      }),
    );
  }

  /**
   * `unknown-key` and `not-indexable`: the reference's path checked against the producing tool's
   * output schema. Returns whether it reported something.
   */
  checkPath(text: string, node: ReferenceNode, guarded: boolean, target: LocatedStep, where: Where, out: Draft[]): boolean {
    if (node.path.length === 0) return false;
    const outcome = this.#walkOutput(target.tool, node.path);
    if (outcome === undefined || outcome.ok) return false;
    const segment = node.path[outcome.at];
    if (segment === undefined) return false;
    const owner = `step ${target.id} (${safeText(target.tool, 40)})`;
    const at = outcome.at === 0 ? "" : ` at ${pathText(node.path, outcome.at)}`;
    const fallback = guarded ? "; the ?? default is always used" : "";
    let message: string;
    let fix: { replace: string } | undefined;
    if (outcome.code === "not-indexable") {
      const wants = segment.type === "index" ? "an index (only arrays have indexes)" : "a key (only objects have keys)";
      message = `${refLabel(text, node)}: ${owner}'s output${at} is ${describeTypes(outcome.types)} by its schema, which cannot take ${wants}`;
    } else if (segment.type === "index") {
      message = `${refLabel(text, node)}: ${owner}'s output${at} has at most ${outcome.maxItems ?? 0} items by its schema, so index ${segment.index} cannot exist`;
    } else {
      const suggestion = didYouMean(segment.name, outcome.keys);
      fix = suggestion === undefined ? undefined : segmentFix(text, segment, suggestion);
      const known =
        suggestion !== undefined
          ? `; did you mean ${quoted(suggestion)}?`
          : outcome.keys.length === 0
            ? " (it allows no keys)"
            : ` (keys: ${listSome(outcome.keys)})`;
      message = `${refLabel(text, node)}: ${owner}'s output schema has no key ${quoted(segment.name, 40)}${at}${known}${seedHint(node, segment.name, outcome.keys)}`;
    }
    out.push(draft(outcome.code, guarded ? "warning" : "error", message + fallback, { ...where, span: segment.span, fix }));
    return true;
  }

  /**
   * The property names the output schema of `tool` declares at its root (`undefined`: the tool or its
   * output schema is unknown, so nothing is known), remembered per tool.
   */
  declaredOutputKeys(tool: string): ReadonlySet<string> | undefined {
    if (this.#declared.has(tool)) return this.#declared.get(tool);
    const output = this.#spec(tool)?.output;
    const keys = output === undefined ? undefined : declaredKeys(output);
    this.#declared.set(tool, keys);
    return keys;
  }

  /**
   * `type-mismatch`: a whole-string placeholder whose referenced value's schema types cannot meet the
   * types the consuming tool's input schema allows for that argument. Templates with text always
   * give a string and are not checked.
   */
  checkType(step: LocatedStep, argPointer: string, text: string, ast: RefAst, where: Where, out: Draft[]): void {
    // For a top-level argument the verdict depends on the tool, the argument and the text only (the
    // text names the step it reads): the same placeholder in the same argument again is judged once.
    // (Deeper, the path also depends on the step's args: an object's key "0" or an array's index.)
    const top = argPointer.lastIndexOf("/") === 0;
    // Maps by tool, then argument, then text: no key string is built per placeholder.
    let byText: Map<string, string | null> | undefined;
    if (top) {
      let byArgument = this.#typeVerdicts.get(step.tool);
      if (byArgument === undefined) this.#typeVerdicts.set(step.tool, (byArgument = new Map<string, Map<string, string | null>>()));
      byText = byArgument.get(argPointer);
      if (byText === undefined) byArgument.set(argPointer, (byText = new Map<string, string | null>()));
    }
    let message = byText?.get(text);
    if (message === undefined) {
      message = this.#typeMismatch(step, argPointer, text, ast) ?? null;
      byText?.set(text, message);
    }
    if (message !== null) out.push(draft("type-mismatch", "error", message, { ...where, span: ast.span }));
  }

  #typeMismatch(step: LocatedStep, argPointer: string, text: string, ast: RefAst): string | undefined {
    const input = this.#spec(step.tool)?.input;
    if (input === undefined) return undefined;
    const expression = wholeExpression(ast);
    if (expression === undefined) return undefined;
    const produced = this.#expressionTypes(expression);
    if (produced === null || produced.size === 0) return undefined;
    const path = argPath(step.args, argPointer);
    if (path === undefined) return undefined;
    const accepted = this.#walk(`in:${step.tool}`, input, path);
    if (!accepted.ok || accepted.types === null || accepted.types.size === 0) return undefined;
    if (intersectTypes(produced, accepted.types).size > 0) return undefined;
    const source = expression.type === "reference" ? this.#ownerOf(expression) : undefined;
    const tokens = pointerTokens(argPointer);
    const argument = tokens.length === 1 ? quoted(tokens[0]!, 40) : argPointer;
    return `${quoted(text, 40)} is ${describeTypes(produced)} by ${source === undefined ? "the output schemas" : `the output schema of ${source}`}, but argument ${argument} of ${quoted(step.tool, 40)} takes ${describeTypes(accepted.types)}`;
  }

  /**
   * `missing-argument`, `unknown-argument`, `invalid-argument`: the step's arguments against its
   * tool's input schema (compiled once per tool; `invalid-catalog` once when it cannot be).
   */
  checkArguments(step: LocatedStep, scan: ArgScan, options: NormalizedOptions, out: Draft[]): void {
    let input = this.#inputs.get(step.tool);
    if (input === undefined) {
      if (this.#inputs.has(step.tool)) return;
      const schema = this.#spec(step.tool)?.input;
      // An input that is not a schema at all is the catalog's own problem, reported where it is read.
      input = typeof schema === "boolean" || isPlainObject(schema) ? toolInput(schema) : undefined;
      this.#inputs.set(step.tool, input);
      if (input === undefined) return;
      reportCatalog(step, input, out);
    }
    checkArguments(step, input, scan, options, out);
  }

  /** `step 1 (geocode)` for the step a reference reads. */
  #ownerOf(node: ReferenceNode): string | undefined {
    const id = Number(node.step.id);
    const target = Number.isSafeInteger(id) ? this.#stepById(id) : undefined;
    return target === undefined ? undefined : `step ${target.id} (${safeText(target.tool, 40)})`;
  }

  #spec(tool: string): { input?: unknown; output?: unknown } | undefined {
    // Read once per tool: every step calls it several times.
    if (this.#specs.has(tool)) return this.#specs.get(tool);
    const spec = own(this.#catalog, tool);
    const read = isPlainObject(spec) ? { input: own(spec, "input"), output: own(spec, "output") } : undefined;
    this.#specs.set(tool, read);
    return read;
  }

  #walkOutput(tool: string, path: readonly Segment[]): WalkOutcome | undefined {
    const output = this.#spec(tool)?.output;
    if (output === undefined) return undefined;
    // The parser hands out one (frozen) AST per distinct string, so a path seen again is the same array.
    let byTool = this.#outputWalks.get(path);
    if (byTool === undefined) {
      byTool = new Map();
      this.#outputWalks.set(path, byTool);
    }
    let outcome = byTool.get(tool);
    if (outcome === undefined) {
      outcome = this.#walk(`out:${tool}`, output, path.map(toPathStep));
      byTool.set(tool, outcome);
    }
    return outcome;
  }

  #walk(prefix: string, schema: unknown, path: readonly PathStep[]): WalkOutcome {
    const key = `${prefix}\u0000${path.map((step) => (step.kind === "index" ? `[${step.index}]` : JSON.stringify(step.name))).join("")}`;
    let outcome = this.#walks.get(key);
    if (outcome === undefined) {
      outcome = walkSchema(schema, path);
      this.#walks.set(key, outcome);
    }
    return outcome;
  }

  /** The types an expression can produce (`null`: unknown); a `??` chain can produce any of its parts. */
  #expressionTypes(expression: Expression): TypeSet {
    const parts: TypeSet[] = [];
    let current: Expression | Extract<Expression, { type: "default" }>["fallback"] = expression;
    for (;;) {
      if (current.type === "literal") {
        parts.push(new Set([typeOfValue(current.value)]));
        break;
      }
      if (current.type === "reference") {
        parts.push(this.#referenceTypes(current));
        break;
      }
      parts.push(this.#referenceTypes(current.reference));
      current = current.fallback;
    }
    return unionTypes(parts);
  }

  #referenceTypes(node: ReferenceNode): TypeSet {
    const id = Number(node.step.id);
    const target = Number.isSafeInteger(id) ? this.#stepById(id) : undefined;
    if (target === undefined) return null;
    const outcome = this.#walkOutput(target.tool, node.path);
    return outcome?.ok === true ? outcome.types : null;
  }
}

/** The segment written with the suggested key, in the form it was written (`.key` or `["key"]`), when that form can hold it. */
function segmentFix(text: string, segment: Segment, suggestion: string): { replace: string } | undefined {
  const written = text.slice(segment.span.start, segment.span.end);
  if (segment.type === "quoted-key") return { replace: `[${JSON.stringify(suggestion)}]` };
  if (written.startsWith(".") && /^[A-Za-z_][A-Za-z0-9_]*$/.test(suggestion)) return { replace: `.${suggestion}` };
  return undefined;
}

/** The expression whose raw value an argument receives, or `undefined` for a template that builds text. */
function wholeExpression(ast: RefAst): Expression | undefined {
  switch (ast.type) {
    case "reference":
    case "default":
      return ast;
    case "template": {
      const [only] = ast.parts;
      return ast.parts.length === 1 && only?.type === "interpolation" ? only.expression : undefined;
    }
    default:
      return assertNever(ast);
  }
}

function toPathStep(segment: Segment): PathStep {
  return segment.type === "index" ? { kind: "index", index: segment.index } : { kind: "key", name: segment.name };
}

/** The path of an argument inside `args` (keys of objects, indexes of arrays), read from the args themselves. */
function argPath(args: unknown, pointer: string): PathStep[] | undefined {
  const path: PathStep[] = [];
  let node = args;
  for (const token of pointerTokens(pointer)) {
    if (isPlainArray(node)) path.push({ kind: "index", index: Number(token) });
    else if (isPlainObject(node)) path.push({ kind: "key", name: token });
    else return undefined;
    node = own(node, token);
  }
  return path;
}

/** The part of a path before segment `upTo`, as text: `.address` for `$1.address.zip` failing at `zip`. */
function pathText(path: readonly Segment[], upTo: number): string {
  return path
    .slice(0, upTo)
    .map((segment) =>
      segment.type === "index"
        ? `[${segment.index}]`
        : segment.type === "quoted-key"
          ? `[${quoted(segment.name, 30)}]`
          : `.${safeText(segment.name, 30)}`,
    )
    .join("");
}

/**
 * `$1.city` for messages: the reference as written (with its `$`, quotes as they are), safe to print.
 *
 * @example
 * refLabel("in ${1.city}", node) // "$1.city"
 */
export function refLabel(text: string, node: ReferenceNode): string {
  const written = text.slice(node.span.start, node.span.end);
  return excerpt(written.startsWith("$") ? written : `$${written}`, 60);
}

/** In the seed syntax `$1.address.city` is the one key "address.city": say so when it reads like a path (the rule of `path-like-key`). */
function seedHint(node: ReferenceNode, name: string, keys: readonly string[]): string {
  return node.syntax === "seed" && isPathLikeKey(name, new Set(keys)) ? `; ${pathSyntaxHint(name)}` : "";
}
