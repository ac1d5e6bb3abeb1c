/**
 * `plan-refs lint` as a user runs it, through `runCli` in-process (stdin, the environment, the
 * working folder and the terminal given through `CliIo`): one row per exit code, pretty and JSON
 * output, colour on a terminal unless NO_COLOR is set.
 */
import { mkdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import type { Diagnostic } from "../../src/lint/index.js";
import { runCliInProcess } from "../helpers/cli.js";
import { tempFolder } from "../helpers/temp.js";
import { TRAILING_COMMA } from "../../src/plan/json-text.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tmp = tempFolder("lint");

function file(name: string, content: string | Uint8Array): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
}

async function lint(args: string[], input?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const result = await runCliInProcess(["lint", ...args], { stdin: input ?? "", cwd: root });
  return { status: result.code, stdout: result.stdout, stderr: result.stderr };
}

const warningsOnly = file(
  "warnings.json",
  JSON.stringify(
    {
      steps: [
        { id: 1, tool: "a", args: { q: "$2" } },
        { id: 2, tool: "b" },
      ],
    },
    null,
    2,
  ),
);
const notJson = file("broken.json", '{\n  "steps": [\n    {"id": 1 "tool": "a"}\n  ]\n}\n');
const notJsonCaret = `plan-refs: ${notJson}:3:14: invalid JSON: expected ',' or a closing bracket\n 3 |     {"id": 1 "tool": "a"}\n   |              ^^^^^^\n`;

describe("exit codes", () => {
  test.each([
    ["0: a clean plan", ["examples/lint/clean.plan.json", "--catalog", "examples/lint/tools.json"], 0],
    ["0: warnings only", [warningsOnly], 0],
    ["1: warnings only, with --strict", [warningsOnly, "--strict"], 1],
    ["1: errors", ["examples/lint/mistakes.plan.json", "--catalog", "examples/lint/tools.json"], 1],
    ["1: errors, JSON output", ["examples/lint/mistakes.plan.json", "--format", "json"], 1],
    ["2: no plan file given", [], 2],
    ["2: two plan files", [warningsOnly, warningsOnly], 2],
    ["2: an unknown option", [warningsOnly, "--colour"], 2],
    ["2: a bad --format", [warningsOnly, "--format", "xml"], 2],
    ["2: a missing file", [join(tmp, "nope.json")], 2],
    ["2: a directory", [tmp], 2],
    ["2: not UTF-8", [file("latin1.json", Uint8Array.from([0x7b, 0x22, 0xe9, 0x22, 0x7d]))], 2],
    ["2: not JSON", [notJson], 2],
    ["2: a catalog file that is not JSON", [warningsOnly, "--catalog", notJson], 2],
    ["2: a catalog file of the wrong shape", [warningsOnly, "--catalog", file("tools-bad.json", '{\n  "a": { "input": 3 }\n}')], 2],
  ])("exit %s", async (_name, args, code) => {
    const result = await lint(args);
    expect(result.status).toBe(code);
    if (code === 2) {
      expect(result.stdout).toBe("");
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  });

  test("2: a file over the size limit, in one line", async () => {
    const big = file("big.json", "");
    truncateSync(big, 16 * 1024 * 1024 + 1);
    const result = await lint([big]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/over the limit/);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  test("2: invalid JSON is one line with the file, line and column, then the line with a caret under the place", async () => {
    const result = await lint([notJson]);
    expect(result.stderr).toBe(notJsonCaret);
  });

  test.each([
    ["in an array", '{\n  "steps": [\n    {"id": 1, "tool": "a", "args": {}},\n  ]\n}\n', 3, 39, '    {"id": 1, "tool": "a", "args": {}},'],
    [
      "in an object",
      '{\n  "steps": [\n    {"id": 1, "tool": "a", "args": {"x": 1,}}\n  ]\n}\n',
      3,
      43,
      '    {"id": 1, "tool": "a", "args": {"x": 1,}}',
    ],
    ["before a bracket on a later line", '{"steps": [],\n\n}', 1, 13, '{"steps": [],'],
  ])("2: a trailing comma %s is named, at the comma, with a caret", async (_, text, line, column, source) => {
    const path = file(`trailing-${line}-${column}.json`, text);
    const result = await lint([path]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `plan-refs: ${path}:${line}:${column}: invalid JSON: ${TRAILING_COMMA}\n ${line} | ${source}\n   | ${" ".repeat(column - 1)}^\n`,
    );
    // run reads its plan through the same reader, and says the same.
    expect((await runCliInProcess(["run", path, "--tools", "examples/trip/tools.mjs"])).stderr).toBe(result.stderr);
  });

  test("2: invalid JSON with --format json: stdout is still JSON, the json-syntax diagnostic as lintPlanText returns it", async () => {
    const { lintPlanText } = await import("../../src/lint/index.js");
    const result = await lint([notJson, "--format", "json"]);
    expect(result.status).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual(lintPlanText(readFileSync(notJson, "utf8")));
    expect((JSON.parse(result.stdout) as Diagnostic[]).map((diagnostic) => diagnostic.code)).toEqual(["json-syntax"]);
    expect(result.stderr).toBe(notJsonCaret);
  });

  test("2: a tools file of the wrong shape names the place", async () => {
    const tools = file("tools-shape.json", '{\n  "geocode": { "input": "string" }\n}');
    expect((await lint([warningsOnly, "--catalog", tools])).stderr).toBe(
      `plan-refs: ${tools}:2:25: invalid tool catalog: "input" must be a JSON Schema (an object or a boolean)\n`,
    );
  });
});

describe("pretty output", () => {
  test("the mistakes example prints what examples/lint/mistakes.lint.txt shows (the README's example)", async () => {
    const result = await lint(["examples/lint/mistakes.plan.json", "--catalog", "examples/lint/tools.json"]);
    expect(result.stdout).toBe(readFileSync(join(root, "examples/lint/mistakes.lint.txt"), "utf8"));
  });

  test("location, severity, code and message; the source line; carets under the exact characters; a summary", async () => {
    const result = await lint([warningsOnly]);
    expect(result.stdout).toBe(
      [
        `${warningsOnly}:7:15 warning forward-ref step 1 uses the result of step 2, which comes later in the plan; it runs (steps run in dependency order) but reads oddly: move step 2 before step 1`,
        ` 7 |         "q": "$2"`,
        `   |               ^^`,
        "0 errors, 1 warning",
        "",
      ].join("\n"),
    );
  });

  test("no colour when stdout is not a terminal", async () => {
    expect((await lint(["examples/lint/mistakes.plan.json"])).stdout).not.toContain("\u001b[");
  });

  test("the plan can come from stdin", async () => {
    const result = await lint(["-"], readFileSync(warningsOnly, "utf8"));
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^<stdin>:7:15 warning forward-ref /);
  });

  test("colour on a terminal", async () => {
    const { NO_COLOR: _, ...env } = process.env;
    const { code, stdout } = await runCliInProcess(["lint", warningsOnly], { isTTY: true, env });
    expect(code).toBe(0);
    expect(stdout).toContain("\u001b[");
    // Without the escapes it is the very same report.
    expect(stdout.replace(/\u001b\[[0-9;]*m/g, "")).toBe((await lint([warningsOnly])).stdout);
  });

  test("no colour on a terminal when NO_COLOR is set, on stdout and on stderr", async () => {
    const run = await runCliInProcess(["lint", warningsOnly], { isTTY: true, env: { NO_COLOR: "1" } });
    expect(run.stdout).toBe((await lint([warningsOnly])).stdout);
    const failed = await runCliInProcess(
      [
        "run",
        file("unknown-tool.json", JSON.stringify({ steps: [{ id: 1, tool: "nope", args: {} }] })),
        "--tools",
        file("none.mjs", "export const other = () => 1;\n"),
      ],
      { isTTY: true, env: { NO_COLOR: "" } },
    );
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/ error unknown-tool /);
    expect(failed.stderr).not.toContain("\u001b[");
  });
});

describe("a catalog in the shape of MCP's tools/list result", () => {
  test("lints as the map it lists", async () => {
    const map = JSON.parse(readFileSync(join(root, "examples/lint/tools.json"), "utf8")) as Record<
      string,
      { description?: string; input?: unknown; output?: unknown }
    >;
    const list = {
      tools: Object.entries(map).map(([name, spec]) => ({
        name,
        description: spec.description,
        inputSchema: spec.input,
        outputSchema: spec.output,
      })),
    };
    const listed = await lint(["examples/lint/mistakes.plan.json", "--catalog", file("tools-list.json", JSON.stringify(list, null, 2))]);
    expect(listed.stdout).toBe((await lint(["examples/lint/mistakes.plan.json", "--catalog", "examples/lint/tools.json"])).stdout);
    expect(listed.status).toBe(1);
  });

  test("a map wrapped in { tools: … } is a catalog error with a hint", async () => {
    const wrapped = file("tools-wrapped.json", JSON.stringify({ tools: { geocode: { input: { type: "object" } } } }));
    const result = await lint([warningsOnly, "--catalog", wrapped]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('the catalog\'s only tool is named "tools"');
  });
});

describe("JSON output", () => {
  test("the diagnostics array, with positions", async () => {
    const result = await lint(["examples/lint/mistakes.plan.json", "--catalog", "examples/lint/tools.json", "--format", "json"]);
    const diagnostics = JSON.parse(result.stdout) as Diagnostic[];
    expect(diagnostics.map((d) => d.code)).toEqual([
      "missing-argument",
      "unknown-argument",
      "unknown-key",
      "type-mismatch",
      "non-canonical-step",
      "forward-ref",
      "invalid-argument",
      "invalid-argument",
      "cycle",
      "unknown-step",
      "unknown-tool",
      "not-indexable",
      "malformed-ref",
    ]);
    const text = readFileSync(join(root, "examples/lint/mistakes.plan.json"), "utf8");
    expect(diagnostics.map((d) => text.slice(d.offset!.start, d.offset!.end))).toEqual([
      '"args"',
      '"qurey"',
      ".longtitude",
      '"$1.city"'.slice(1, -1),
      "01",
      "$4",
      "30",
      '"celsius"',
      "6",
      "8",
      '"send_mail"',
      ".name",
      " ",
    ]);
    expect(diagnostics[2]).toMatchObject({
      severity: "error",
      pointer: "/steps/1/args/lon",
      step: 2,
      range: { start: { line: 10, column: 49 }, end: { line: 10, column: 60 } },
    });
  });
});

describe("the tools.json beside the plan (the language server's rule: catalogPathBeside)", () => {
  const folder = join(tmp, "beside");
  mkdirSync(folder);
  const misspelt = join(folder, "plan.json");
  writeFileSync(misspelt, JSON.stringify({ steps: [{ id: 1, tool: "geocdoe", args: { city: "Lyon" } }] }, null, 2));
  writeFileSync(join(folder, "tools.json"), JSON.stringify({ geocode: { input: { type: "object" } } }));

  test("without --catalog, lint reads it, reports the misspelt tool, and says which catalog it used on stderr", async () => {
    const { status, stdout, stderr } = await lint([misspelt]);
    expect(status).toBe(1);
    expect(stdout).toContain("unknown-tool");
    expect(stdout).toContain('did you mean "geocode"');
    expect(stderr).toBe(
      `plan-refs: catalog ${join(folder, "tools.json")} (beside the plan; --catalog FILE for another, --no-catalog for none)\n`,
    );
  });

  test("relative to the working folder, as the plan was given", async () => {
    const { code, stderr } = await runCliInProcess(["lint", "plan.json"], { cwd: folder });
    expect(code).toBe(1);
    expect(stderr).toBe("plan-refs: catalog tools.json (beside the plan; --catalog FILE for another, --no-catalog for none)\n");
  });

  test.each([
    ["--no-catalog", [misspelt, "--no-catalog"]],
    [
      "a plan with its own tools",
      [file("own-tools.json", JSON.stringify({ tools: { geocdoe: {} }, steps: [{ id: 1, tool: "geocdoe" }] }))],
    ],
    ["a plan on stdin", ["-"]],
  ])("not read: %s", async (_name, args) => {
    const { status, stdout, stderr } = await lint(args, JSON.stringify({ steps: [{ id: 1, tool: "geocdoe" }] }));
    expect({ status, stderr }).toEqual({ status: 0, stderr: "" });
    expect(stdout).not.toContain("unknown-tool");
  });

  test("--catalog wins over it, and not both --catalog and --no-catalog", async () => {
    expect((await lint([misspelt, "--catalog", "examples/lint/tools.json"])).stderr).toBe("");
    const both = await lint([misspelt, "--catalog", "examples/lint/tools.json", "--no-catalog"]);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain("plan-refs lint: --catalog and --no-catalog: give one of them\n");
  });

  test("one of the wrong shape is a file error that names it and how to leave it out", async () => {
    const bad = join(tmp, "bad-beside");
    mkdirSync(bad);
    writeFileSync(join(bad, "plan.json"), JSON.stringify({ steps: [{ id: 1, tool: "a" }] }));
    writeFileSync(join(bad, "tools.json"), "[1]");
    const { status, stderr } = await lint([join(bad, "plan.json")]);
    expect(status).toBe(2);
    expect(stderr).toMatch(/tools\.json:1:1: invalid tool catalog: .* \(the catalog beside the plan; --no-catalog leaves it out\)/);
  });
});
