/**
 * Tools' input schemas compiled with Ajv (a maintained JSON Schema validator), and Ajv's errors turned
 * into one finding per mistake: a missing property, a property the schema does not have, a value that
 * breaks its schema. The linter (`check-arguments.ts`) and the runner's `validateInputs` share it.
 *
 * A catalog may come from a server nobody vetted, so compiling it is bounded: a schema is copied with
 * own data only (no getter of it runs) and refused past `MAX_SCHEMA_NODES` or `MAX_SCHEMA_DEPTH`; a
 * `pattern` with a nested quantifier (`(a+)+`, `(a|a)*`: exponential backtracking) or longer than
 * `MAX_PATTERN_LENGTH` is not tested, and no pattern is tested on a string longer than
 * `MAX_PATTERN_INPUT` (so a merely polynomial pattern stays cheap); each untested pattern is reported.
 *
 * The dialect is the schema's own `$schema` (draft 2020-12 and 2019-09 by their names); without one,
 * draft-07, as the output validator reads output schemas.
 */
import AjvModule, { type ErrorObject, type ValidateFunction } from "ajv";
import Ajv2019Module from "ajv/dist/2019.js";
import Ajv2020Module from "ajv/dist/2020.js";
import formatsModule from "ajv-formats";
import { isPlainArray, isPlainObject } from "../shared/own-data.js";
import { pointerTokens } from "../shared/pointer.js";
import { cutText, excerpt, printable, quoted, safeText, valueShape } from "../shared/text.js";
import { describeTypes, typesOf, type JsonType, type TypeSet } from "./schema-walk.js";

/** Schema nodes (objects and arrays) a catalog schema may have; past it the schema is not compiled. */
export const MAX_SCHEMA_NODES = 20_000;
/** How deeply a catalog schema may nest. */
export const MAX_SCHEMA_DEPTH = 64;
/** Characters a `pattern` may have and still be tested. */
export const MAX_PATTERN_LENGTH = 1_000;
/** Characters of a string a `pattern` is tested on at most; a longer string is not tested. */
export const MAX_PATTERN_INPUT = 1_000;

/** One mistake in a value checked against an input schema. */
export type InputIssue =
  | {
      readonly kind: "missing";
      /** JSON Pointer (in the value) of the object that lacks them. */
      readonly path: string;
      readonly names: readonly { readonly name: string; readonly types: TypeSet }[];
    }
  | {
      readonly kind: "unknown";
      /** JSON Pointer of the property. */
      readonly path: string;
      readonly name: string;
      /** The names the schema declares there. */
      readonly declared: readonly string[];
      /** Whether the schema forbids other names there (else it only does not declare this one). */
      readonly closed: boolean;
    }
  | {
      readonly kind: "invalid";
      readonly path: string;
      /** What is wrong, quoting the value found (`must be a number (got "three")`). */
      readonly message: string;
      /** The same with the value reduced to its shape (`must be a number (got a string of 5 characters)`), for where values may not go. */
      readonly shapeMessage: string;
    };

/** A compiled input schema, or why it could not be compiled. */
export type CompiledInput =
  | {
      readonly ok: true;
      readonly validate: ValidateFunction;
      /** Patterns that are not tested (each with why), for one warning. */
      readonly untested: readonly string[];
    }
  | { readonly ok: false; readonly reason: string };

type AjvInstance = InstanceType<typeof AjvModule.default>;
type Dialect = "draft-07" | "2019-09" | "2020-12";

const instances = new Map<Dialect, AjvInstance>();
const compiled = new WeakMap<object, CompiledInput>();
/** The patterns found untested while one schema compiles (compiling is synchronous). */
let untestedNow: string[] = [];

/** A pattern tested with a bound: never the pathological ones, never on a huge string. */
class BoundedPattern {
  readonly #regexp: RegExp | undefined;
  readonly #key: string;

  constructor(pattern: string, flags: string) {
    const unsafe =
      pattern.length > MAX_PATTERN_LENGTH
        ? `longer than ${MAX_PATTERN_LENGTH} characters`
        : nestedQuantifier(pattern)
          ? "a repeated group that itself repeats or alternates can take exponential time"
          : undefined;
    // An invalid pattern throws here, so the schema is reported as one that cannot be compiled.
    const regexp = new RegExp(pattern, flags);
    if (unsafe !== undefined) untestedNow.push(`pattern ${quoted(pattern, 40)} is not tested (${unsafe})`);
    this.#regexp = unsafe === undefined ? regexp : undefined;
    this.#key = `${unsafe === undefined ? "" : "untested:"}/${pattern}/${flags}`;
  }

  test(text: string): boolean {
    return this.#regexp === undefined || text.length > MAX_PATTERN_INPUT || this.#regexp.test(text);
  }

  toString(): string {
    return this.#key;
  }
}

const boundedRegExp = Object.assign((pattern: string, flags: string) => new BoundedPattern(pattern, flags), {
  code: "plan-refs bounded pattern",
});

/** The validator class of each dialect. */
const VALIDATORS: Readonly<Record<Dialect, typeof AjvModule.default>> = {
  "draft-07": AjvModule.default,
  "2019-09": Ajv2019Module.default,
  "2020-12": Ajv2020Module.default,
};

function ajvFor(dialect: Dialect): AjvInstance {
  let ajv = instances.get(dialect);
  if (ajv === undefined) {
    const options = {
      strict: false,
      allErrors: true,
      verbose: true,
      ownProperties: true,
      logger: false as const,
      code: { regExp: boundedRegExp },
    };
    ajv = new VALIDATORS[dialect](options);
    formatsModule.default(ajv, { mode: "fast" });
    instances.set(dialect, ajv);
  }
  return ajv;
}

function dialectOf(schema: Readonly<Record<string, unknown>>): Dialect {
  const declared = schema["$schema"];
  if (typeof declared !== "string") return "draft-07";
  if (declared.includes("2020-12")) return "2020-12";
  if (declared.includes("2019-09")) return "2019-09";
  return "draft-07";
}

/**
 * Compile a tool's input schema, once per schema object (the result is remembered). Never throws: a
 * schema Ajv refuses, or one over the limits, is `{ ok: false, reason }`.
 *
 * @example
 * const input = compileInputSchema({ type: "object", properties: { a: { type: "number" } }, required: ["a"] });
 * input.ok && inputIssues(input, {}) // [{ kind: "missing", path: "", names: [{ name: "a", types: Set { "number" } }] }]
 */
export function compileInputSchema(schema: unknown): CompiledInput {
  if (typeof schema === "object" && schema !== null) {
    const known = compiled.get(schema);
    if (known !== undefined) return known;
  }
  const result = compileNow(schema);
  if (typeof schema === "object" && schema !== null) compiled.set(schema, result);
  return result;
}

function compileNow(schema: unknown): CompiledInput {
  let copy: unknown;
  try {
    copy = copySchema(schema);
  } catch (error) {
    return { ok: false, reason: safeText(error instanceof Error ? error.message : String(error), 160) };
  }
  if (typeof copy !== "boolean" && !isPlainObject(copy)) return { ok: false, reason: "an input schema must be an object or a boolean" };
  const ajv = ajvFor(typeof copy === "boolean" ? "draft-07" : dialectOf(copy));
  untestedNow = [];
  try {
    const validate = ajv.compile(copy as Record<string, unknown>);
    return { ok: true, validate, untested: untestedNow };
  } catch (error) {
    return { ok: false, reason: safeText(error instanceof Error ? error.message : String(error), 160) };
  } finally {
    // Ajv makes patterns while it compiles; one made later must not land in this schema's list.
    untestedNow = [];
    // Ajv keeps every schema it compiled (and refuses a second one with the same `$id`): forget it;
    // the validator keeps what it needs.
    try {
      if (typeof copy === "object") ajv.removeSchema(copy);
    } catch {
      // Nothing was added.
    }
  }
}

/**
 * A copy of a catalog schema with own data properties only (a getter never runs), bounded in size and
 * depth; throws an `Error` saying which limit it is over.
 */
function copySchema(schema: unknown): unknown {
  let nodes = 0;
  const copy = (value: unknown, depth: number): unknown => {
    if (typeof value !== "object" || value === null) return value;
    if (++nodes > MAX_SCHEMA_NODES) throw new Error(`the schema has more than ${MAX_SCHEMA_NODES} nodes`);
    if (depth > MAX_SCHEMA_DEPTH) throw new Error(`the schema is nested deeper than ${MAX_SCHEMA_DEPTH}`);
    return copyOwn(value, (child) => copy(child, depth + 1));
  };
  return copy(schema, 0);
}

/**
 * Own data of plain objects and arrays, copied with `each` applied to every member; other values
 * (class instances) become `undefined` members, accessors are left out. Objects are copied with no
 * prototype (a schema's keywords are then never found on `Object.prototype`) or, with `ordinary`, as
 * ordinary objects: the validator reads those several times faster than prototype-less ones (which
 * V8 keeps as dictionaries), and `ownProperties` makes Ajv look at own keys only, so an inherited
 * member (`constructor`) still counts as absent.
 */
function copyOwn(value: object, each: (child: unknown) => unknown, ordinary = false): unknown {
  if (isPlainArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      const descriptor = Object.getOwnPropertyDescriptor(value, i);
      out.push(descriptor !== undefined && "value" in descriptor ? each(descriptor.value) : undefined);
    }
    return out;
  }
  if (!isPlainObject(value)) return undefined;
  const out: Record<string, unknown> = ordinary ? {} : (Object.create(null) as Record<string, unknown>);
  for (const key of Object.keys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !("value" in descriptor)) continue;
    // A key `__proto__` stays an own key: a prototype-less object has no setter for it, an ordinary one is given it by definition.
    if (ordinary && key === "__proto__")
      Object.defineProperty(out, key, { value: each(descriptor.value), writable: true, enumerable: true, configurable: true });
    else out[key] = each(descriptor.value);
  }
  return out;
}

/**
 * A copy of a step's arguments for the validator: own data only, nested no deeper than `maxDepth`
 * (deeper containers, and containers met twice, become `undefined`).
 *
 * @example
 * argumentsCopy({ get a() { return 1 }, b: [2] }, 8) // { b: [2] } (the getter never ran)
 */
export function argumentsCopy(args: unknown, maxDepth: number): unknown {
  // Each container is copied once (a cycle, or a shared object met again, becomes `undefined`, so the
  // copy stays as large as the arguments), and the set is made only when a nested one is met: most
  // steps' arguments are one object of plain values.
  let seen: Set<object> | undefined;
  const copy = (value: unknown, depth: number): unknown => {
    if (typeof value !== "object" || value === null) return value;
    if (depth > maxDepth) return undefined;
    if (depth > 0) {
      seen ??= new Set([args as object]);
      if (seen.has(value)) return undefined;
      seen.add(value);
    }
    return copyOwn(value, child, true);
    function child(item: unknown): unknown {
      return copy(item, depth + 1);
    }
  };
  return copy(args, 0);
}

/** How an argument's value is known before the run: a placeholder's value is not, a template's is a string of unknown text. */
export type Unsure = "value" | "text";

/**
 * The mistakes in `value` against a compiled schema, one per mistake: Ajv's errors with the branches
 * of a failed `anyOf`/`oneOf` folded into the branch that fits best (or one line naming the
 * alternatives, when every branch fails at the value itself). `unsure` (or a function that makes it,
 * called only when there are errors) maps pointers (in `value`)
 * whose value is not known yet to what is known of it: nothing is reported there (of a template,
 * only that a string is not accepted), nor where an ancestor's verdict depends on it.
 *
 * @example
 * const input = compileInputSchema({ type: "object", properties: { n: { type: "integer" } } });
 * input.ok && inputIssues(input, { n: "three" }) // [{ kind: "invalid", path: "/n", message: 'must be an integer (got "three")', shapeMessage: "must be an integer (got a string of 5 characters)" }]
 */
export function inputIssues(
  compiled: Extract<CompiledInput, { ok: true }>,
  value: unknown,
  unsure?: ReadonlyMap<string, Unsure> | (() => ReadonlyMap<string, Unsure>),
): InputIssue[] {
  let valid: boolean;
  try {
    valid = compiled.validate(value) === true;
  } catch {
    // The schema made Ajv read something it cannot (a key `__proto__` under --disable-proto): no verdict.
    return [];
  }
  if (valid) return [];
  // Made only now, for the few steps whose arguments do not fit.
  const errors = dropUnsure(compiled.validate.errors ?? [], typeof unsure === "function" ? unsure() : unsure);
  return toIssues(fold(errors), value);
}

/** Keywords whose verdict on a value depends on the values inside it. */
const WHOLE_VALUE = new Set([
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "enum",
  "const",
  "contains",
  "uniqueItems",
  "dependentSchemas",
  "unevaluatedItems",
  "false schema",
]);

/**
 * A pattern with a group that repeats (`*`, `+`, `{n,}`, `{n,m}`) and itself holds a quantifier or an
 * alternation: the shape of exponential backtracking (`(a+)+$`, `(a|a)*$`). Conservative: a few safe
 * patterns are refused too (`([a-z]+\.)*`), never an unsafe one of that shape let through.
 *
 * @example
 * nestedQuantifier("^(a+)+$")     // true
 * nestedQuantifier("^[a-z0-9-]+$") // false
 */
export function nestedQuantifier(pattern: string): boolean {
  // Per open group: whether it holds a quantifier or an alternation.
  const groups: boolean[] = [false];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    let riskyGroup = false;
    if (c === "\\") {
      i++;
    } else if (c === "[") {
      for (i++; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i++;
    } else if (c === "(") {
      groups.push(false);
      continue;
    } else if (c === ")") {
      riskyGroup = groups.length > 1 ? groups.pop()! : false;
    } else if (c === "|") {
      groups[groups.length - 1] = true;
      continue;
    }
    const quantifier = quantifierAt(pattern, i + 1);
    if (quantifier !== undefined && quantifier.repeats && riskyGroup) return true;
    // An exact count (`{4}`) is no choice to backtrack over.
    if ((quantifier !== undefined && quantifier.variable) || riskyGroup) groups[groups.length - 1] = true;
    if (quantifier !== undefined) i = quantifier.end - 1;
  }
  return false;
}

/** The quantifier starting at `i`, if any: where it ends, whether it repeats (more than once), whether its count varies. */
function quantifierAt(pattern: string, i: number): { end: number; repeats: boolean; variable: boolean } | undefined {
  const c = pattern[i];
  let end: number;
  let repeats: boolean;
  let variable = true;
  if (c === "*" || c === "+") {
    end = i + 1;
    repeats = true;
  } else if (c === "?") {
    end = i + 1;
    repeats = false;
  } else if (c === "{") {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
    if (match === null) return undefined;
    end = i + match[0].length;
    repeats = match[2] !== undefined && (match[3] === "" || Number(match[3]) > 1);
    if (match[2] === undefined) {
      repeats = Number(match[1]) > 1;
      variable = false;
    }
  } else {
    return undefined;
  }
  // A lazy or possessive mark belongs to the quantifier.
  if (pattern[end] === "?") end++;
  return { end, repeats, variable };
}

function isUnder(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

/** Leave out what depends on values not known yet (a composite that does, with all its branches). */
function dropUnsure(errors: readonly ErrorObject[], unsure: ReadonlyMap<string, Unsure> | undefined): ErrorObject[] {
  if (unsure === undefined || unsure.size === 0) return [...errors];
  const dropped = new Array<boolean>(errors.length).fill(false);
  errors.forEach((error, i) => {
    if (!dependsOnUnsure(error, unsure)) return;
    dropped[i] = true;
    if (error.keyword === "anyOf" || error.keyword === "oneOf") for (let j = blockStart(errors, i); j < i; j++) dropped[j] = true;
  });
  return errors.filter((_, i) => !dropped[i]);
}

function dependsOnUnsure(error: ErrorObject, unsure: ReadonlyMap<string, Unsure>): boolean {
  for (const [path, what] of unsure) {
    if (path === error.instancePath) {
      // Of a template only its type is known: a string.
      if (!(what === "text" && error.keyword === "type" && !typeNames(error).has("string"))) return true;
    } else if (isUnder(path, error.instancePath)) {
      if (WHOLE_VALUE.has(error.keyword)) return true;
    } else if (isUnder(error.instancePath, path)) {
      return true;
    }
  }
  return false;
}

/** A schema path's rest that leads into a schema's definitions (where a `$ref`'s errors come from). */
const DEFINITIONS = /^\/(\$defs|definitions)\//;

/** Where the branch errors of the composite at `index` start: the run right before it, inside its value. */
function blockStart(errors: readonly ErrorObject[], index: number): number {
  const composite = errors[index]!;
  const parent = composite.schemaPath.slice(0, composite.schemaPath.lastIndexOf("/"));
  let start = index;
  for (let i = index - 1; i >= 0; i--) {
    const error = errors[i]!;
    if (!isUnder(error.instancePath, composite.instancePath)) break;
    const own = error.schemaPath.startsWith(`${composite.schemaPath}/`);
    // A sibling keyword of the same schema ends the run; an error from a `$ref` has its target's path,
    // which for a composite at the root is under the same schema too, but in its definitions.
    if (!own && error.schemaPath.startsWith(`${parent}/`) && !DEFINITIONS.test(error.schemaPath.slice(parent.length))) break;
    start = i;
  }
  return start;
}

/** The branch each error of a block belongs to (errors from a `$ref` take the branch with no error of its own before the next, else the one before). */
function branchesOf(composite: ErrorObject, block: readonly ErrorObject[]): Map<number, ErrorObject[]> {
  const prefix = `${composite.schemaPath}/`;
  const known = block.map((error) =>
    error.schemaPath.startsWith(prefix) ? Number(error.schemaPath.slice(prefix.length).split("/")[0]) : undefined,
  );
  const seen = new Set(known.filter((n): n is number => n !== undefined));
  const groups = new Map<number, ErrorObject[]>();
  let current = -1;
  block.forEach((error, i) => {
    let branch = known[i];
    if (branch === undefined) {
      const next = known.slice(i).find((n) => n !== undefined) ?? Infinity;
      let free = current + 1;
      while (seen.has(free)) free++;
      branch = free < next ? free : Math.max(current, 0);
      seen.add(branch);
    }
    current = branch;
    const group = groups.get(branch) ?? [];
    group.push(error);
    groups.set(branch, group);
  });
  return groups;
}

/** Fold every failed `anyOf`/`oneOf` into one finding (see `inputIssues`). */
function fold(errors: readonly ErrorObject[]): ErrorObject[] {
  const out: ErrorObject[] = [];
  let i = errors.length - 1;
  const folded: ErrorObject[][] = [];
  // From the end: a composite comes after its branches, and an outer one after its inner ones.
  while (i >= 0) {
    const error = errors[i]!;
    if (error.keyword !== "anyOf" && error.keyword !== "oneOf") {
      folded.unshift([error]);
      i--;
      continue;
    }
    const start = blockStart(errors, i);
    folded.unshift(foldComposite(error, errors.slice(start, i)));
    i = start - 1;
  }
  for (const part of folded) out.push(...part);
  return out;
}

function foldComposite(composite: ErrorObject, block: readonly ErrorObject[]): ErrorObject[] {
  const passing: unknown = composite.params["passingSchemas"];
  if (composite.keyword === "oneOf" && Array.isArray(passing)) {
    return [{ ...composite, message: `matches ${passing.length} of the alternatives in oneOf, but must match exactly one` }];
  }
  const groups = [...branchesOf(composite, block).values()];
  if (groups.length === 0) return [composite];
  // Every branch refuses the value itself by its type or its values: one line naming the alternatives.
  const shallow = groups.every((group) =>
    group.every(
      (error) =>
        error.instancePath === composite.instancePath &&
        (error.keyword === "type" || error.keyword === "enum" || error.keyword === "const"),
    ),
  );
  if (shallow) return [{ ...composite, keyword: "alternatives", message: `must be ${alternatives(groups)}` }];
  // Else the branch that fits best: a branch whose type is not the value's fits worst, one whose
  // constant or enum differs (a discriminator such as `kind`) next, then the one with fewest errors.
  const cost = (group: readonly ErrorObject[]): number =>
    group.reduce(
      (sum, error) =>
        sum +
        (error.keyword === "type" && error.instancePath === composite.instancePath
          ? 100
          : error.keyword === "const" || error.keyword === "enum"
            ? 10
            : 1),
      0,
    );
  let best = groups[0]!;
  for (const group of groups.slice(1)) if (cost(group) < cost(best)) best = group;
  return fold(best);
}

/** `a string, a number or "auto"` from the branches' type, enum and const errors. */
function alternatives(groups: readonly (readonly ErrorObject[])[]): string {
  const words: string[] = [];
  const add = (word: string): void => {
    if (!words.includes(word)) words.push(word);
  };
  for (const group of groups) {
    const type = group.find((error) => error.keyword === "type");
    if (type !== undefined) {
      add(describeTypes(typeNames(type)));
      continue;
    }
    for (const error of group) {
      if (error.keyword === "const") add(valueText(error.params["allowedValue"]));
      if (error.keyword === "enum") for (const value of asArray(error.params["allowedValues"])) add(valueText(value));
    }
  }
  return words.length === 0 ? "one of the alternatives" : joinSome(words, "or");
}

/** `a, b or c` (at most eight, then how many more) of texts already made safe. */
function joinSome(words: readonly string[], last: "or"): string {
  const shown = words.slice(0, 8);
  if (words.length > shown.length) return `${shown.join(", ")}, … (${words.length - shown.length} more)`;
  return shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(", ")} ${last} ${shown[shown.length - 1]}`;
}

const TYPE_NAMES: readonly string[] = ["null", "boolean", "object", "array", "number", "integer", "string"];

/** The types a `type` error names (Ajv gives one name, or the schema's list). Callers pass `type` errors only. */
function typeNames(error: ErrorObject): Set<JsonType> {
  const type: unknown = error.params["type"];
  const names: unknown[] = typeof type === "string" ? type.split(",") : Array.isArray(type) ? type : [];
  return new Set(names.filter((name): name is JsonType => typeof name === "string" && TYPE_NAMES.includes(name)));
}

function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * A JSON value as a message shows it: strings quoted and escaped, other values as JSON, anything long cut.
 *
 * @example
 * valueText("Paris") // '"Paris"'
 */
export function valueText(value: unknown): string {
  if (typeof value === "string") return quoted(value, 40);
  // JSON would show NaN and Infinity as null.
  if (typeof value === "number") return String(value);
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    // A BigInt, or a cycle: no text for it.
  }
  return json === undefined ? "a value" : excerpt(json, 40);
}

/** The value at a JSON Pointer of a copy made by `argumentsCopy` (own data only, so read directly; inherited members are absent). */
function valueAt(value: unknown, path: string): unknown {
  let node = value;
  for (const token of pointerTokens(path)) {
    // Ajv's instancePath always leads to an own member of the value it checked: never true today, kept against a surprise.
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, token)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

function toIssues(errors: readonly ErrorObject[], value: unknown): InputIssue[] {
  const issues: InputIssue[] = [];
  const missing = new Map<string, { name: string; types: TypeSet }[]>();
  const invalidAt = new Set<string>();
  for (const error of errors) {
    switch (error.keyword) {
      case "required": {
        const name = String(error.params["missingProperty"]);
        const properties: unknown = isPlainObject(error.parentSchema) ? error.parentSchema["properties"] : undefined;
        const schema = isPlainObject(properties) ? properties[name] : undefined;
        const list = missing.get(error.instancePath) ?? [];
        if (!list.some((item) => item.name === name)) list.push({ name, types: isPlainObject(schema) ? typesOf(schema) : null });
        missing.set(error.instancePath, list);
        break;
      }
      case "additionalProperties":
      case "unevaluatedProperties": {
        const name = String(error.params["additionalProperty"] ?? error.params["unevaluatedProperty"]);
        const properties: unknown = isPlainObject(error.parentSchema) ? error.parentSchema["properties"] : undefined;
        const path = `${error.instancePath}/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
        if (issues.some((issue) => issue.kind === "unknown" && issue.path === path)) break;
        issues.push({ kind: "unknown", path, name, declared: isPlainObject(properties) ? Object.keys(properties) : [], closed: true });
        break;
      }
      case "if":
        // Its `then`/`else` errors say what is wrong.
        break;
      default: {
        if (invalidAt.has(error.instancePath)) break;
        invalidAt.add(error.instancePath);
        const rule = describeError(error);
        const found = valueAt(value, error.instancePath);
        issues.push({
          kind: "invalid",
          path: error.instancePath,
          message: `${rule} (got ${valueText(found)})`,
          shapeMessage: `${rule} (got ${valueShape(found)})`,
        });
      }
    }
  }
  for (const [path, names] of missing) issues.push({ kind: "missing", path, names });
  return issues;
}

function describeError(error: ErrorObject): string {
  switch (error.keyword) {
    case "type":
      return `must be ${describeTypes(typeNames(error))}`;
    case "enum":
      return `must be one of ${joinSome(asArray(error.params["allowedValues"]).map(valueText), "or")}`;
    case "const":
      return `must be ${valueText(error.params["allowedValue"])}`;
    case "not":
      return "must not match the schema under not";
    case "false schema":
      return "is not allowed by the schema";
    case "pattern":
      return `must match the pattern ${quoted(String(error.params["pattern"]), 60)}`;
    case "format":
      return `must be of the format ${quoted(String(error.params["format"]), 40)}`;
    default:
      return printable(cutText(error.message ?? "is invalid", 120));
  }
}
