/**
 * `plan-refs lsp` started by hand: from a terminal without --stdio it says what it is (its usage) and
 * exits 2, instead of waiting silently for protocol messages. `script` (util-linux) gives the child a
 * real terminal on stdin; the language server itself is tested in test/editor/.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { requireProgram } from "../helpers/prerequisite.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
// PLAN_REFS_CLI: another build of the executable (to check that a test fails on the build before a fix).
const main = process.env["PLAN_REFS_CLI"] ?? join(root, "dist/cli/main.js");

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

describe("plan-refs lsp on a terminal", () => {
  beforeAll(() => requireProgram("script", ["--version"], "script(1) from util-linux gives the child a terminal"));

  test("without --stdio: one line saying how it is started, the usage, exit 2", () => {
    const command = [process.execPath, main, "lsp"].map(shellQuote).join(" ");
    // The timeout only ends a server that waits (the bug), so that the test fails instead of hanging.
    const result = spawnSync("script", ["-qfec", command, "/dev/null"], { cwd: root, encoding: "utf8", timeout: 20_000 });
    const lines = result.stdout.replaceAll("\r", "").split("\n");
    expect(lines.slice(0, 3)).toEqual([
      "plan-refs lsp: the language server is started by an editor, with --stdio; its messages come on stdin, not from a terminal",
      "usage: plan-refs lsp --stdio   (language server over stdin/stdout, for editors)",
      "(plan-refs lsp --help for more)",
    ]);
    expect(result.status).toBe(2);
  });
});

describe("plan-refs lsp on a pipe", () => {
  test("without --stdio it serves, as an editor that leaves the flag out expects: the end of the stream without shutdown is exit 1", () => {
    const result = spawnSync(process.execPath, [main, "lsp"], { cwd: root, encoding: "utf8", input: "", timeout: 20_000 });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
  });
});
