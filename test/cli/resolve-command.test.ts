/**
 * `plan-refs resolve` as a user runs it, through `runCli` in-process (relative paths against the
 * repository's root, `-` from the given stdin).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { runCliInProcess } from "../helpers/cli.js";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tmp = tempFolder("resolve");

function file(name: string, content: string): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
}

async function resolve(args: string[], input = ""): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const result = await runCliInProcess(["resolve", ...args], { cwd: root, stdin: input });
  return { status: result.code, stdout: result.stdout, stderr: result.stderr };
}

const results = file("results.json", JSON.stringify({ 1: { city: "Paris", address: { zip: "75001" } }, 2: [10, 20] }));

describe("plan-refs resolve", () => {
  test("prints the resolved arguments of the seed example as JSON, exit 0", async () => {
    const result = await resolve(["--args", "examples/seed/args.json", "--results", "examples/seed/results.json"]);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      city: "Paris",
      forecast: { today: "sunny", high: 24 },
      units: "metric",
      note: "$5 off coupons pass through",
      days: 3,
    });
    expect(result.stderr).toBe("");
  });

  test("reads args from stdin with -", async () => {
    const result = await resolve(["--args", "-", "--results", results], '{"q": "$1.city", "__proto__": "$2"}');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('{\n  "q": "Paris",\n  "__proto__": [\n    10,\n    20\n  ]\n}\n');
  });

  test.each([
    ["path syntax", ["--syntax", "path"], { z: "$1.address.zip" }, { z: "75001" }],
    ["templates", ["--templates"], { t: "in ${1.city}" }, { t: "in Paris" }],
    ["deep", ["--deep"], { n: { list: ["$2"] } }, { n: { list: [[10, 20]] } }],
  ])("options: %s", async (_name, flags, args, expected) => {
    const result = await resolve(["--args", file("args.json", JSON.stringify(args)), "--results", results, ...flags]);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(expected);
  });

  test("a KeyError: printed the linter's way (line:column in the args file, source line, carets), exit 1, no stack trace", async () => {
    const args = file("bad-key.json", '{"q": "$1.town"}');
    const result = await resolve(["--args", args, "--results", results]);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      [
        `${args}:1:10 error missing-key KeyError: $1.town: step 1's result has no key "town" (keys: city, address)`,
        ` 1 | {"q": "$1.town"}`,
        `   |          ^^^^^`,
        "1 error, 0 warnings",
        "",
      ].join("\n"),
    );
    expect(result.stdout).toBe("");
  });

  test("a misspelled key gets a did-you-mean, also deep in a path and inside a template", async () => {
    const args = file("typo.json", '{\n  "q": "$1.ctiy"\n}');
    const typo = await resolve(["--args", args, "--results", results]);
    expect(typo.status).toBe(1);
    expect(typo.stderr.split("\n").slice(0, 3)).toEqual([
      `${args}:2:11 error missing-key KeyError: $1.ctiy: step 1's result has no key "ctiy" (keys: city, address); did you mean "city"?`,
      ` 2 |   "q": "$1.ctiy"`,
      `   |           ^^^^^`,
    ]);
    const templateArgs = file("typo-t.json", '{\n  "t": "in ${1.address.zpi}"\n}');
    const template = await resolve(["--args", templateArgs, "--results", results, "--syntax", "path", "--templates"]);
    expect(template.status).toBe(1);
    expect(template.stderr.split("\n").slice(0, 3)).toEqual([
      `${templateArgs}:2:23 error missing-key KeyError: $1.address.zpi: step 1's result has no key "zpi" at .address (keys: zip); did you mean "zip"?`,
      ` 2 |   "t": "in \${1.address.zpi}"`,
      `   |                       ^^^^`,
    ]);
  });

  test("several bad references: each one is reported at its place (also each interpolation of a template, and deep), then the count, exit 1", async () => {
    const args = file(
      "several.json",
      '{\n  "q": "$1.town",\n  "ok": "$1.city",\n  "t": "in ${1.ctiy} and ${3.x}",\n  "n": { "deep": "$2[5]" }\n}\n',
    );
    const result = await resolve(["--args", args, "--results", results, "--syntax", "path", "--templates", "--deep"]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    const headers = result.stderr.split("\n").filter((line) => line.startsWith(args));
    expect(headers).toEqual([
      `${args}:2:11 error missing-key KeyError: $1.town: step 1's result has no key "town" (keys: city, address)`,
      `${args}:4:15 error missing-key KeyError: $1.ctiy: step 1's result has no key "ctiy" (keys: city, address); did you mean "city"?`,
      `${args}:4:28 error missing-step KeyError: $3.x: no result for step 3 (steps with results: 1, 2)`,
      `${args}:5:21 error missing-key KeyError: $2[5]: step 2's result has no index 5 (length 2)`,
    ]);
    expect(result.stderr).toMatch(/\n4 errors, 0 warnings\n$/);
  });

  test("strict mode: a malformed placeholder is a syntax error at its place, exit 1", async () => {
    const result = await resolve(["--args", file("strict.json", '{"q": "$1."}'), "--results", results, "--strict"]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/strict\.json:1:11 error syntax RefSyntaxError: invalid reference "\$1\." at offset 3/);
  });

  test.each([
    [
      "invalid JSON: the file, line and column, then the line with a caret",
      ["--args", file("broken.json", '{\n  "q": "$1.city",\n  "r": }\n'), "--results", results],
      /broken\.json:3:8: invalid JSON: expected a value\n 3 \| {3}"r": }\n {3}\| {8}\^\n$/,
    ],
    [
      "args that are not an object",
      ["--args", file("array.json", "[1]"), "--results", results],
      /RefError invalid-args: args must be an object/,
    ],
    ["a missing file", ["--args", join(tmp, "missing.json"), "--results", results], /missing\.json: no such file/],
    ["a directory", ["--args", tmp, "--results", results], /is a directory/],
    ["no --results", ["--args", results], /missing --args or --results/],
    ["both from stdin", ["--args", "-", "--results", "-"], /only one of --args and --results/],
    ["a bad --syntax", ["--args", results, "--results", results, "--syntax", "dotted"], /--syntax must be "seed" or "path"/],
  ])("exit 2: %s", async (_name, args, message) => {
    const result = await resolve(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    // The message; for a flag's mistake, the usage line and the pointer to --help after it.
    expect(result.stderr.trim().split("\n").length).toBeLessThanOrEqual(3);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("plan-refs resolve --results with a run report", () => {
  test("the report plan-refs run --results writes is recognised: its results are resolved against", async () => {
    const report = join(tmp, "trip-report.json");
    const run = await runCliInProcess(["run", "examples/trip/plan.json", "--tools", "examples/trip/tools.mjs", "--results", report], {
      cwd: root,
    });
    expect(run.code).toBe(0);
    const args = file("trip-args.json", JSON.stringify({ city: "$1.name", lat: "$1.lat", days: "$2.days" }));
    const result = await resolve(["--args", args, "--results", report]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const written = JSON.parse(readFileSync(report, "utf8")) as { results: { "1": { name: string; lat: number }; "2": { days: unknown } } };
    expect(JSON.parse(result.stdout)).toEqual({
      city: written.results["1"].name,
      lat: written.results["1"].lat,
      days: written.results["2"].days,
    });
  });

  test("from stdin too; a results object that only looks a little like a report is used as it is", async () => {
    const report = JSON.stringify({ runId: "r1", status: "failed", results: { 1: { city: "Lisbon" } }, errors: {} });
    expect(JSON.parse((await resolve(["--args", file("city.json", '{"c": "$1.city"}'), "--results", "-"], report)).stdout)).toEqual({
      c: "Lisbon",
    });
    // No runId: a results object keyed by step id (its "status" and "results" keys are no step ids).
    const plain = JSON.stringify({ 1: { city: "Paris" }, status: "ok", results: { 1: { city: "Lisbon" } } });
    expect((await resolve(["--args", file("city2.json", '{"c": "$1.city"}'), "--results", "-"], plain)).stdout).toContain("Paris");
  });
});
