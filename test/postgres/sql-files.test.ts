/**
 * The PostgreSQL workers' SQL, one statement a file (src/postgres/sql/), parameters only: each file
 * exports its statement's text (the one export named `…Sql`: a string, or a function of the
 * connection), its top-level statements are counted, and its source sends that text and nothing else.
 * Outside sql/, src/postgres sends no statement of its own but transaction control and the migration's
 * tables. In-process: it reads the statement texts and the sources, no database.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import type { Connection } from "../../src/postgres/db.js";

const SQL_FOLDER = "src/postgres/sql";
const POSTGRES_FOLDER = "src/postgres";
const CONNECTION: Connection = { connectionString: "postgres://localhost/plan_refs_test", schema: "plan_refs", where: "localhost:5432" };
/** The arguments of a statement text that is a function of something else than the connection. */
const TEXT_ARGUMENTS: Readonly<Record<string, readonly unknown[]>> = { listenSql: ["plan_refs_stopped"] };

/**
 * The top-level statements of an SQL text: the pieces between semicolons outside quotes ('…', "…"),
 * dollar quotes ($tag$…$tag$, as a PL/pgSQL body is), comments and parentheses, ignoring pieces with
 * nothing but comments and blanks.
 * A positional parameter (`$1`) is no dollar quote.
 */
function topLevelStatements(text: string): string[] {
  const statements: string[] = [];
  let code = "";
  let depth = 0;
  let i = 0;
  const end = (close: string, from: number): number => {
    const at = text.indexOf(close, from);
    return at === -1 ? text.length : at + close.length;
  };
  while (i < text.length) {
    const c = text[i]!;
    let next = i + 1;
    if (c === "-" && text[i + 1] === "-") next = end("\n", i + 2);
    else if (c === "/" && text[i + 1] === "*") next = end("*/", i + 2);
    else {
      // A doubled quote inside a quoted text is the quote itself: the scan resumes after it as after a close.
      if (c === "'" || c === '"') next = end(c, i + 1);
      else if (c === "$") {
        const tag = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(text.slice(i))?.[0];
        if (tag !== undefined) next = end(tag, i + tag.length);
      } else if (c === "(") depth++;
      else if (c === ")") depth--;
      if (c === ";" && depth === 0) {
        statements.push(code);
        code = "";
      } else code += text.slice(i, next);
    }
    i = next;
  }
  statements.push(code);
  return statements.map((statement) => statement.trim()).filter((statement) => statement !== "");
}

/** The statement text a file exports: its one `…Sql` export, rendered. */
function exportedTexts(module: Readonly<Record<string, unknown>>): { name: string; text: string }[] {
  return Object.entries(module)
    .filter(([name]) => name.endsWith("Sql"))
    .map(([name, value]) => ({
      name,
      text:
        typeof value === "function"
          ? String((value as (...args: unknown[]) => unknown)(...(TEXT_ARGUMENTS[name] ?? [CONNECTION])))
          : String(value),
    }));
}

const files = readdirSync(SQL_FOLDER)
  .filter((file) => file.endsWith(".ts"))
  .sort();

describe("the statement counter", () => {
  test.each([
    ["select 1", 1],
    ["select 1; select 2;", 2],
    ["select ';' as a; -- a comment; with a semicolon\n", 1],
    ['select 1 as "a;b"', 1],
    ["select /* ; */ 1", 1],
    ["with a as (select 1; select 2) select 3", 1],
    ["select $1::text, $2; select $3", 2],
    ["create or replace function f() returns void language plpgsql as $body$ begin perform 1; perform 2; end $body$", 1],
    ["do $$ begin perform 1; end $$; select 1", 2],
    ["select 'it''s; still one'", 1],
    ["  ;  ", 0],
  ])("%j has %i top-level statements", (text, count) => {
    expect(topLevelStatements(text)).toHaveLength(count);
  });
});

describe("src/postgres/sql: one statement a file", () => {
  test("the folder has the workers' statements", () => {
    expect(files.length).toBeGreaterThan(30);
  });

  test.each(files)("%s exports one statement text, with one top-level statement", async (file) => {
    const module = (await import(pathToFileURL(join(process.cwd(), SQL_FOLDER, file)).href)) as Record<string, unknown>;
    const texts = exportedTexts(module);
    expect(texts.map((text) => text.name)).toHaveLength(1);
    expect(topLevelStatements(texts[0]!.text)).toHaveLength(1);
  });

  test.each(files)("%s sends its exported text and nothing else; no parameter number built by string", (file) => {
    const source = readFileSync(join(SQL_FOLDER, file), "utf8");
    const name = /export (?:async )?(?:function|const) (\w+Sql)\b/.exec(source)?.[1];
    expect(name).toBeDefined();
    // A `$${n}` (or `$${from + 1}`) in a template is a parameter number computed at run time.
    expect(source).not.toMatch(/\$\$\{/);
    const queries = source.match(/\.query\(/g) ?? [];
    if (name!.endsWith("FunctionSql")) {
      // A PL/pgSQL function's statement (`create or replace function`) is run by migrate, the one caller.
      expect(queries).toHaveLength(0);
      expect(readFileSync(join(POSTGRES_FOLDER, "migrate.ts"), "utf8")).toMatch(new RegExp(`\\b${name!}\\(connection\\)`));
    } else {
      expect(queries).toHaveLength(1);
      expect(source).toMatch(new RegExp(`\\.query\\((?:\\{[\\s\\S]{0,200}?text: )?${name!}\\b`));
    }
  });
});

describe("src/postgres outside sql/: no statement of its own", () => {
  /** The statements a file outside sql/ may send: transaction control, and the migration's tables (migrate.ts's `statements`). */
  const ALLOWED = /^\.query\(("begin"|"commit"|"rollback"|statement)\)/;
  const outside = readdirSync(POSTGRES_FOLDER).filter((file) => file.endsWith(".ts"));

  test.each(outside)("%s", (file) => {
    const source = readFileSync(join(POSTGRES_FOLDER, file), "utf8");
    const calls = [...source.matchAll(/\.query\([^\n]*/g)].map((match) => match[0]);
    expect(calls.filter((call) => !ALLOWED.test(call) || (call.startsWith(".query(statement)") && file !== "migrate.ts"))).toEqual([]);
  });
});
