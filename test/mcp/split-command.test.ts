/**
 * splitCommand: the table in test/cases/mcp-split-command.json, and a property: words quoted the way
 * a shell user would quote them come back as they were.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { loadCases } from "../helpers/cases.js";
import { McpSetupError, splitCommand } from "../../src/mcp/index.js";

interface SplitCase {
  readonly name: string;
  readonly command: string;
  readonly words?: string[];
  readonly error?: { code: string; message: string };
}

describe("splitCommand cases", () => {
  test.each(loadCases<SplitCase>("mcp-split-command.json").map((row) => [row.name, row] as const))("%s", (_, row) => {
    if (row.words !== undefined) {
      expect(splitCommand(row.command)).toEqual(row.words);
      return;
    }
    let thrown: unknown;
    try {
      splitCommand(row.command);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(McpSetupError);
    expect({ code: (thrown as McpSetupError).code, message: (thrown as McpSetupError).message }).toEqual(row.error);
  });
});

describe("splitCommand properties", () => {
  const word = fc.string({ unit: "grapheme", maxLength: 12 });
  /** Quoted as a POSIX shell user would: '…', with each ' written as '\''. */
  const singleQuoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
  /** Quoted with "…": " and \ escaped. */
  const doubleQuoted = (text: string): string => `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;

  test("any words, each quoted ('…' or \"…\") and joined by blanks, split back into the same words", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(word, fc.boolean()), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(" ", "\t", "  \n "),
        (words, blank) => {
          const command = words.map(([text, single]) => (single ? singleQuoted(text) : doubleQuoted(text))).join(blank);
          expect(splitCommand(command)).toEqual(words.map(([text]) => text));
        },
      ),
    );
  });

  test("any text either splits into words or throws McpSetupError invalid-command, never anything else", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        try {
          const words = splitCommand(text);
          expect(words.length).toBeGreaterThan(0);
        } catch (error) {
          expect(error).toBeInstanceOf(McpSetupError);
          expect((error as McpSetupError).code).toBe("invalid-command");
          expect((error as McpSetupError).message).not.toMatch(/[\u0000-\u001f]/);
        }
      }),
    );
  });
});
