/**
 * A password in a connection string never reaches the command line's output: the PostgreSQL commands
 * that fail (here against a loopback port nothing listens on, so no server is needed) and the
 * mistakes that repeat a word of the command line (a URL given where a run id, a command or a flag's
 * value goes) print the database's address at most, never its password.
 */
import { describe, expect, test } from "vitest";
import { runCliInProcess } from "../helpers/cli.js";

const PASSWORD = "Zq7xK9wR";
/** Port 1 on loopback: nothing listens there, a connection is refused at once. */
const URL = `postgres://app:${PASSWORD}@127.0.0.1:1/agents`;
const PLAN = JSON.stringify({ steps: [{ id: 1, tool: "echo", args: { text: "hi" } }] });
// Without DATABASE_URL: what the command prints comes from --database alone.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "DATABASE_URL"));

describe("no output of a PostgreSQL command holds the password of its connection string", { timeout: 60_000 }, () => {
  test.each([
    ["status, unreachable", ["status", "r1", "--database", URL], /^plan-refs: cannot reach PostgreSQL at 127\.0\.0\.1:1: /],
    [
      "status, a percent-encoded password",
      ["status", "r1", "--database", `postgres://app:${PASSWORD}%40x@127.0.0.1:1/agents`],
      /^plan-refs: cannot reach PostgreSQL at 127\.0\.0\.1:1: /,
    ],
    [
      "status, a password parameter",
      ["status", "r1", "--database", `postgres://127.0.0.1:1/agents?user=app&password=${PASSWORD}`],
      /^plan-refs: cannot reach PostgreSQL at 127\.0\.0\.1:1: /,
    ],
    [
      "status, a run id that is a connection string",
      ["status", URL, "--database", URL],
      /^plan-refs: cannot reach PostgreSQL at 127\.0\.0\.1:1: /,
    ],
    ["run --database, unreachable", ["run", "-", "--database", URL], /^plan-refs: cannot reach PostgreSQL at 127\.0\.0\.1:1: /],
    [
      "run --database --detach, unreachable",
      ["run", "-", "--database", URL, "--detach"],
      /^plan-refs: cannot reach PostgreSQL at 127\.0\.0\.1:1: /,
    ],
    ["approve, unreachable", ["approve", "r1", "2", "--database", URL], /^plan-refs: cannot reach PostgreSQL at 127\.0\.0\.1:1: /],
    ["redrive, unreachable", ["redrive", "r1", "--database", URL], /^plan-refs: cannot reach PostgreSQL at 127\.0\.0\.1:1: /],
    ["db migrate, unreachable", ["db", "migrate", "--database", URL], /^plan-refs: cannot reach PostgreSQL at 127\.0\.0\.1:1: /],
    [
      "a port out of range",
      ["status", "r1", "--database", `postgres://app:${PASSWORD}@127.0.0.1:99999/agents`],
      /^plan-refs: --database has port 99999: a port is 1 to 65535$/m,
    ],
    [
      "libpq keywords",
      ["status", "r1", "--database", `host=127.0.0.1 port=1 password=${PASSWORD}`],
      /^plan-refs: --database looks like libpq keywords/,
    ],
    ["--database given twice", ["status", "r1", `--database=${URL}`, "--database", URL], /--database is given twice/],
    ["the URL where the command goes", [URL], /^plan-refs: unknown command "postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/agents"/],
    [
      "the URL where a flag's value goes",
      ["status", "r1", "--format", URL],
      /^plan-refs status: --format must be "text" or "json", not "postgres:\/\/app:\*\*\*…"$/m,
    ],
    [
      "the URL as an argument of the worker (--database forgotten)",
      ["worker", "--tools", "tools.mjs", URL],
      /^plan-refs: unexpected argument "postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/agents"$/m,
    ],
    ["the URL after a misspelt --database", ["status", "r1", "--databse", URL], /^plan-refs status: unknown flag --databse/],
  ])("%s: exit 2, one line, no password", async (_, argv, message) => {
    const result = await runCliInProcess(argv, { stdin: PLAN, env });
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
    // Not even the start of it (a message may cut a URL inside its password).
    expect(`${result.stdout}${result.stderr}`).not.toContain(PASSWORD.slice(0, 3));
  });
});
