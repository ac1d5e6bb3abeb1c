/**
 * `plan-refs schema`, in process through runCli: the printed schema is planSchema's, each option is
 * passed on, --help follows the command line's conventions, and mistakes are one line and exit 2.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { planSchema } from "../../src/formats/plan-schema.js";
import type { ToolCatalog } from "../../src/plan/plan.js";
import { runCliInProcess } from "../helpers/cli.js";
import { tempFolder } from "../helpers/temp.js";

const root = join(import.meta.dirname, "../..");
const trip = join(root, "examples/trip/tools.json");
const tmp = tempFolder("schema");

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliInProcess(args);
}

function file(name: string, content: string): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
}

describe("plan-refs schema", () => {
  const catalog = JSON.parse(readFileSync(trip, "utf8")) as ToolCatalog;

  test.each([
    [[], {}],
    [["--dialect", "openai-strict"], { dialect: "openai-strict" }],
    [
      ["--dialect", "json-schema", "--syntax", "path", "--templates", "--deep"],
      { dialect: "json-schema", syntax: "path", templates: true, deep: true },
    ],
  ] as const)("prints planSchema's schema: %j", async (flags, options) => {
    const result = await cli(["schema", "--catalog", trip, ...flags]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(result.stdout)).toEqual(planSchema(catalog, options));
  });

  test("--help: options with defaults, exit codes and an example that runs", async () => {
    for (const flag of ["--help", "-h"]) {
      const result = await cli(["schema", flag]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^usage: plan-refs schema /);
      expect(result.stdout).toMatch(
        /\noptions:\n[\s\S]*json-schema \(default\)[\s\S]*\nexit codes:\n[\s\S]*\nexample:\n {2}plan-refs schema /,
      );
    }
    const help = (await cli(["schema", "--help"])).stdout;
    const example = help
      .slice(help.lastIndexOf("\n  plan-refs ") + "\n  plan-refs ".length)
      .trim()
      .split(/\s+/);
    const previous = process.cwd();
    process.chdir(root);
    try {
      expect((await cli(example)).code).toBe(0);
    } finally {
      process.chdir(previous);
    }
  });

  test("a character a terminal acts on, in a description, is printed as a JSON escape", async () => {
    const path = file(
      "bidi.json",
      JSON.stringify({ a: { description: "x\u202ey\u2028z\u009b", input: { type: "object", properties: {} } } }),
    );
    const result = await cli(["schema", "--catalog", path]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/[\u202e\u2028\u009b]/);
    expect(JSON.parse(result.stdout)).toEqual(
      planSchema({ a: { description: "x\u202ey\u2028z\u009b", input: { type: "object", properties: {} } } }),
    );
  });

  test.each([
    ["no --catalog", []],
    ["an unknown dialect", ["--catalog", trip, "--dialect", "gemini"]],
    ["a bad syntax", ["--catalog", trip, "--syntax", "dots"]],
    ["an unknown option", ["--catalog", trip, "--strict"]],
    ["a positional argument", [trip]],
    ["a missing file", ["--catalog", join(tmp, "nope.json")]],
    ["a catalog that is not JSON", ["--catalog", file("broken.json", "{ nope")]],
    ["a catalog of the wrong shape", ["--catalog", file("shape.json", '{ "a": { "input": 3 } }')]],
    ["an empty catalog", ["--catalog", file("empty.json", "{}")]],
    ["a module given as the catalog", ["--catalog", "examples/trip/tools.mjs"]],
  ])("exit 2 with one line on stderr: %s", async (_name, args) => {
    const result = await cli(["schema", ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^plan-refs[ :]/);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});
