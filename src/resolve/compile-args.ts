/**
 * `compileArgs`: `resolveRefs` split in two for arguments that are resolved against many results (the
 * same tool call in a loop, a plan step retried, a template reused). The arguments are walked and every
 * placeholder parsed once, at compile time; each call then only evaluates the placeholders and copies
 * the containers on the way to them.
 *
 * Same semantics and errors as `resolveRefs(args, results, options)`, call for call: both forms run the
 * one walk of walk-args.ts (reads, order, checks and errors defined once), and an error that depends only on `args`
 * (a syntax error under `strict`, a cycle, a depth or placeholder limit, a getter) is not thrown at
 * compile time but replayed by every call at the point where resolveRefs would throw it, after the
 * placeholders that come before it. test/resolve/compile-args.test.ts checks the equivalence on generated input.
 */
import type { RefAst } from "../grammar/ast.js";
import { atArgument, RefError } from "../shared/errors.js";
import { normalizeOptions, type NormalizedOptions, type ResolveOptions } from "../shared/options.js";
import { assertResults, stackLimit, type Results } from "./access.js";
import { callContext, evaluateAst, type EvaluationContext } from "./evaluate.js";
import { ArgsWalk, assertArgs, childPointer, defineOwn } from "./walk-args.js";

/** A compiled set of arguments: resolves them against one set of step results. */
export type CompiledArgs = (results: Results) => Record<string, unknown>;

/** What a placeholder needs on each call. */
interface RefNode {
  readonly kind: "ref";
  readonly ast: RefAst;
  /** Where it is in `args`, for errors. */
  readonly pointer: string;
  /** Its text (the evaluator's `source`, for errors). */
  readonly source: string;
}

/** A container (with `deep`) that holds a placeholder somewhere inside: rebuilt on each call. */
interface ContainerNode {
  readonly kind: "object" | "array";
  readonly original: Record<string, unknown> | unknown[];
  readonly keys: readonly string[];
  /** The entries as read at compile time. */
  readonly originals: readonly unknown[];
  readonly nodes: readonly Node[];
  readonly nullPrototype: boolean;
  readonly length: number;
  /** Reached from more than one place: resolved once per call and shared, as resolveRefs does. */
  shared: boolean;
}

/** A value that comes back as it is (not a placeholder, or a container with none inside). */
interface ValueNode {
  readonly kind: "value";
  readonly value: unknown;
}

type Node = ValueNode | RefNode | ContainerNode;

/** The compiled top level: the output object's keys in order, and how to fill each one. */
interface Program {
  readonly keys: readonly string[];
  readonly nodes: readonly Node[];
  /** The output with every constant in place; placeholders are written over it on each call. */
  readonly template: Record<string, unknown>;
  /** Indexes of the top-level entries that are not constant. */
  readonly live: readonly number[];
  readonly hasShared: boolean;
  /** The options compiled with (each call's evaluation context takes its limits). */
  readonly options: NormalizedOptions;
  /** An error in `args`: each call evaluates `refsBefore` (in walk order), then throws `error`. */
  readonly pending: { readonly refsBefore: readonly RefNode[]; readonly error: unknown } | undefined;
}

/**
 * Compile tool-call arguments once, for resolving them against many sets of results. Returns
 * `(results) => resolvedArgs`, which behaves exactly like `resolveRefs(args, results, options)`: same
 * output, same structural sharing, same errors (`KeyError` with the `arg` pointer, `RefSyntaxError`
 * under `strict`, `RefError` codes `cycle`, `limit`, `access`…), thrown at the same point.
 *
 * `args` is snapshotted: its keys, strings and containers are read once, here, so changing `args`
 * afterwards does not change what the compiled function returns. Values that are not placeholders are
 * returned by reference, as `resolveRefs` does (the same objects, not copies). Options and the type of
 * `args` are checked right away (`invalid-options`, `invalid-args`); any other error in `args` is thrown
 * by each call, where `resolveRefs` would throw it. Neither `args` nor `results` is ever mutated.
 *
 * @example
 * const resolve = compileArgs({ q: "$1.city", units: "metric" })
 * resolve({ 1: { city: "Paris" } }) // { q: "Paris", units: "metric" }
 * resolve({ 1: { city: "Lyon" } })  // { q: "Lyon", units: "metric" }
 * @example
 * compileArgs({ filters: [{ city: "$1.address.city" }] }, { syntax: "path", deep: true })(results)
 */
export function compileArgs(args: Readonly<Record<string, unknown>>, options?: ResolveOptions): CompiledArgs {
  const normalized = normalizeOptions(options);
  assertArgs(args);
  const program = new Compiler(normalized).compileTop(args);
  return (results: Results): Record<string, unknown> => {
    assertResults(results);
    try {
      return run(program, results);
    } catch (error) {
      throw stackLimit(error);
    }
  };
}

const NO_ENTRIES: readonly never[] = Object.freeze([]);

/** The compiled form of the walk (walk-args.ts): nodes instead of values, placeholders parsed once. */
class Compiler extends ArgsWalk<Node> {
  /** Every placeholder met so far, in walk order (replayed before an error in `args`). */
  readonly #refs: RefNode[] = [];
  #hasShared = false;

  compileTop(args: Record<string, unknown>): Program {
    let nodes: Node[];
    try {
      nodes = this.walkTop(args);
    } catch (error) {
      const pending = { refsBefore: [...this.#refs], error: stackLimit(error) };
      return { keys: NO_ENTRIES, nodes: NO_ENTRIES, template: {}, live: NO_ENTRIES, hasShared: false, options: this.options, pending };
    }
    const keys = this.topKeys;
    const template: Record<string, unknown> = {};
    const live: number[] = [];
    nodes.forEach((node, i) => {
      defineOwn(template, keys[i]!, node.kind === "value" ? node.value : undefined);
      if (node.kind !== "value") live.push(i);
    });
    return { keys, nodes, template, live, hasShared: this.#hasShared, options: this.options, pending: undefined };
  }

  protected constant(value: unknown): Node {
    return { kind: "value", value };
  }

  protected placeholder(ast: RefAst, text: string, parent: string, key: string): Node {
    const node: RefNode = { kind: "ref", ast, pointer: childPointer(parent, key), source: text };
    this.#refs.push(node);
    return node;
  }

  protected override again(done: Node): Node {
    if (done.kind === "object" || done.kind === "array") {
      done.shared = true;
      this.#hasShared = true;
    }
    return done;
  }

  protected container(
    container: Record<string, unknown> | unknown[],
    plainArray: boolean,
    keys: readonly string[],
    values: readonly unknown[],
    nodes: readonly Node[],
  ): Node {
    // No placeholder inside: the container itself comes back, on every call (structural sharing).
    if (nodes.every((node) => node.kind === "value")) return { kind: "value", value: container };
    return {
      kind: plainArray ? "array" : "object",
      original: container,
      keys,
      originals: values,
      nodes,
      nullPrototype: !plainArray && Object.getPrototypeOf(container) === null,
      length: plainArray ? (container as unknown[]).length : 0,
      shared: false,
    };
  }
}

function run(program: Program, results: Results): Record<string, unknown> {
  // One evaluation context per call: its step memo belongs to these results.
  const context = callContext(program.options);
  if (program.pending !== undefined) {
    for (const ref of program.pending.refsBefore) evaluateRef(ref, results, context);
    throw program.pending.error;
  }
  const memo = program.hasShared ? new Map<ContainerNode, unknown>() : undefined;
  // Copy the constants in one go (a spread copies own data properties, `__proto__` included, as own
  // keys in the same order), then write each placeholder's value over its slot.
  const out = { ...program.template };
  const { live, nodes, keys } = program;
  for (let i = 0; i < live.length; i++) {
    const index = live[i]!;
    defineOwn(out, keys[index]!, runNode(nodes[index]!, results, memo, context));
  }
  return out;
}

function runNode(node: Node, results: Results, memo: Map<ContainerNode, unknown> | undefined, context: EvaluationContext): unknown {
  switch (node.kind) {
    case "value":
      return node.value;
    case "ref":
      return evaluateRef(node, results, context);
    case "object":
    case "array":
      return runContainer(node, results, memo, context);
  }
}

function evaluateRef(node: RefNode, results: Results, context: EvaluationContext): unknown {
  try {
    context.source = node.source;
    return evaluateAst(node.ast, results, context);
  } catch (error) {
    if (error instanceof RefError) throw atArgument(error, node.pointer);
    throw error;
  }
}

function runContainer(
  node: ContainerNode,
  results: Results,
  memo: Map<ContainerNode, unknown> | undefined,
  context: EvaluationContext,
): unknown {
  if (node.shared && memo!.has(node)) return memo!.get(node);
  const { nodes, originals } = node;
  const values = new Array<unknown>(nodes.length);
  // Object.is, as resolveRefs: a placeholder whose value is its own text leaves the container unchanged.
  let changed = false;
  for (let i = 0; i < nodes.length; i++) {
    const value = runNode(nodes[i]!, results, memo, context);
    values[i] = value;
    if (!changed && !Object.is(value, originals[i])) changed = true;
  }
  let resolved: unknown = node.original;
  if (changed) {
    const out: Record<string, unknown> | unknown[] =
      node.kind === "array" ? new Array<unknown>(node.length) : node.nullPrototype ? (Object.create(null) as Record<string, unknown>) : {};
    for (let i = 0; i < values.length; i++) defineOwn(out, node.keys[i]!, values[i]);
    resolved = out;
  }
  if (node.shared) memo!.set(node, resolved);
  return resolved;
}
