/**
 * Cached ASTs are shared by every caller, so they are frozen all the way down (src/grammar/freeze.ts).
 */
import { describe, expect, test } from "vitest";
import type { InterpolationPart, ReferenceNode, TemplateNode } from "../../src/grammar/ast.js";
import { clearParseCache, tryParseRef } from "../../src/grammar/parse.js";

// Written against mutants that survived a mutation run: pins exact behaviour no other test pinned.
describe("freeze.ts: cached ASTs are frozen all the way down", () => {
  test("a template's parts, its interpolations' expressions and their paths are frozen", () => {
    clearParseCache();
    const result = tryParseRef('a ${1.b[0]} c ${2["d"] ?? 3}', { syntax: "path", templates: true });
    expect(result.ok).toBe(true);
    const ast = (result as { value: TemplateNode }).value;
    expect(ast.type).toBe("template");
    expect(Object.isFrozen(ast)).toBe(true);
    expect(Object.isFrozen(ast.parts)).toBe(true);
    expect(ast.parts).toHaveLength(4);
    for (const part of ast.parts) {
      expect(Object.isFrozen(part)).toBe(true);
      expect(Object.isFrozen(part.span)).toBe(true);
    }
    const first = (ast.parts[1] as InterpolationPart).expression as ReferenceNode;
    expect(first.type).toBe("reference");
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.path)).toBe(true);
    expect(Object.isFrozen(first.step)).toBe(true);
    for (const segment of first.path) expect(Object.isFrozen(segment)).toBe(true);
    const second = (ast.parts[3] as InterpolationPart).expression;
    expect(second.type).toBe("default");
    expect(Object.isFrozen(second)).toBe(true);
    if (second.type === "default") {
      expect(Object.isFrozen(second.reference)).toBe(true);
      expect(Object.isFrozen(second.reference.path[0])).toBe(true);
      expect(Object.isFrozen(second.fallback)).toBe(true);
    }
    // Frozen, so a caller cannot change what the next caller gets from the cache.
    expect(() => {
      (ast.parts as unknown[]).push("x");
    }).toThrow(TypeError);
    const again = tryParseRef('a ${1.b[0]} c ${2["d"] ?? 3}', { syntax: "path", templates: true });
    expect(again.ok && again.value).toBe(ast);
  });
});
