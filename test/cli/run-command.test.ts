/**
 * `plan-refs run` as a user runs it, through `runCli` in-process, on the trip example and on small
 * plans and tools modules written to a temporary folder. Ctrl-C is an abort whose reason is the
 * signal's, as src/cli/main.ts makes it (test/cli/signals.test.ts sends real signals to a process).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { Interrupted } from "../../src/cli/io.js";
import { runCliInProcess } from "../helpers/cli.js";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tmp = tempFolder("run");

function file(name: string, content: string): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
}

async function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const result = await runCliInProcess(["run", ...args], { cwd: root });
  return { status: result.code, stdout: result.stdout, stderr: result.stderr };
}

const trip = ["examples/trip/plan.json", "--tools", "examples/trip/tools.mjs", "--catalog", "examples/trip/tools.json"];
const tools = file(
  "tools.mjs",
  `export const echo = (args) => args;\nexport const boom = () => { throw new Error("service down"); };\nexport default { extra: () => "from default" };\n`,
);
const twoSteps = file(
  "two.plan.json",
  JSON.stringify({
    steps: [
      { id: 1, tool: "echo", args: { x: 1 } },
      { id: 2, tool: "echo", args: { y: "$1.x" } },
    ],
  }),
);
const failing = file(
  "failing.plan.json",
  JSON.stringify({
    steps: [
      { id: 1, tool: "echo", args: {} },
      { id: 2, tool: "boom", args: {} },
      { id: 3, tool: "echo", args: { a: "$2" } },
      { id: 4, tool: "extra", args: {} },
    ],
  }),
);
const needsMissingTool = file("missing-tool.plan.json", JSON.stringify({ steps: [{ id: 1, tool: "translate", args: {} }] }));
const lintErrors = file("lint-errors.plan.json", JSON.stringify({ steps: [{ id: 1, tool: "echo", args: { q: "$5.city" } }] }, null, 2));

describe("plan-refs run", () => {
  test("the trip example runs end to end: exit 0, results as JSON on stdout, progress on stderr", async () => {
    const result = await run([...trip, "--validate-outputs"]);
    expect(result.status).toBe(0);
    const report = JSON.parse(result.stdout) as { status: string; results: Record<string, { title?: string; mustSee?: string[] }> };
    expect(report.status).toBe("ok");
    expect(report.results["4"]?.title).toBe("Weekend in Lisbon, Portugal");
    expect(report.results["4"]?.mustSee).toEqual(["Jerónimos Monastery", "Belém Tower", "São Jorge Castle"]);
    expect(result.stderr).toMatch(/^step 1 \(geocode\) started at/m);
    expect(result.stderr).toMatch(/^step 4 \(summarise\) done in/m);
    expect(result.stderr).not.toMatch(/\u001b\[/); // not a terminal: plain lines
  });

  test("references resolve across steps; named and default-exported tools both count", async () => {
    const result = await run([failing, "--tools", tools]);
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout) as {
      status: string;
      results: Record<string, unknown>;
      errors: Record<string, { code: string; message: string }>;
      skipped: number[];
    };
    expect(report.status).toBe("failed");
    expect(report.results).toEqual({ 1: {}, 4: "from default" });
    expect(report.errors["2"]?.code).toBe("tool-error");
    expect(report.errors["2"]?.message).toContain("service down");
    expect(report.skipped).toEqual([3]);
    expect(result.stderr).toContain("step 3 (echo) skipped");
  });

  test.each([["--attempts"], ["--retry"]])(
    "%s N tries a failing tool N times in all (each wait told on stderr); the report counts the tries",
    async (flag) => {
      const source = `let calls = 0;\nexport const flaky = (args, context) => { calls++; if (calls < 3) throw new Error("down " + calls); return { calls, attempt: context.attempt, key: context.idempotencyKey }; };\n`;
      const flaky = file(`flaky${flag}.mjs`, source);
      const plan = file("flaky.plan.json", JSON.stringify({ steps: [{ id: 1, tool: "flaky", args: {} }] }));
      const result = await run([plan, "--tools", flaky, flag, "3", "--retry-delay", "0"]);
      expect(result.status, result.stderr).toBe(0);
      const report = JSON.parse(result.stdout) as {
        runId: string;
        attempts: Record<string, number>;
        results: Record<string, { calls: number; attempt: number; key: string }>;
      };
      expect(report.attempts).toEqual({ 1: 3 });
      expect(report.results["1"]).toEqual({ calls: 3, attempt: 3, key: `${report.runId}:1` });
      expect(result.stderr).toMatch(/step 1 \(flaky\) retrying in 0\.0 s \(attempt 2 of 3\): step 1 \(flaky\): the tool threw: down 1/);
      // A module is loaded once per process: a fresh copy starts counting again, as a new process would.
      expect((await run([plan, "--tools", file(`flaky-again${flag}.mjs`, source)])).status).toBe(1);
    },
  );

  test("a plan's output is in the report; one it cannot resolve is told on stderr and leaves the exit code to the steps", async () => {
    const withOutput = file(
      "output.plan.json",
      JSON.stringify({
        steps: [
          { id: 1, tool: "echo", args: { x: 1 } },
          { id: 2, tool: "boom", args: {} },
        ],
        output: { x: "$1.x" },
      }),
    );
    const ok = await run([withOutput, "--tools", tools]);
    expect(ok.status).toBe(1); // step 2 failed
    expect((JSON.parse(ok.stdout) as { output: unknown }).output).toEqual({ x: 1 });
    const unresolved = file(
      "output-bad.plan.json",
      JSON.stringify({
        steps: [
          { id: 1, tool: "echo", args: { x: 1 } },
          { id: 2, tool: "boom", args: {} },
        ],
        output: { x: "$2.x" },
      }),
    );
    const bad = await run([unresolved, "--tools", tools]);
    expect(bad.status).toBe(1);
    const report = JSON.parse(bad.stdout) as { output?: unknown; outputError: { code: string } };
    expect(Object.hasOwn(report, "output")).toBe(false);
    expect(report.outputError.code).toBe("unresolved-output");
    expect(bad.stderr).toContain(
      `plan-refs: the plan's output: it refers to step 2 (at /x), which failed (tool-error); the report has "outputError" instead of "output"`,
    );
  });

  test("--results writes the report to a file instead of stdout", async () => {
    const out = join(tmp, "out.json");
    const result = await run([twoSteps, "--tools", tools, "--results", out, "--concurrency", "1"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe("");
    expect((JSON.parse(readFileSync(out, "utf8")) as { results: unknown }).results).toEqual({ 1: { x: 1 }, 2: { y: 1 } });
    expect(readdirSync(tmp).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  test.each([
    ["a missing tools module", [twoSteps, "--tools", join(tmp, "nope.mjs")], /nope\.mjs: no such tools module/],
    ["a tools module that is a directory", [twoSteps, "--tools", tmp], /must be a regular file/],
    ["a tool the module does not export", [needsMissingTool, "--tools", tools], /no function for tool "translate"/],
    [
      "a plan with lint errors",
      [lintErrors, "--tools", tools],
      /lint-errors\.plan\.json:7:15 error unknown-step \$5\.city refers to step 5/,
    ],
    ["no --tools", [twoSteps], /missing --tools/],
    ["a bad --concurrency", [twoSteps, "--tools", tools, "--concurrency", "zero"], /--concurrency must be a positive integer/],
    ["a missing plan", [join(tmp, "none.json"), "--tools", tools], /no such file/],
    ["an unknown flag", [twoSteps, "--tools", tools, "--fast"], /unknown flag --fast\n/],
  ])("exit 2, one clear line, no stack trace: %s", async (_name, args, message) => {
    const result = await run(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe("");
  });

  test("Ctrl-C aborts cleanly: exit 130, and the results so far are still written", async () => {
    const slowTools = file(
      "slow.mjs",
      `export const quick = () => "done";\nexport const hang = (_args, { signal }) => new Promise((_r, reject) => signal.addEventListener("abort", () => reject(signal.reason)));\n`,
    );
    const plan = file(
      "slow.plan.json",
      JSON.stringify({
        steps: [
          { id: 1, tool: "quick", args: {} },
          { id: 2, tool: "hang", args: { after: "$1" } },
        ],
      }),
    );
    const out = join(tmp, "interrupted.json");
    const controller = new AbortController();
    let seen = "";
    const onStderr = (text: string): void => {
      seen += text;
      if (seen.includes("step 2 (hang) started")) controller.abort(new Interrupted("SIGINT"));
    };
    const { code, stderr } = await runCliInProcess(["run", plan, "--tools", slowTools, "--results", out], {
      cwd: root,
      signal: controller.signal,
      onStderr,
    });
    expect(code).toBe(130);
    expect(existsSync(out)).toBe(true);
    const report = JSON.parse(readFileSync(out, "utf8")) as {
      status: string;
      results: Record<string, unknown>;
      errors: Record<string, { code: string }>;
    };
    expect(report.status).toBe("aborted");
    expect(report.results).toEqual({ 1: "done" });
    expect(report.errors["2"]?.code).toBe("aborted");
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe("plan-refs run on a terminal", () => {
  test("stderr shows a live view redrawn in place: failures stay above it, the last view counts every state", async () => {
    const { runCli } = await import("../../src/cli/cli.js");
    let stdout = "";
    let stderr = "";
    const code = await runCli(["run", failing, "--tools", tools], {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      stdoutIsTTY: false,
      stderrIsTTY: true,
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(/\u001b\[\d+A/); // cursor up: the view is redrawn in place
    const plain = stderr.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");
    expect(plain).toMatch(/failed\s+step 2 \(boom\): failed after \d+ ms: step 2 \(boom\): the tool threw: service down/);
    const lastView = plain.slice(plain.lastIndexOf("\r"));
    expect(lastView).toMatch(/0 running, 0 waiting, 2 done, 1 failed, 1 skipped/);
    expect((JSON.parse(stdout) as { status: string }).status).toBe("failed");
  });
});

describe("--validate-inputs", () => {
  test("a step whose resolved arguments break its input schema fails (invalid-input) before its tool is called", async () => {
    const tools = file(
      "vi-tools.mjs",
      'export const parse = () => ({ n: "three" });\nexport const add = ({ a, b }) => { throw new Error(`called with ${a}, ${b}`); };\n',
    );
    const catalog = file(
      "vi-tools.json",
      JSON.stringify({
        parse: {},
        add: { input: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },
      }),
    );
    const plan = file(
      "vi-plan.json",
      JSON.stringify({
        steps: [
          { id: 1, tool: "parse" },
          { id: 2, tool: "add", args: { a: "$1.n", b: 2 } },
        ],
      }),
    );
    const checked = await run([plan, "--tools", tools, "--catalog", catalog, "--validate-inputs"]);
    expect(checked.status).toBe(1);
    expect(checked.stderr).toContain('step 2 (add): its arguments do not match the input schema: /a must be a number (got "three")');
    expect(checked.stderr).not.toContain("called with");
    const unchecked = await run([plan, "--tools", tools, "--catalog", catalog]);
    expect(unchecked.stderr).toContain("called with three, 2");
  });
});

describe("the tools.json beside the plan", () => {
  const folder = join(tmp, "beside");
  mkdirSync(folder);
  const plan = join(folder, "plan.json");
  writeFileSync(plan, JSON.stringify({ steps: [{ id: 1, tool: "echo", args: { x: 1 } }] }));
  // Its output schema wants a key echo does not return: --validate-outputs fails the step only when the catalog is read.
  writeFileSync(join(folder, "tools.json"), JSON.stringify({ echo: { output: { type: "object", required: ["y"] } } }));

  test("is the catalog without --catalog: said on stderr, and --validate-outputs checks against it", async () => {
    const result = await run([plan, "--tools", tools, "--validate-outputs"]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `plan-refs: catalog ${join(folder, "tools.json")} (beside the plan; --catalog FILE for another, --no-catalog for none)\n`,
    );
    expect(JSON.parse(result.stdout).errors["1"].code).toBe("invalid-output");
  });

  test("--no-catalog leaves it out", async () => {
    const result = await run([plan, "--tools", tools, "--validate-outputs", "--no-catalog"]);
    expect(result.status).toBe(0);
    expect(result.stderr).not.toContain("catalog");
  });

  test("is guarded as the catalog: --results may not replace it", async () => {
    const result = await run([plan, "--tools", tools, "--results", join(folder, "tools.json")]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("is the tool catalog");
  });
});
