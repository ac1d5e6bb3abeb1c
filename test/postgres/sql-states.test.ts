/**
 * The step states the PostgreSQL workers' SQL writes and compares are the ones schedule.ts knows (its
 * `STEP_STATES`, and the workers' own `retrying`): every statement text of src/postgres/sql/ and of the
 * migration, rendered, is read for the states it sets or compares; and no source spells a state as a
 * literal of its own (each comes from `STATE_SQL`, `statesSql` or a state list). In-process: it reads
 * the statement texts and the sources, no database.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { STEP_STATES } from "../../src/step/schedule.js";
import type { Connection } from "../../src/postgres/db.js";
import { migrationStatements } from "../../src/postgres/migrate.js";
import { RETRYING, STATE_SQL, STORED_STATES, statesSql } from "../../src/postgres/stored-states.js";

const SQL_FOLDER = "src/postgres/sql";
const CONNECTION: Connection = { connectionString: "postgres://localhost/plan_refs_test", schema: "plan_refs", where: "localhost:5432" };
/** The arguments of a statement text that is a function of something else than the connection. */
const TEXT_ARGUMENTS: Readonly<Record<string, readonly unknown[]>> = { listenSql: ["plan_refs_stopped"] };

const literals = (text: string): string[] => [...text.matchAll(/'((?:[^']|'')*)'/g)].map((match) => match[1]!.replaceAll("''", "'"));

/**
 * The literals a statement sets a step's state to or compares it with: `state = '…'` (and `<>`),
 * `state [not] in ('…', …)`, and the branches of `state = case … then '…' else '…' end`.
 */
function stateLiterals(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/\bstate\s*(?:=|<>|!=)\s*case\b([\s\S]*?)\bend\b/g)) {
    for (const branch of match[1]!.matchAll(/\b(?:then|else)\s+('(?:[^']|'')*')/g)) found.push(...literals(branch[1]!));
  }
  for (const match of text.matchAll(/\bstate\s*(?:=|<>|!=)\s*('(?:[^']|'')*')/g)) found.push(...literals(match[1]!));
  for (const match of text.matchAll(/\bstate\s+(?:not\s+)?in\s*\(([^)]*)\)/g)) found.push(...literals(match[1]!));
  return found;
}

/** Every statement text: each sql/ file's exported `…Sql`, rendered, and the migration's statements. */
async function statementTexts(): Promise<{ where: string; text: string }[]> {
  const texts: { where: string; text: string }[] = migrationStatements(CONNECTION).map((text, i) => ({
    where: `migrate.ts statement ${i}`,
    text,
  }));
  for (const file of readdirSync(SQL_FOLDER).filter((name) => name.endsWith(".ts"))) {
    const module = (await import(pathToFileURL(join(process.cwd(), SQL_FOLDER, file)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (!name.endsWith("Sql")) continue;
      const text =
        typeof value === "function"
          ? String((value as (...args: unknown[]) => unknown)(...(TEXT_ARGUMENTS[name] ?? [CONNECTION])))
          : String(value);
      texts.push({ where: `${file} ${name}`, text });
    }
  }
  return texts;
}

describe("the state reader", () => {
  test.each([
    ["update t set state = 'done' where state <> 'running'", ["done", "running"]],
    ["select 1 from t where t.state in ('ready', 'running') and status = 'ok'", ["ready", "running"]],
    ["update t set state = case when n = 0 then 'ready' else 'waiting' end", ["ready", "waiting"]],
    ["update t set state = case when n = 0 then 'finished' else t.state end", ["finished"]],
    ["select 1 from t where s.state not in ('done', 'failed')", ["done", "failed"]],
    ["update runs set status = 'running'", []],
  ])("%j: %j", (text, states) => {
    expect(stateLiterals(text).sort()).toEqual([...states].sort());
  });
});

describe("the states the SQL writes and compares", () => {
  test("the stored states are schedule.ts's STEP_STATES and retrying, each as its own SQL literal", () => {
    expect([...STORED_STATES].sort()).toEqual([...STEP_STATES, RETRYING].sort());
    for (const state of STORED_STATES) expect(STATE_SQL[state]).toBe(`'${state}'`);
    expect(statesSql(["done", "failed"])).toBe("'done', 'failed'");
  });

  test("every state a statement sets or compares is a stored state; together they name each of them", async () => {
    const known = new Set<string>(STORED_STATES);
    const seen = new Set<string>();
    const unknown: string[] = [];
    for (const { where, text } of await statementTexts()) {
      for (const state of stateLiterals(text)) {
        seen.add(state);
        if (!known.has(state)) unknown.push(`${where}: '${state}'`);
      }
    }
    expect(unknown).toEqual([]);
    // The reader found the states (an empty reading would pass the check above vacuously).
    expect([...seen].sort()).toEqual([...STORED_STATES].sort());
  });

  test.each([...readdirSync(SQL_FOLDER).map((file) => join(SQL_FOLDER, file)), "src/postgres/migrate.ts"])(
    "%s spells no state of its own",
    (path) => {
      const source = readFileSync(path, "utf8");
      const names = STORED_STATES.map((state) => state.replaceAll("-", "\\-")).join("|");
      // A state's name quoted for SQL, anywhere in the source.
      expect(source.match(new RegExp(`'(?:${names})'`, "g")) ?? []).toEqual([]);
      // A state set or compared with a literal written in the source (a misspelt one included): it must come from `${…}`.
      expect(source.match(/\bstate\s*(?:=|<>|!=)\s*'|\bstate\s+(?:not\s+)?in\s*\(\s*'|\b(?:then|else)\s+'[a-z-]*'/g) ?? []).toEqual([]);
    },
  );
});
