/**
 * No function of src/ takes 7 or more positional parameters (declarations, methods, constructors,
 * arrows, function expressions): past that, a call is a row of values whose meaning is their place,
 * and such a function takes an object with named fields instead. Reads the sources with TypeScript's
 * parser; runs nothing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";

/** The most positional parameters a function of src/ may take. */
const MAX_POSITIONAL = 6;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** `file:line name (count)` of each function in `text` with more than `max` parameters (signatures and function types aside: they describe, they are not called as written). */
function longParameterLists(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isFunctionLike(node) &&
      !ts.isFunctionTypeNode(node) &&
      !ts.isConstructorTypeNode(node) &&
      !ts.isCallSignatureDeclaration(node) &&
      !ts.isMethodSignature(node) &&
      !ts.isConstructSignatureDeclaration(node) &&
      !ts.isIndexSignatureDeclaration(node)
    ) {
      if (node.parameters.length > max) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        const name =
          node.name?.getText(source) ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(source) : "(anonymous)");
        found.push(`${relative(process.cwd(), file)}:${line + 1} ${name} (${node.parameters.length})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("positional parameters", () => {
  test.each([
    ["function f(a, b, c, d, e, g, h) {}", 1],
    ["class C { m(a, b, c, d, e, g, h) {} constructor(a, b, c, d, e, g, h) {} }", 2],
    ["const f = (a, b, c, d, e, g, h) => 0; const g = function (a, b, c, d, e, f, h) {};", 2],
    ["function f(a, b, c, d, e, g) {} function o({ a, b, c, d, e, g, h }) {}", 0],
    ["type F = (a, b, c, d, e, g, h) => void; interface I { m(a, b, c, d, e, g, h): void }", 0],
  ])("%s: %i found", (text, count) => {
    expect(longParameterLists("row.ts", text, MAX_POSITIONAL)).toHaveLength(count);
  });

  test(`no function of src/ takes more than ${MAX_POSITIONAL}`, () => {
    const found = sourceFiles("src").flatMap((file) => longParameterLists(file, readFileSync(file, "utf8"), MAX_POSITIONAL));
    expect(found).toEqual([]);
  });
});
