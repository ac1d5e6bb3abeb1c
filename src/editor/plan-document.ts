/**
 * The editor's view of a plan document: its steps, options, tool catalog and every string the
 * resolver reads (its string sites), with file offsets. Built from `jsonc-parser`'s tolerant syntax
 * tree, so a document being typed (unterminated strings, missing brackets) still has steps and
 * references. Values are read from the tree, never by evaluating anything, and objects are built with
 * own properties only (a `"__proto__"` key never changes a prototype).
 */
import { nestingPast } from "../plan/json-text.js";
import { jsonc } from "../plan/jsonc.js";
import { referencedStepIds } from "../grammar/ast.js";
import { classifyString, type Classification } from "../grammar/parse.js";
import type { JsoncNode as JsonNode } from "../plan/jsonc.js";
import { readTools, type ToolCatalog } from "../plan/plan.js";
import { PLAN_OPTION_NAMES, type NormalizedOptions } from "../shared/options.js";
import { callerTools, editorLanguage, type EditorOptions } from "./editor-options.js";
import { decodeStringToken, type DecodedString } from "./json-string.js";

/** A step of the document, as far as it is written. */
export interface EditorStep {
  /** The step's id, when it is a non-negative safe integer. */
  readonly id: number | undefined;
  /** Index in the steps array. */
  readonly index: number;
  /** The step's object node. */
  readonly node: JsonNode;
  /** The value node of `"id"`. */
  readonly idNode: JsonNode | undefined;
  readonly tool: string | undefined;
  /** The `"args"` object node. */
  readonly argsNode: JsonNode | undefined;
}

/** A string the resolver reads (a top-level argument, or any nested one with `deep`), where it sits in the document. (The linter's `ReferenceSite` is a reference inside a parsed string.) */
export interface StringSite {
  readonly node: JsonNode;
  readonly string: DecodedString;
  /** The step whose arguments hold the string; `undefined` for a string in the plan's `output`. */
  readonly step: EditorStep | undefined;
  /** How the resolver classifies the string (with `strict`, so malformed references are errors). */
  readonly classification: Classification;
}

/** A plan document, analysed. */
export interface PlanDocument {
  readonly text: string;
  readonly root: JsonNode | undefined;
  /** The document has a steps array (top-level `steps`, or is an array itself). */
  readonly isPlan: boolean;
  readonly steps: readonly EditorStep[];
  /** The step each id refers to (the first one with that id). */
  readonly byId: ReadonlyMap<number, EditorStep>;
  readonly options: NormalizedOptions;
  readonly catalog: ToolCatalog | undefined;
  readonly sites: readonly StringSite[];
  /** The plan's `"output"` object node, when it has one. */
  readonly outputNode?: JsonNode | undefined;
}

/** Deeper nesting than this is not analysed: the one limit of the JSON reader, kept in plan/json-text.ts. */
export { MAX_NESTING } from "../plan/json-text.js";
/** Longer documents are not analysed (16 Mi code units). */
export const MAX_DOCUMENT_LENGTH = 16 * 1024 * 1024;

/** The last few analyses, newest last: an editor asks several questions about the same text. */
const recent: { text: string; options: unknown; document: PlanDocument }[] = [];
const RECENT = 4;

/**
 * Analyse a plan document. Never throws; an unreadable document has no steps. The last few results
 * are kept (by text and options object), so several features asking about one text parse it once.
 *
 * @example
 * analyzePlan('{ "steps": [ { "id": 1, "tool": "geocode", "args": { "q": "$0" } } ] }').sites.length // 1
 */
export function analyzePlan(text: string, options?: EditorOptions): PlanDocument {
  const index = recent.findIndex((entry) => entry.text === text && entry.options === options);
  if (index >= 0) {
    const [entry] = recent.splice(index, 1);
    recent.push(entry!);
    return entry!.document;
  }
  const document = analyze(text, options);
  recent.push({ text, options, document });
  if (recent.length > RECENT) recent.shift();
  return document;
}

function analyze(text: string, options: EditorOptions | undefined): PlanDocument {
  const root =
    typeof text === "string" && text.length <= MAX_DOCUMENT_LENGTH && nestingPast(text) === undefined
      ? jsonc.parseTree(text, [], { allowTrailingComma: true })
      : undefined;
  const planOptions = root?.type === "object" ? optionsValue(property(root, "options")) : undefined;
  const normalized = editorLanguage(planOptions, options);
  const stepsNode = root?.type === "array" ? root : root?.type === "object" ? property(root, "steps") : undefined;
  const isPlan = stepsNode?.type === "array";

  const steps: EditorStep[] = [];
  const byId = new Map<number, EditorStep>();
  if (isPlan) {
    (stepsNode.children ?? []).forEach((node, index) => {
      if (node.type !== "object") return;
      const idNode = property(node, "id");
      const value: unknown = idNode?.type === "number" ? idNode.value : undefined;
      const id = typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
      const toolNode = property(node, "tool");
      const tool = toolNode?.type === "string" && typeof toolNode.value === "string" ? toolNode.value : undefined;
      const argsNode = property(node, "args");
      const step: EditorStep = { id, index, node, idNode, tool, argsNode: argsNode?.type === "object" ? argsNode : undefined };
      steps.push(step);
      if (id !== undefined && !byId.has(id)) byId.set(id, step);
    });
  }

  const given = callerTools(options);
  const inline = root?.type === "object" ? property(root, "tools") : undefined;
  const toolsValue = given !== undefined ? given : inline === undefined ? undefined : nodeValue(inline);
  let catalog: ToolCatalog | undefined;
  try {
    catalog = readTools(toolsValue, () => {}, "");
  } catch {
    catalog = undefined;
  }

  const outputNode = isPlan && root?.type === "object" ? property(root, "output") : undefined;
  const document: PlanDocument = {
    text,
    root,
    isPlan,
    steps,
    byId,
    options: normalized,
    catalog,
    sites: [],
    ...(outputNode?.type === "object" ? { outputNode } : {}),
  };
  return { ...document, sites: collectSites(document) };
}

/** Every string the resolver reads, in document order: in the steps' arguments and in the plan's output. */
function collectSites(document: PlanDocument): StringSite[] {
  const sites: StringSite[] = [];
  const strict = { ...document.options, strict: true };
  const owners: [JsonNode, EditorStep | undefined][] = document.steps.flatMap((step): [JsonNode, EditorStep][] =>
    step.argsNode === undefined ? [] : [[step.argsNode, step]],
  );
  // The output may stand before or after the steps: it goes where the document has it.
  if (document.outputNode !== undefined) {
    const at = owners.findIndex(([node]) => node.offset > document.outputNode!.offset);
    owners.splice(at < 0 ? owners.length : at, 0, [document.outputNode, undefined]);
  }
  for (const [root, step] of owners) {
    // An explicit stack, children pushed in reverse: document order without recursion.
    const stack: { node: JsonNode; depth: number }[] = [{ node: root, depth: 0 }];
    while (stack.length > 0) {
      const { node, depth } = stack.pop()!;
      if (node.type === "string") {
        if (depth === 1 || document.options.deep) {
          const string = decodeStringToken(document.text, node.offset, node.offset + node.length);
          sites.push({ node, string, step, classification: classifyString(string.value, strict) });
        }
        continue;
      }
      if ((node.type !== "object" && node.type !== "array") || (depth >= 1 && !document.options.deep) || depth > document.options.maxDepth)
        continue;
      const children = (node.children ?? [])
        .map((child) => (child.type === "property" ? child.children?.[1] : child))
        .filter((child) => child !== undefined);
      for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, depth: depth + 1 });
    }
  }
  return sites;
}

/**
 * The value node of the last property `name` of an object node (the one `JSON.parse` keeps).
 *
 * @example
 * property(jsonc.parseTree('{"a":1,"a":2}'), "a")?.value // 2
 */
export function property(node: JsonNode | undefined, name: string): JsonNode | undefined {
  if (node?.type !== "object") return undefined;
  let found: JsonNode | undefined;
  for (const child of node.children ?? []) {
    if (child.type === "property" && child.children?.[0]?.value === name) found = child.children[1];
  }
  return found;
}

/** The plan's `options`, as far as they are written. */
function optionsValue(node: JsonNode | undefined): Record<string, unknown> | undefined {
  if (node?.type !== "object") return undefined;
  const out: Record<string, unknown> = {};
  for (const name of PLAN_OPTION_NAMES) {
    const value = property(node, name);
    if (value?.type === "string" || value?.type === "boolean") out[name] = value.value;
  }
  return out;
}

/**
 * A node's value with own properties only (a `"__proto__"` key is an own key).
 *
 * @example
 * Object.hasOwn(nodeValue(jsonc.parseTree('{"__proto__":{}}')!) as object, "__proto__") // true
 */
export function nodeValue(node: JsonNode): unknown {
  switch (node.type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const child of node.children ?? []) {
        const key: unknown = child.children?.[0]?.value;
        const value = child.children?.[1];
        if (typeof key !== "string" || value === undefined) continue;
        Object.defineProperty(out, key, { value: nodeValue(value), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case "array":
      return (node.children ?? []).map(nodeValue);
    case "string":
    case "number":
    case "boolean":
      return node.value as unknown;
    default:
      return null;
  }
}

/**
 * For each step id, the steps it references (existing ones, self-references included).
 *
 * @example
 * dependenciesOf(analyzePlan(text)) // Map { 2 => Set { 1 } }
 */
export function dependenciesOf(document: PlanDocument): Map<number, Set<number>> {
  const dependencies = new Map<number, Set<number>>();
  for (const site of document.sites) {
    const from = site.step?.id;
    if (from === undefined || site.classification.kind !== "ref") continue;
    let targets = dependencies.get(from);
    if (targets === undefined) dependencies.set(from, (targets = new Set()));
    for (const target of referencedStepIds(site.classification.ast)) if (document.byId.has(target)) targets.add(target);
  }
  return dependencies;
}

/**
 * The site whose string content holds file offset `offset` (the closing quote's offset included).
 *
 * @example
 * siteAt(analyzePlan(text), text.indexOf("$1") + 1)?.string.value // "$1"
 */
export function siteAt(document: PlanDocument, offset: number): StringSite | undefined {
  // Sites are in document order: binary search on the string's start.
  const sites = document.sites;
  let low = 0;
  let high = sites.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const site = sites[mid]!;
    if (offset < site.string.contentStart) high = mid - 1;
    else if (offset > site.string.contentEnd) low = mid + 1;
    else return site;
  }
  return undefined;
}
