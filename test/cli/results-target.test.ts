/**
 * `plan-refs run --results FILE` on every kind of target, as a user runs it, through `runCli`
 * in-process; as root, the targets the user cannot write to are tried by the built executable run as
 * `nobody` (a process of another user, `npm test` builds dist/ first). A target that cannot take the results is refused
 * before any tool runs (exit 2, the target untouched, the tools never called); a symbolic link is
 * written through; a write that still fails at the end prints the results on stdout (exit 1); no
 * temporary file is ever left behind.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { runCliInProcess } from "../helpers/cli.js";
import { cliForNobody, NOBODY } from "../helpers/readable-copy.js";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
// PLAN_REFS_CLI: another build of the executable (to check that a test fails on the build before a fix).
const main = process.env["PLAN_REFS_CLI"] ?? join(root, "dist/cli/main.js");
const tmp = tempFolder("results");
chmodSync(tmp, 0o755);
const isRoot = process.getuid?.() === 0;
/**
 * As root, the tests of targets the user cannot write to run the CLI as nobody (root may write
 * anywhere), from a copy of the package nobody can read: the checkout may be in a folder only its
 * owner can enter (mode 700, as `mktemp -d` makes). Without a temp dir everyone can enter, they fail saying so.
 */
const nobody = isRoot ? cliForNobody("results-cli", main, tmp) : undefined;
/** A test that needs nobody fails when nobody cannot run the CLI (the temp dir closed to it). */
function needNobody(): void {
  if (nobody !== undefined && "unavailable" in nobody) throw new Error(nobody.unavailable);
}

function file(name: string, content: string): string {
  const path = join(tmp, name);
  writeFileSync(path, content);
  chmodSync(path, 0o644);
  return path;
}

/** Each tool call leaves a marker file: "before any tool runs" is checked by its absence. */
const marker = join(tmp, "a-tool-ran");
const tools = file(
  "tools.mjs",
  `import { writeFileSync } from "node:fs";\nexport const echo = (args) => { writeFileSync(${JSON.stringify(marker)}, "ran"); return args; };\n`,
);
const planText = JSON.stringify({ steps: [{ id: 1, tool: "echo", args: { x: 1 } }] });
const plan = file("plan.json", planText);
const expectedResults = { 1: { x: 1 } };

async function run(
  results: string,
  options: { uid?: number; planPath?: string; toolsPath?: string } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const args = ["run", options.planPath ?? plan, "--tools", options.toolsPath ?? tools, "--results", results];
  if (options.uid === undefined) {
    const result = await runCliInProcess(args, { cwd: root });
    return { status: result.code, stdout: result.stdout, stderr: result.stderr };
  }
  const executable = nobody !== undefined && "main" in nobody ? nobody.main : main;
  const out = spawnSync(process.execPath, [executable, ...args], {
    cwd: tmp,
    encoding: "utf8",
    input: "",
    timeout: 20_000,
    uid: options.uid,
    gid: options.uid,
  });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

function leftovers(folder: string): string[] {
  return readdirSync(folder).filter((name) => name.endsWith(".tmp"));
}

function clearMarker(): void {
  if (existsSync(marker)) spawnSync("rm", ["-f", marker]);
}

describe("targets that take the results", () => {
  test("a regular file: replaced whole, its mode kept, no temporary file left", async () => {
    const target = file("existing.json", "old contents");
    chmodSync(target, 0o640);
    const result = await run(target);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe("");
    expect((JSON.parse(readFileSync(target, "utf8")) as { results: unknown }).results).toEqual(expectedResults);
    expect(statSync(target).mode & 0o777).toBe(0o640);
    expect(leftovers(tmp)).toEqual([]);
  });

  test("a new file in a writable folder", async () => {
    const target = join(tmp, "new-results.json");
    const result = await run(target);
    expect(result.status).toBe(0);
    expect((JSON.parse(readFileSync(target, "utf8")) as { status: string }).status).toBe("ok");
    expect(leftovers(tmp)).toEqual([]);
  });

  test("a symbolic link: written through to its target, the link stays a link", async () => {
    const folder = join(tmp, "real");
    mkdirSync(folder, { recursive: true });
    const real = join(folder, "real.json");
    writeFileSync(real, "old");
    const link = join(tmp, "link.json");
    symlinkSync(real, link);
    const result = await run(link);
    expect(result.status).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(real);
    expect((JSON.parse(readFileSync(real, "utf8")) as { results: unknown }).results).toEqual(expectedResults);
    expect(leftovers(tmp)).toEqual([]);
    expect(leftovers(folder)).toEqual([]);
  });

  test("a dangling symbolic link: the file it names is created, the link stays a link", async () => {
    const real = join(tmp, "made-through-link.json");
    const link = join(tmp, "dangling.json");
    symlinkSync(real, link);
    const result = await run(link);
    expect(result.status).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect((JSON.parse(readFileSync(real, "utf8")) as { status: string }).status).toBe("ok");
  });
});

describe("targets refused before any tool runs: exit 2, one line, the target untouched", () => {
  const fifo = join(tmp, "fifo");
  const haveFifo = spawnSync("mkfifo", [fifo]).status === 0;
  const device = join(tmp, "null-device");
  // A copy of /dev/null's device node (as root): refusing it is what keeps /dev/null itself safe.
  const haveDevice = isRoot && spawnSync("mknod", [device, "c", "1", "3"]).status === 0;
  const folder = join(tmp, "a-folder");
  mkdirSync(folder, { recursive: true });
  const locked = join(tmp, "locked");
  mkdirSync(locked, { recursive: true });
  chmodSync(locked, 0o555);

  const rows: [string, () => string, RegExp, () => void][] = [
    [
      "a FIFO",
      () => fifo,
      /is not a regular file \(devices, FIFOs and sockets are refused\)/,
      () => expect(lstatSync(fifo).isFIFO()).toBe(true),
    ],
    ["a device node like /dev/null", () => device, /is not a regular file/, () => expect(lstatSync(device).isCharacterDevice()).toBe(true)],
    ["a directory", () => folder, /is a directory; give a file name/, () => expect(lstatSync(folder).isDirectory()).toBe(true)],
    [
      "the plan itself",
      () => plan,
      /is the plan; write the results to another file/,
      () => expect(readFileSync(plan, "utf8")).toBe(planText),
    ],
    [
      "the plan, through a symbolic link",
      () => {
        const link = join(tmp, "plan-link.json");
        if (!existsSync(link)) symlinkSync(plan, link);
        return link;
      },
      /is the plan/,
      () => expect(readFileSync(plan, "utf8")).toBe(planText),
    ],
    ["the tools module", () => tools, /is the tools module/, () => expect(readFileSync(tools, "utf8")).toContain("export const echo")],
    [
      "a file in a folder that does not exist",
      () => join(tmp, "no-such-folder", "out.json"),
      /its folder .* does not exist/,
      () => expect(existsSync(join(tmp, "no-such-folder"))).toBe(false),
    ],
  ];

  test.each(rows)("%s", async (name, target, message, untouched) => {
    if (name === "a FIFO" && !haveFifo) return;
    if (name === "a device node like /dev/null" && !haveDevice) return;
    clearMarker();
    const result = await run(target());
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/nothing was run\n$/);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(existsSync(marker)).toBe(false);
    untouched();
    expect(leftovers(tmp)).toEqual([]);
  });

  test("a file in a folder the user cannot write to", async () => {
    needNobody();
    clearMarker();
    const result = await run(join(locked, "out.json"), isRoot ? { uid: NOBODY } : {});
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/its folder .*locked is not writable; nothing was run/);
    expect(existsSync(marker)).toBe(false);
    expect(readdirSync(locked)).toEqual([]);
  });

  test("an existing file the user cannot write to", async () => {
    needNobody();
    clearMarker();
    const target = file("read-only.json", "keep me");
    chmodSync(target, 0o444);
    const result = await run(target, isRoot ? { uid: NOBODY } : {});
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/is not writable; nothing was run/);
    expect(readFileSync(target, "utf8")).toBe("keep me");
  });
});

describe("a write that fails at the end", () => {
  test("the results are printed on stdout instead, exit 1, and no temporary file is left", async () => {
    // The folder is removed while the tool runs: the target was fine when checked, not when written.
    const folder = join(tmp, "vanishing");
    mkdirSync(folder, { recursive: true });
    const sabotage = file(
      "sabotage.mjs",
      `import { rmSync } from "node:fs";\nexport const echo = (args) => { rmSync(${JSON.stringify(folder)}, { recursive: true }); return args; };\n`,
    );
    const result = await run(join(folder, "out.json"), { toolsPath: sabotage });
    expect(result.status).toBe(1);
    expect((JSON.parse(result.stdout) as { results: unknown }).results).toEqual(expectedResults);
    expect(result.stderr).toMatch(/--results .*out\.json: cannot write the results \(.*\); they are printed on stdout instead\n/);
    expect(leftovers(tmp)).toEqual([]);
  });
});
