/**
 * The AST helpers (src/grammar/ast.ts): walkAst's visitor contract, referencesIn, referencedStepIds, readableNode, assertNever.
 */
import { describe, expect, test } from "vitest";
import type { AstNode, RefAst } from "../../src/grammar/ast.js";
import { assertNever, readableNode, referencedStepIds, referencesIn, walkAst } from "../../src/grammar/ast.js";
import { formatRef } from "../../src/grammar/format.js";
import { parseRef } from "../../src/grammar/parse.js";
import { RefError } from "../../src/shared/errors.js";
import { longChain } from "../helpers/ast.js";
import { thrownBy } from "../helpers/cases.js";

const CHAIN_LENGTH = 50_000;
const chain = longChain(CHAIN_LENGTH);

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("ast.ts: walkAst", () => {
  test("visits every node, parents before children, with each node's parent", () => {
    const ast = parseRef("$1.a ?? $2", { syntax: "path" });
    const seen: [string, string | undefined][] = [];
    walkAst(ast, (node, parent) => seen.push([node.type, parent?.type]));
    expect(seen).toEqual([
      ["default", undefined],
      ["reference", "default"],
      ["step", "reference"],
      ["key", "reference"],
      ["reference", "default"],
      ["step", "reference"],
    ]);
  });

  test.each([undefined, null, "visit", 42, {}])(
    "a visit that is not a function (%s) is a RefError code invalid-args that says so",
    (visit) => {
      const error = thrownBy(() => walkAst(parseRef("$1"), visit as never)) as RefError;
      expect(error).toBeInstanceOf(RefError);
      expect(error.code).toBe("invalid-args");
      expect(error.message).toBe("walkAst needs a visit function");
    },
  );

  test.each([
    ["an Error", new TypeError("visitor failed")],
    ["a RangeError", new RangeError("visitor range")],
    ["a non-Error value", { reason: "thrown object" }],
    ["a RefError", new RefError("missing-key", "from the visitor")],
  ])("an error thrown by the visitor (%s) comes out as it is, and the walk stops", (_name, thrown) => {
    const seen: string[] = [];
    const caught = thrownBy(() =>
      walkAst(parseRef("$1.a"), (node) => {
        seen.push(node.type);
        if (node.type === "step") throw thrown;
      }),
    );
    expect(caught).toBe(thrown);
    expect(seen).toEqual(["reference", "step"]);
  });

  test.each([
    ["undefined", undefined, "expected an AST node, not undefined"],
    ["null", null, "expected an AST node, not null"],
    ["a string", "$1", "expected an AST node, not string"],
    ["a number", 7, "expected an AST node, not number"],
  ])("walking %s is a RefError code syntax and never calls the visitor", (_name, node, message) => {
    const seen: unknown[] = [];
    const error = thrownBy(() => walkAst(node as never, (child) => seen.push(child))) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("syntax");
    expect(error.message).toBe(message);
    expect(seen).toEqual([]);
  });

  test("a node that cannot be read is a RefError code access, not the raw TypeError", () => {
    const error = thrownBy(() => walkAst({ type: "reference" } as unknown as AstNode, () => undefined)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("access");
    expect(error.message).toContain("could not read the AST");
  });

  test("a 50,000-long default chain is walked without exhausting the stack, every node once, in order", () => {
    let defaults = 0;
    let references = 0;
    let literals = 0;
    let lastStep = "";
    let ordered = true;
    walkAst(chain, (node) => {
      if (node.type === "default") defaults++;
      else if (node.type === "reference") references++;
      else if (node.type === "literal") literals++;
      else if (node.type === "step") {
        if (Number(node.id) !== Number(lastStep) + 1) ordered = false;
        lastStep = node.id;
      }
    });
    expect({ defaults, references, literals, lastStep, ordered }).toEqual({
      defaults: CHAIN_LENGTH,
      references: CHAIN_LENGTH,
      literals: 1,
      lastStep: String(CHAIN_LENGTH),
      ordered: true,
    });
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("ast.ts: referencesIn and readableNode", () => {
  test("referencesIn finds every reference of a 50,000-long default chain, in source order", () => {
    const found = referencesIn(chain);
    expect(found).toHaveLength(CHAIN_LENGTH);
    expect(found[0]!.step.id).toBe("1");
    expect(found[CHAIN_LENGTH - 1]!.step.id).toBe(String(CHAIN_LENGTH));
  });

  test("readableNode gives back an object node itself", () => {
    const node = parseRef("$1");
    expect(readableNode(node)).toBe(node);
  });

  test.each([
    ["undefined", undefined, "expected an AST node, not undefined"],
    ["null", null, "expected an AST node, not null"],
    ["a string", "x", "expected an AST node, not string"],
    ["a boolean", true, "expected an AST node, not boolean"],
  ])("readableNode(%s) is a RefError code syntax naming what it got", (_name, value, message) => {
    const error = thrownBy(() => readableNode(value)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("syntax");
    expect(error.message).toBe(message);
  });
});

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("ast.ts: assertNever", () => {
  test.each([
    ["an object node names its type", { type: "mystery" }, "unexpected AST node of type mystery"],
    ["an object without a type says undefined", { kind: "x" }, "unexpected AST node of type undefined"],
    ["null says null", null, "unexpected AST node of type null"],
    ["undefined says undefined", undefined, "unexpected AST node of type undefined"],
    ["a string is its own type", "weird", "unexpected AST node of type weird"],
    ["a number is its own type", 12, "unexpected AST node of type 12"],
  ])("%s, as a RefError code syntax", (_name, value, message) => {
    const error = thrownBy(() => assertNever(value as never)) as RefError;
    expect(error).toBeInstanceOf(RefError);
    expect(error.code).toBe("syntax");
    expect(error.message).toBe(message);
  });

  test("formatRef of a node of unknown type names that type", () => {
    const error = thrownBy(() => formatRef({ type: "mystery" } as unknown as RefAst)) as RefError;
    expect(error.code).toBe("syntax");
    expect(error.message).toBe("unexpected AST node of type mystery");
  });
});

describe("ast.ts: referencedStepIds, the one rule for the step ids of an AST", () => {
  test.each([
    ["$1.a ?? $2 ?? $1", [1, 2]],
    ["$3", [3]],
    ["$0.city", [0]],
    // Digits past Number.MAX_SAFE_INTEGER round to a number no plan step has (plans refuse unsafe ids).
    ["$9007199254740993", [9007199254740992]],
  ])("%s references %j", (text, ids) => {
    expect(referencedStepIds(parseRef(text, { syntax: "path" }))).toEqual(ids);
  });

  test("each AST is walked once: the same frozen list again", () => {
    const ast = parseRef("$1 ?? $2", { syntax: "path" });
    const first = referencedStepIds(ast);
    expect(Object.isFrozen(first)).toBe(true);
    expect(referencedStepIds(ast)).toBe(first);
  });
});
