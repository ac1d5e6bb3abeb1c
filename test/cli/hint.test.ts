/**
 * The commands a message tells the reader to run next (src/cli/hint.ts): pasted into a shell, they
 * are the words that were meant.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { databaseHint } from "../../src/cli/database-hint.js";
import { commandHint, flagWords } from "../../src/cli/hint.js";
import { splitCommand } from "../../src/mcp/split-command.js";

describe("commandHint", () => {
  test.each([
    [["lint", "plan.json", "--catalog", "tools.json"], "plan-refs lint plan.json --catalog tools.json"],
    [["lint", "my plan.json"], "plan-refs lint 'my plan.json'"],
    [["lint", "it's.json"], "plan-refs lint 'it'\\''s.json'"],
    [["status", "r1", "--database", "postgres://u:p@127.0.0.1:5432/db"], "plan-refs status r1 --database postgres://u:p@127.0.0.1:5432/db"],
    [["lint", "a$b`c"], "plan-refs lint 'a$b`c'"],
    [["status", "r1", "--database", { variable: "DATABASE_URL" } as const], 'plan-refs status r1 --database "$DATABASE_URL"'],
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
    expect(
      flagWords({ catalog: "tools.json", mcp: ["a", "b"], strict: true, tools: undefined }, ["tools", "mcp", "catalog", "strict"]),
    ).toEqual(["--mcp", "a", "--mcp", "b", "--catalog", "tools.json"]);
  });
});

describe("databaseHint: --database in a command to paste, never its password", () => {
  const secret = "postgres://app:s3cret@db.example.com:5432/agents";
  const note = "; *** stands for the password of --database, which is not printed";
  test.each([
    ["not given: nothing (the command reads DATABASE_URL again)", undefined, {}, [], "plan-refs status r1", ""],
    [
      "DATABASE_URL's value: the variable",
      secret,
      { DATABASE_URL: secret },
      ["--database", { variable: "DATABASE_URL" }],
      'plan-refs status r1 --database "$DATABASE_URL"',
      "",
    ],
    [
      "no password: as given",
      "postgres://app@db/agents",
      {},
      ["--database", "postgres://app@db/agents"],
      "plan-refs status r1 --database postgres://app@db/agents",
      "",
    ],
    [
      "a password: ***, and a note",
      secret,
      {},
      ["--database", "postgres://app:***@db.example.com:5432/agents"],
      "plan-refs status r1 --database 'postgres://app:***@db.example.com:5432/agents'",
      note,
    ],
    [
      "another DATABASE_URL: ***",
      secret,
      { DATABASE_URL: "postgres://other/db" },
      ["--database", "postgres://app:***@db.example.com:5432/agents"],
      "plan-refs status r1 --database 'postgres://app:***@db.example.com:5432/agents'",
      note,
    ],
    [
      "a password parameter: ***",
      "postgres://db/agents?password=s3cret",
      {},
      ["--database", "postgres://db/agents?password=***"],
      "plan-refs status r1 --database 'postgres://db/agents?password=***'",
      note,
    ],
  ])("%s", (_, database, env, words, line, expectedNote) => {
    const hint = databaseHint(database, env);
    expect(hint.words).toEqual(words);
    expect(hint.note).toBe(expectedNote);
    expect(commandHint(["status", "r1", ...hint.words])).toBe(line);
    expect(`${commandHint(["status", "r1", ...hint.words])}${hint.note}`).not.toContain("s3cret");
  });
});
