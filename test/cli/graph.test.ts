/**
 * `plan-refs graph` and `plan-refs run --timeline`, through `runCli` in-process: formats, --out and
 * its safe-target rules, exit codes (lint errors: drawn, exit 1), escaped messages, and the timeline
 * written after a run that succeeded, failed or was interrupted (an abort whose reason is a signal's,
 * as src/cli/main.ts makes it; test/cli/signals.test.ts sends real signals).
 * Spawns the built executable once: as root, the unwritable --out folder is checked by the CLI run as
 * `nobody` (a process of another user), from a copy that user can read.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { splitCommand } from "../../src/mcp/split-command.js";
import { planToDot, planToMermaid, planToSvg } from "../../src/draw/index.js";
import { parseXml } from "../draw/xml.js";
import { Interrupted } from "../../src/cli/io.js";
import { runCliInProcess } from "../helpers/cli.js";
import { cliForNobody, NOBODY } from "../helpers/readable-copy.js";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const main = process.env["PLAN_REFS_CLI"] ?? join(root, "dist/cli/main.js");
const tmp = tempFolder("graph");
chmodSync(tmp, 0o755);
const isRoot = process.getuid?.() === 0;
// As root (who may write anywhere), the unwritable --out test runs the CLI as nobody, from a copy nobody can read.
const nobody = isRoot ? cliForNobody("graph-cli", main, tmp) : undefined;
const TRIP = "examples/trip/plan.json";
const TRIP_TOOLS = "examples/trip/tools.json";
const trip = JSON.parse(readFileSync(join(root, TRIP), "utf8")) as unknown;
const tripCatalog = JSON.parse(readFileSync(join(root, TRIP_TOOLS), "utf8")) as Record<string, never>;

function file(name: string, content: string): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
}

async function cli(args: string[], input = ""): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const result = await runCliInProcess(args, { stdin: input, cwd: root });
  return { status: result.code, stdout: result.stdout, stderr: result.stderr };
}

const noStackTrace = /\n\s+at /;
/** What the command prints for a picture: the text, ending with one line feed. */
const line = (text: string): string => (text.endsWith("\n") ? text : `${text}\n`);
// Escape (except the line feed), C1 controls, bidirectional overrides: never on a terminal.
const controls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("plan-refs graph", () => {
  test("--help: usage, options, defaults, exit codes, examples; every example runs (exit 0 or 1)", async () => {
    const help = await cli(["graph", "--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: plan-refs graph /);
    expect(help.stdout).toMatch(/\noptions:\n/);
    expect(help.stdout).toMatch(/SVG \(default\)/);
    expect(help.stdout).toMatch(/\nexit codes:\n {2}0 .*\n {2}1 .*\n(.*\n)* {2}2 /);
    const examples = help.stdout
      .slice(help.stdout.search(/\nexamples?:\n/))
      .split("\n")
      .filter((line) => line.startsWith("  plan-refs "))
      .map((line) => splitCommand(line.trim()).slice(1));
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      const result = await cli(example);
      expect([0, 1], example.join(" ")).toContain(result.status);
      expect(result.stdout.length).toBeGreaterThan(0);
      expect(result.stderr).not.toMatch(noStackTrace);
    }
    expect((await cli(["--help"])).stdout).toContain("usage: plan-refs graph ");
  });

  test.each([
    ["svg", [], () => planToSvg(trip, { catalog: tripCatalog })],
    ["svg", ["--format", "svg"], () => planToSvg(trip, { catalog: tripCatalog })],
    ["mermaid", ["--format", "mermaid"], () => planToMermaid(trip, { catalog: tripCatalog })],
    ["dot", ["--format", "dot"], () => planToDot(trip, { catalog: tripCatalog })],
  ] as const)("%s on stdout (%j), the same text as the API's, exit 0", async (_name, flags, expected) => {
    const result = await cli(["graph", TRIP, "--catalog", TRIP_TOOLS, ...flags]);
    expect(result).toEqual({ status: 0, stdout: line(expected()), stderr: "" });
  });

  test("the SVG on stdout parses as XML, with one box per step", async () => {
    const result = await cli(["graph", TRIP]);
    const svg = parseXml(result.stdout.trim());
    expect(svg.name).toBe("svg");
    expect(result.stdout.match(/class="plan-refs-step/g)?.length).toBe(4);
  });

  test("the plan from stdin", async () => {
    const result = await cli(["graph", "-", "--format", "mermaid"], readFileSync(join(root, TRIP), "utf8"));
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(line(planToMermaid(trip)));
  });

  test.each([
    ["out.svg", "svg", (text: string) => text.startsWith("<svg ")],
    ["out.mmd", "mermaid", (text: string) => text.startsWith("flowchart LR")],
    ["out.dot", "dot", (text: string) => text.startsWith("digraph plan {")],
    ["out.gv", "dot", (text: string) => text.startsWith("digraph plan {")],
    ["out.txt", "svg", (text: string) => text.startsWith("<svg ")],
  ])("--out %s without --format: %s, nothing on stdout", async (name, _format, check) => {
    const out = join(tmp, name);
    const result = await cli(["graph", TRIP, "--out", out]);
    expect(result).toEqual({ status: 0, stdout: "", stderr: "" });
    expect(check(readFileSync(out, "utf8"))).toBe(true);
  });

  test("--format wins over the --out name; a file is replaced whole, no temporary file left", async () => {
    const out = file("replaced.svg", "old content, longer than nothing at all\n".repeat(100));
    expect((await cli(["graph", TRIP, "--format", "dot", "--out", out])).status).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(line(planToDot(trip)));
    expect(readdirSync(tmp).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  test("--out through a symbolic link writes the file it points at", async () => {
    const real = file("real.svg", "");
    const link = join(tmp, "link.svg");
    symlinkSync(real, link);
    expect((await cli(["graph", TRIP, "--out", link])).status).toBe(0);
    expect(readFileSync(real, "utf8")).toBe(line(planToSvg(trip)));
  });

  test("the hint names the command that finds the errors: pasted as printed, it reports them", async () => {
    const result = await cli(["graph", "examples/lint/mistakes.plan.json", "--catalog", "examples/lint/tools.json"]);
    const hint = /\(plan-refs (.+) for details\)/.exec(result.stderr)?.[1];
    expect(hint).toBeDefined();
    const lint = await cli(splitCommand(hint!));
    expect(lint.status).toBe(1);
    const count = Number(/has (\d+) lint error/.exec(result.stderr)?.[1]);
    expect(lint.stdout.match(/ error /g)?.length ?? 0).toBe(count);
  });

  test("drawn without a catalog beside one, the hint lints without it too (lint would read it): --no-catalog, and the same count", async () => {
    const result = await cli(["graph", "examples/lint/mistakes.plan.json"]);
    const hint = /\(plan-refs (.+) for details\)/.exec(result.stderr)?.[1];
    expect(hint).toBe("lint examples/lint/mistakes.plan.json --no-catalog");
    const lint = await cli(splitCommand(hint!));
    const count = Number(/has (\d+) lint error/.exec(result.stderr)?.[1]);
    expect(lint.stdout.match(/ error /g)?.length ?? 0).toBe(count);
  });

  test("a hint quotes a plan path with spaces for the shell", async () => {
    const spaced = join(tmp, "my plan.json");
    writeFileSync(spaced, readFileSync("examples/lint/mistakes.plan.json"));
    const result = await cli(["graph", spaced, "--catalog", "examples/lint/tools.json"]);
    expect(result.stderr).toContain(`(plan-refs lint '${spaced}' --catalog examples/lint/tools.json for details)`);
  });

  test("a plan with lint errors is drawn (the errors in red) and exits 1, with one line on stderr", async () => {
    const out = join(tmp, "mistakes.svg");
    const result = await cli(["graph", "examples/lint/mistakes.plan.json", "--catalog", "examples/lint/tools.json", "--out", out]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(
      /^plan-refs: examples\/lint\/mistakes\.plan\.json has \d+ lint errors?, drawn in red \(plan-refs lint examples\/lint\/mistakes\.plan\.json --catalog examples\/lint\/tools\.json for details\)\n$/,
    );
    const svg = readFileSync(out, "utf8");
    expect(svg).toMatch(/plan-refs-edge-(missing|error)/);
    expect(svg).toContain("#dc2626");
  });

  test("warnings only: exit 0", async () => {
    // A reference to a step that runs later is fine; an unused result is no error either.
    const plan = file(
      "warn.json",
      JSON.stringify({
        steps: [
          { id: 1, tool: "a", args: {} },
          { id: 2, tool: "b", args: { x: "$1.k" } },
        ],
      }),
    );
    expect((await cli(["graph", plan])).status).toBe(0);
  });

  test.each([
    [["graph"], /missing the plan file\nusage: plan-refs graph /],
    [["graph", TRIP, TRIP], /graph takes one plan file/],
    [["graph", TRIP, "--format", "png"], /--format must be "svg", "mermaid" or "dot"/],
    [["graph", TRIP, "--colour"], /unknown flag --colour\n/],
    [["graph", "no/such/plan.json"], /no\/such\/plan\.json/],
    [["graph", "-", "--catalog", "-"], /only one of the plan and --catalog/],
    [["graph", TRIP, "--out", TRIP], /--out examples\/trip\/plan\.json: is the plan; write it to another file; nothing was written/],
    [["graph", TRIP, "--catalog", TRIP_TOOLS, "--out", TRIP_TOOLS], /is the tool catalog; write it to another file; nothing was written/],
    [["graph", TRIP, "--out", "/dev/null"], /is not a regular file/],
    [["graph", TRIP, "--out", "no/such/folder/x.svg"], /its folder .* does not exist; nothing was written/],
    [["graph", TRIP, "--out", "examples"], /is a directory/],
  ])("usage and file errors: exit 2, one message, nothing written (%j)", async (args, message) => {
    const before = readFileSync(join(root, TRIP), "utf8");
    const result = await cli(args);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(noStackTrace);
    expect(readFileSync(join(root, TRIP), "utf8")).toBe(before);
  });

  test("a plan that is not JSON: exit 2 with its place", async () => {
    const result = await cli(["graph", file("broken.json", '{ "steps": [ }')]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/broken\.json:1:\d+: invalid JSON/);
  });

  test("an unwritable --out folder is refused before anything is drawn", async () => {
    if (nobody !== undefined && "unavailable" in nobody) throw new Error(nobody.unavailable);
    const locked = join(tmp, "locked");
    mkdirSync(locked);
    // Everyone may enter it, nobody may write it (0o500 would be closed to nobody altogether).
    chmodSync(locked, 0o555);
    const plan = file("trip-for-nobody.json", readFileSync(join(root, TRIP), "utf8"));
    chmodSync(plan, 0o644);
    const args = ["graph", plan, "--out", join(locked, "x.svg")];
    const asNobody = nobody !== undefined && "main" in nobody ? nobody.main : undefined;
    const result =
      asNobody === undefined
        ? await cli(args)
        : spawnSync(process.execPath, [asNobody, ...args], {
            cwd: tmp,
            encoding: "utf8",
            input: "",
            timeout: 30_000,
            uid: NOBODY,
            gid: NOBODY,
          });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/is not writable; nothing was written/);
    expect(readdirSync(locked)).toEqual([]);
  });

  test("hostile names: the terminal sees no control characters, the SVG holds them escaped", async () => {
    const evil = "\u001b[31m\u202egeo<script>alert(1)</script>\"'&";
    const plan = file(
      "evil.json",
      JSON.stringify({
        steps: [
          { id: 1, tool: evil, args: {} },
          { id: 2, tool: "x".repeat(10_000), args: { a: "$1.k", b: "$9.z" } },
        ],
      }),
    );
    const svgResult = await cli(["graph", plan]);
    expect(svgResult.status).toBe(1);
    expect(svgResult.stdout).not.toContain("<script");
    expect(svgResult.stdout).not.toMatch(controls);
    expect(() => parseXml(svgResult.stdout.trim())).not.toThrow();
    for (const format of ["mermaid", "dot"]) {
      const text = await cli(["graph", plan, "--format", format]);
      expect(text.status).toBe(1);
      expect(text.stdout).not.toMatch(controls);
      // Mermaid: entity codes, no markup; DOT: the name stays inside its quoted string (where `<` is plain text).
      if (format === "mermaid") expect(text.stdout).not.toContain("<script");
      else expect(text.stdout).toContain(String.raw`geo<script>alert(1)</script>\"'&"`);
    }
    const evilPath = join(tmp, "evil\u001b[2J\u202ename.json");
    writeFileSync(evilPath, readFileSync(plan));
    const result = await cli(["graph", evilPath, "--out", join(tmp, "evil\u001b]0;title\u0007.svg")]);
    expect(result.stderr).not.toMatch(controls);
    expect(result.stderr).toMatch(/lint error/);
    const refused = await cli(["graph", evilPath, "--out", join(tmp, "no\u001b[2Jsuch", "x.svg")]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).not.toMatch(controls);
  });
});

describe("plan-refs run --timeline", () => {
  const tools = file(
    "tools.mjs",
    `export const quick = () => ({ k: 1 });\n` +
      `export const broken = () => { throw new Error("broken <on purpose>"); };\n` +
      `export const listens = (_args, { signal }) => new Promise((_r, reject) => signal.addEventListener("abort", () => reject(signal.reason)));\n`,
  );
  const plan = (name: string, second: string): string =>
    file(
      `${name}.plan.json`,
      JSON.stringify({
        steps: [
          { id: 1, tool: "quick", args: {} },
          { id: 2, tool: second, args: { after: "$1.k" } },
          { id: 3, tool: "quick", args: { after: "$2.k" } },
        ],
      }),
    );

  test("SVG after a run that succeeded: exit 0, one bar per step, the report still on stdout", async () => {
    const out = join(tmp, "ok.svg");
    const result = await cli(["run", plan("ok", "quick"), "--tools", tools, "--timeline", out]);
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "ok" });
    const svg = readFileSync(out, "utf8");
    expect(parseXml(svg.trim()).name).toBe("svg");
    expect(svg.match(/class="plan-refs-bar plan-refs-ok/g)?.length).toBe(3);
    expect(svg).toContain('data-from="1" data-to="2"');
  });

  test("Mermaid after a run that failed: exit 1, the failed step crit, the skipped one a milestone", async () => {
    const out = join(tmp, "failed.mmd");
    const result = await cli(["run", plan("failed", "broken"), "--tools", tools, "--timeline", out, "--results", join(tmp, "failed.json")]);
    expect(result.status).toBe(1);
    const text = readFileSync(out, "utf8");
    expect(text.startsWith("gantt\n")).toBe(true);
    expect(text).toMatch(/broken :crit/);
    expect(text).toMatch(/milestone/);
  });

  test("written when a signal interrupts the run (SIGINT: exit 130), the aborted step drawn", async () => {
    const out = join(tmp, "aborted.svg");
    const controller = new AbortController();
    let stderr = "";
    const onStderr = (text: string): void => {
      stderr += text;
      if (stderr.includes("step 2 (listens) started")) controller.abort(new Interrupted("SIGINT"));
    };
    const run = await runCliInProcess(["run", plan("aborted", "listens"), "--tools", tools, "--timeline", out], {
      cwd: root,
      signal: controller.signal,
      onStderr,
    });
    expect(run.code).toBe(130);
    const svg = readFileSync(out, "utf8");
    expect(svg).toMatch(/class="plan-refs-bar plan-refs-aborted/);
    expect(svg).toMatch(/class="plan-refs-bar plan-refs-skipped/);
  });

  test.each([
    [["--timeline", "timeline.png"], /the name must end in \.svg \(SVG\) or \.mmd \(Mermaid\); nothing was run/],
    [["--timeline", "no/such/folder/t.svg"], /--timeline no\/such\/folder\/t\.svg: its folder .* does not exist; nothing was run/],
    [["--timeline", "examples/trip/tools.mjs.svg", "--results", "examples/trip/tools.mjs.svg"], /is the --results file/],
    [["--timeline", "x.svg", "--database", "postgres://127.0.0.1:1/x", "--detach"], /--timeline needs the run to end here, not --detach/],
  ])("refused before anything runs: exit 2 (%j)", async (flags, message) => {
    const result = await cli(["run", TRIP, "--tools", "examples/trip/tools.mjs", ...flags]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/started/);
    expect(existsSync(join(root, "x.svg"))).toBe(false);
  });

  test("a timeline that cannot be written at the end: one escaped line, exit 1, the report still on stdout", async () => {
    // The tool turns the checked target into a folder while the run goes on.
    const target = join(tmp, "becomes-a-folder.svg");
    writeFileSync(target, "");
    const swap = file(
      "swap.mjs",
      `import { mkdirSync, rmSync } from "node:fs";\nexport const swap = ({ path }) => { rmSync(path); mkdirSync(path); return { k: 1 }; };\n`,
    );
    const planPath = file("swap.plan.json", JSON.stringify({ steps: [{ id: 1, tool: "swap", args: { path: target } }] }));
    const result = await cli(["run", planPath, "--tools", swap, "--timeline", target]);
    expect(result.status).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: "ok" });
    expect(result.stderr).toMatch(
      /plan-refs: --timeline .*becomes-a-folder\.svg: cannot write the timeline \(is a directory; give a file name\)\n/,
    );
    expect(result.stderr).not.toMatch(controls);
  });

  test("a plan that is JSON but no plan: drawn (no steps), exit 1", async () => {
    const result = await cli(["graph", file("number.json", "42")]);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^<svg /);
    expect(result.stdout).toContain("no steps");
  });

  test("the plan itself is refused as a --timeline target", async () => {
    const target = file("self.svg", JSON.stringify({ steps: [{ id: 1, tool: "quick", args: {} }] }));
    const result = await cli(["run", target, "--tools", tools, "--timeline", target]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--timeline .*self\.svg: is the plan; write it to another file; nothing was run/);
  });
});
