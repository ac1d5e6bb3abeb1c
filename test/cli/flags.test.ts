/**
 * parseFlags, the one reader of every command's flags: what it accepts (called directly), and every
 * command's flag mistakes as a user meets them (the rows of test/cases/cli-flags.json, through
 * `runCli` in-process): one line in plan-refs' words, the command's usage line, exit code 2.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { COMMAND_NAMES } from "../../src/cli/cli.js";
import { FlagError, parseFlags, positiveInteger } from "../../src/cli/flags.js";
import { runCliInProcess } from "../helpers/cli.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const cases = (
  JSON.parse(readFileSync(join(root, "test/cases/cli-flags.json"), "utf8")) as { cases: { args: string[]; message: string }[] }
).cases;

const specs = {
  catalog: { type: "string" },
  format: { type: "string", choices: ["pretty", "json"] },
  mcp: { type: "string", multiple: true },
  strict: { type: "boolean" },
} as const;

function mistake(argv: string[]): string {
  try {
    parseFlags(argv, specs);
  } catch (error) {
    expect(error).toBeInstanceOf(FlagError);
    expect((error as FlagError).exitCode).toBe(2);
    return (error as FlagError).message;
  }
  throw new Error(`no mistake in ${JSON.stringify(argv)}`);
}

describe("parseFlags", () => {
  test("flags with values (separate or after =), booleans, repeatable flags, positionals in order", () => {
    const { values, positionals } = parseFlags(
      ["a.json", "--catalog", "c.json", "--mcp=one", "--strict", "-", "--mcp", "two", "--format=json"],
      specs,
    );
    expect(values).toEqual({ catalog: "c.json", mcp: ["one", "two"], strict: true, format: "json" });
    expect(positionals).toEqual(["a.json", "-"]);
  });

  test("a flag that needs a value takes the next argument whatever it starts with", () => {
    expect(parseFlags(["--catalog", "-5"], specs).values.catalog).toBe("-5");
    expect(parseFlags(["--catalog", "--strict"], specs).values).toEqual({ catalog: "--strict" });
    expect(parseFlags(["--catalog="], specs).values.catalog).toBe("");
  });

  test("after --, everything is a positional", () => {
    expect(parseFlags(["--", "--strict", "-x"], specs)).toEqual({ values: {}, positionals: ["--strict", "-x"] });
  });

  test("a flag not given is absent, not undefined (own data only, no prototype)", () => {
    const { values } = parseFlags(["--strict"], specs);
    expect(Object.keys(values)).toEqual(["strict"]);
    expect(Object.getPrototypeOf(values)).toBe(null);
    // A name of Object.prototype is no flag.
    expect(mistake(["--constructor"])).toBe("unknown flag --constructor");
    expect(mistake(["--__proto__=x"])).toBe('unknown flag "--__proto__"');
  });

  test.each([
    [["--catalgo", "x"], "unknown flag --catalgo; did you mean --catalog?"],
    [["--Strict"], "unknown flag --Strict; did you mean --strict?"],
    [["--hlep"], "unknown flag --hlep; did you mean --help?"],
    [["--zzz"], "unknown flag --zzz"],
    [["-x"], "unknown flag -x"],
    [["--"], undefined],
    [["--format", "xml"], 'must be "pretty" or "json", not "xml"'],
    [["--catalog"], "--catalog needs a value"],
    [["--strict=no"], '--strict takes no value, not "no"'],
    [["--catalog", "a", "--catalog=b"], "--catalog is given twice; it takes one value"],
    [["--bad\nplan-refs: ok"], 'unknown flag "--bad\\nplan-refs: ok"'],
  ])("%j: %s", (argv, message) => {
    if (message === undefined) expect(() => parseFlags(argv, specs)).not.toThrow();
    else expect(mistake(argv)).toContain(message);
  });

  test("positionals: false refuses the first one", () => {
    expect(() => parseFlags(["x"], specs, { positionals: false })).toThrow('unexpected argument "x": this command takes flags only');
  });

  test("property: any argv either parses or is one FlagError of one printable line", () => {
    const arg = fc.oneof(
      fc.constantFrom("--catalog", "--format", "--mcp", "--strict", "--", "-", "--catalgo", "json", "-5", "--strict=1", "--format=pretty"),
      fc.string({ maxLength: 12 }),
      fc.string({ maxLength: 12 }).map((s) => `--${s}`),
    );
    fc.assert(
      fc.property(fc.array(arg, { maxLength: 8 }), (argv) => {
        try {
          const { positionals } = parseFlags(argv, specs);
          expect(positionals.length).toBeLessThanOrEqual(argv.length);
        } catch (error) {
          expect(error).toBeInstanceOf(FlagError);
          expect((error as Error).message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
        }
      }),
    );
  });

  test("positiveInteger: digits only, at least 1, a safe integer", () => {
    expect(positiveInteger(undefined, "--n")).toBeUndefined();
    expect(positiveInteger("12", "--n")).toBe(12);
    for (const bad of ["0", "-5", "1.5", "1e3", " 1", "", "9007199254740993"]) expect(() => positiveInteger(bad, "--n")).toThrow(FlagError);
    expect(() => positiveInteger("-5", "--timeout")).toThrow('--timeout must be a positive integer, not "-5"');
  });
});

describe("every command's flag mistakes, as the user sees them (test/cases/cli-flags.json)", () => {
  test("every command has rows", () => {
    expect(new Set(cases.map((row) => row.args[0]))).toEqual(new Set(COMMAND_NAMES));
  });

  test.each(cases.map((row) => [row.args.join(" "), row] as const))("plan-refs %s", async (_name, row) => {
    const result = await runCliInProcess(row.args);
    const command = row.args[0]!;
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n")).toEqual([
      row.message,
      expect.stringMatching(new RegExp(`^usage: plan-refs ${command} `)),
      `(plan-refs ${command} --help for more)`,
      "",
    ]);
    expect(result.code).toBe(2);
  });
});
