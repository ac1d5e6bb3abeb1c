/**
 * The commands a message tells the reader to run next (src/cli/hint.ts): pasted into a shell, they
 * are the words that were meant.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { commandHint, flagWords } from "../../src/cli/hint.js";
import { splitCommand } from "../../src/mcp/split-command.js";

describe("commandHint", () => {
  test.each([
    [["lint", "plan.json", "--catalog", "tools.json"], "plan-refs lint plan.json --catalog tools.json"],
    [["lint", "my plan.json"], "plan-refs lint 'my plan.json'"],
    [["lint", "it's.json"], "plan-refs lint 'it'\\''s.json'"],
    [["status", "r1", "--database", "postgres://u:p@127.0.0.1:5432/db"], "plan-refs status r1 --database postgres://u:p@127.0.0.1:5432/db"],
    [["lint", "a$b`c"], "plan-refs lint 'a$b`c'"],
  ])("%j → %s", (words, line) => {
    expect(commandHint(words)).toBe(line);
  });

  test("a control character is escaped, never written raw", () => {
    expect(commandHint(["lint", "evil\u001b[2J.json"])).not.toMatch(/[\u0000-\u001f]/);
  });

  test("property: a shell (splitCommand's POSIX quoting) reads back the words given", () => {
    const word = fc.string({ unit: fc.constantFrom(..."ab .-/'\"$`\\*?&;|()<>~#=:@,%+"), minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), (words) => {
        expect(splitCommand(commandHint(words)).slice(1)).toEqual(words);
      }),
    );
  });
});

describe("flagWords", () => {
  test("the flags given, in the order named, repeated ones repeated; others left out", () => {
    expect(flagWords({ catalog: "tools.json", mcp: ["a", "b"], strict: true, tools: undefined }, ["tools", "mcp", "catalog", "strict"])).toEqual(["--mcp", "a", "--mcp", "b", "--catalog", "tools.json"]);
  });
});
