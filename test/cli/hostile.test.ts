/**
 * The command line on hostile input, through `runCli` in-process. Every row of the shared corpus
 * test/cases/hostile.json that the command line can express is written to files and resolved; then
 * the inputs only a command line has: directories, devices, FIFOs, byte order marks, invalid UTF-8,
 * oversized stdin, and an output pipe that closes early.
 * Spawns the built executable (`npm test` builds dist/ first) for what only a process has: stdin as a
 * real pipe (read to its end, and stopped at the size limit), an output pipe that closes early
 * (src/cli/main.ts ends the program quietly on EPIPE) and an output that cannot be written (one
 * line, exit code 1, also src/cli/main.ts's).
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { argsOf, type ResolveCase } from "../helpers/cases.js";
import { runCliInProcess } from "../helpers/cli.js";
import { hostileCases, runsInCli } from "../helpers/hostile.js";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tmp = tempFolder("hostile");
const main = join(root, "dist/cli/main.js");

interface Run {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run `plan-refs resolve …` in-process (no signal can end it: `signal` is null). */
async function resolveCli(args: string[]): Promise<Run> {
  const run = await runCliInProcess(["resolve", ...args]);
  return { status: run.code, signal: null, stdout: run.stdout, stderr: run.stderr };
}

let fileCount = 0;
function file(content: string | Uint8Array): string {
  const path = join(tmp, `input-${fileCount++}.json`);
  writeFileSync(path, content);
  return path;
}

/** A clean failure: a non-zero code, one line on stderr, no stack trace, nothing on stdout. */
function expectCleanFailure(run: Run, status: number, pattern: RegExp): void {
  expect(run.signal).toBeNull();
  expect(run.status).toBe(status);
  expect(run.stdout).toBe("");
  expect(run.stderr).toMatch(pattern);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
}

function flags(row: ResolveCase): string[] {
  const options = row.options ?? {};
  return [
    ...(options.syntax === undefined ? [] : ["--syntax", options.syntax]),
    ...(options.templates === true ? ["--templates"] : []),
    ...(options.deep === true ? ["--deep"] : []),
    ...(options.strict === true ? ["--strict"] : []),
  ];
}

const rows = hostileCases().filter(runsInCli);

describe("hostile.json through plan-refs resolve", () => {
  test("most of the corpus runs on the command line", () => {
    expect(rows.length).toBeGreaterThan(hostileCases().length * 0.75);
  });

  test.concurrent.each(rows.map((row) => [row.name, row] as const))("%s", async (_name, row) => {
    const args = argsOf(row);
    const run = await resolveCli([
      "--args",
      file(JSON.stringify(args)),
      "--results",
      file(JSON.stringify("results" in row ? row.results : {})),
      ...flags(row),
    ]);
    if (row.error !== undefined) {
      if (row.error.code === "invalid-args" || row.error.code === "invalid-results") {
        expectCleanFailure(run, 2, new RegExp(`^plan-refs: (RefError|KeyError|RefSyntaxError) ${row.error.code}: `));
        return;
      }
      // An error in the arguments: the linter's printer, with the args file's line and column.
      expect(run.signal).toBeNull();
      expect(run.status).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(
        new RegExp(`^\\S+\\.json:\\d+:\\d+ error ${row.error.code} (RefError|KeyError|RefSyntaxError|StepError): `),
      );
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.stderr).toMatch(/\n1 error, 0 warnings\n$/);
      // Escaped: nothing in the report can move the cursor or start a line of its own.
      expect(run.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/);
      return;
    }
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const expected =
      "input" in row ? { q: row.passThrough ? row.input : row.expected } : row.passThrough && !("expected" in row) ? args : row.expected;
    // JSON.stringify of the expected value (parsed from the corpus, so a "__proto__" key is an own key) is the exact output.
    expect(run.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);
  });
});

describe("plan-refs resolve reads regular files and - only", () => {
  const args = file('{ "q": "$1.a" }');
  const results = file('{ "1": { "a": "ok" } }');

  test("a regular file works, and so does stdin", async () => {
    expect((await resolveCli(["--args", args, "--results", results])).stdout).toBe('{\n  "q": "ok"\n}\n');
    const piped = spawnSync(process.execPath, [main, "resolve", "--args", "-", "--results", results], {
      cwd: root,
      input: '{ "q": "$1" }',
      encoding: "utf8",
    });
    expect(piped.status).toBe(0);
    expect(piped.stdout).toBe('{\n  "q": {\n    "a": "ok"\n  }\n}\n');
    // The same through runCli's stdin.
    expect(await runCliInProcess(["resolve", "--args", "-", "--results", results], { stdin: '{ "q": "$1" }' })).toEqual({
      code: 0,
      stdout: piped.stdout,
      stderr: "",
    });
  });

  test("stdin over the size limit, handed over whole, is refused as from a pipe", async () => {
    const run = await runCliInProcess(["resolve", "--args", "-", "--results", results], {
      stdin: Buffer.alloc(16 * 1024 * 1024 + 1, 0x20),
    });
    expectCleanFailure(
      { status: run.code, signal: null, stdout: run.stdout, stderr: run.stderr },
      2,
      /^plan-refs: <stdin>: input is over the limit of 16777216 bytes/,
    );
  });

  test("a FIFO is refused at once, with or without a writer (never waits for one)", async () => {
    const fifo = join(tmp, "fifo");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    expectCleanFailure(await resolveCli(["--args", fifo, "--results", results]), 2, /is not a regular file/);
    const link = join(tmp, "link-to-fifo");
    symlinkSync(fifo, link);
    expectCleanFailure(await resolveCli(["--args", args, "--results", link]), 2, /is not a regular file/);
  });

  test.each(["/dev/zero", "/dev/null", "/dev/urandom"])("the device %s is refused", async (device) => {
    expectCleanFailure(
      await resolveCli(["--args", device, "--results", results]),
      2,
      new RegExp(`^plan-refs: ${device}: is not a regular file`),
    );
  });

  test("a directory is refused", async () => {
    expectCleanFailure(await resolveCli(["--args", args, "--results", tmp]), 2, /is a directory/);
  });

  test("stdin that never ends (/dev/zero) stops at the size limit", () => {
    const run = spawnSync(process.execPath, [main, "resolve", "--args", "-", "--results", results], {
      stdio: ["pipe", "pipe", "pipe"],
      input: Buffer.alloc(17 * 1024 * 1024, 0x20),
      encoding: "utf8",
      timeout: 20_000,
    });
    expectCleanFailure(
      { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr },
      2,
      /^plan-refs: <stdin>: input is over the limit of 16777216 bytes/,
    );
  });
});

describe("plan-refs resolve reads UTF-8 only, and says where it is not", () => {
  const results = file('{ "1": 1 }');
  test.each([
    ["a byte order mark", [0xef, 0xbb, 0xbf, ...Buffer.from('{"q":"$1"}')], /:1:1: the file starts with a UTF-8 byte order mark/],
    [
      "a Latin-1 byte on line 2",
      [...Buffer.from('{\n  "q": "caf'), 0xe9, ...Buffer.from('"\n}')],
      /:2:12: invalid UTF-8 \(byte 0xe9 at byte offset 13\)/,
    ],
    [
      "an overlong encoding of /",
      [...Buffer.from('{"q":"'), 0xc0, 0xaf, ...Buffer.from('"}')],
      /:1:7: invalid UTF-8 \(byte 0xc0 at byte offset 6\)/,
    ],
    [
      "a UTF-16 surrogate encoded as UTF-8",
      [...Buffer.from('{"q":"'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')],
      /:1:7: invalid UTF-8 \(byte 0xed/,
    ],
    [
      "a code point above U+10FFFF",
      [...Buffer.from('{"q":"'), 0xf4, 0x90, 0x80, 0x80, ...Buffer.from('"}')],
      /:1:7: invalid UTF-8 \(byte 0xf4/,
    ],
    ["a truncated sequence at the end", [...Buffer.from('{"q":"$1"}'), 0xe2, 0x82], /:1:11: invalid UTF-8 \(byte 0xe2 at byte offset 10\)/],
    [
      "a stray continuation byte after a multi-byte character",
      [...Buffer.from('{"q":"€'), 0x80, ...Buffer.from('"}')],
      /:1:8: invalid UTF-8 \(byte 0x80 at byte offset 9\)/,
    ],
  ])("%s", async (_name, bytes, message) => {
    expectCleanFailure(await resolveCli(["--args", file(Uint8Array.from(bytes)), "--results", results]), 2, message);
  });

  test("valid UTF-8 of every length passes (é, €, 🌍)", async () => {
    const run = await resolveCli(["--args", file('{ "q": "$1.é€🌍" }'), "--results", file('{ "1": { "é€🌍": "ok" } }')]);
    expect(run.stdout).toBe('{\n  "q": "ok"\n}\n');
  });
});

describe("an output that cannot be written", () => {
  test("a full device (/dev/full): one line on stderr naming the error, exit code 1", () => {
    expect(existsSync("/dev/full"), "the test writes to /dev/full, which Linux always has").toBe(true);
    const out = openSync("/dev/full", "w");
    try {
      const run = spawnSync(
        process.execPath,
        [main, "resolve", "--args", "examples/seed/args.json", "--results", "examples/seed/results.json"],
        { cwd: root, stdio: ["ignore", out, "pipe"], encoding: "utf8" },
      );
      expect(run.stderr).toBe("plan-refs: cannot write the output (ENOSPC)\n");
      expect(run.status).toBe(1);
    } finally {
      closeSync(out);
    }
  });
});

describe("an output pipe that closes early", () => {
  test("ends the program quietly: no stack trace, exit code 0", async () => {
    // About 8 MB of output: far more than a pipe buffer holds, so writes are still pending when the reader goes away.
    const args = file(JSON.stringify(Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, "$1.a"]))));
    const results = file(JSON.stringify({ 1: { a: "x".repeat(200) } }));
    const child = spawn(process.execPath, [main, "resolve", "--args", args, "--results", results], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.stdout.once("data", () => child.stdout.destroy());
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on("close", (c, s) => resolve([c, s])),
    );
    expect(stderr).toBe("");
    expect(signal).toBeNull();
    expect(code).toBe(0);
  });
});
