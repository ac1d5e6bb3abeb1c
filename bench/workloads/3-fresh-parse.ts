/**
 * Workload 3: parsing placeholder strings never seen before (every one a parse-cache miss), against
 * the regular expression that recognizes the same strings, and the Parsimmon grammar on its own.
 */
import { parseRef } from "../../src/index.js";
import { pathLanguage, runRule, seedLanguage } from "../../src/grammar/language.js";
import { measure, ratioTarget, type Workload } from "../harness.js";

/** More strings than any task can parse in its time budget would come back round only long after eviction. */
const POOL = 300_000;

const SEED = /^\$(\d+)(?:\.([\s\S]+))?$/;
const PATH = /^\$(\d+)((?:\.[^.[\]{}$?\s]+|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*)$/;

/**
 * An endless supply of distinct strings, walking a shared pool from its own starting point. The pool is
 * shared by the tasks of one syntax (one copy in memory), and only one task of each syntax caches.
 */
function supply(pool: readonly string[], start: number): () => string {
  let next = start % pool.length;
  return () => {
    const text = pool[next]!;
    next = next + 1 === pool.length ? 0 : next + 1;
    return text;
  };
}

const pathOptions = { syntax: "path" } as const;
const seedText = (i: number) => `$${i % 97}.field_${i}`;
const pathText = (i: number) => `$${i % 97}.items[${i % 13}].field_${i}`;

const names = {
  seed: "plan-refs parseRef, seed",
  seedRegex: "regex, seed",
  seedGrammar: "Parsimmon grammar alone, seed",
  path: "plan-refs parseRef, path",
  pathRegex: "regex, path",
  pathGrammar: "Parsimmon grammar alone, path",
} as const;

const workload: Workload = {
  id: "3",
  title: "parsing fresh (never seen) placeholder strings",
  async run() {
    // Through JSON, as arguments arrive: flat strings (a template literal would build ropes that the
    // first contender to read them pays to flatten).
    const seedPool = JSON.parse(JSON.stringify(Array.from({ length: POOL }, (_, i) => seedText(i)))) as string[];
    const pathPool = JSON.parse(JSON.stringify(Array.from({ length: POOL }, (_, i) => pathText(i)))) as string[];
    const [seed, seedForRegex, seedForGrammar] = [0, 1, 2].map((k) => supply(seedPool, (k * POOL) / 3));
    const [path, pathForRegex, pathForGrammar] = [0, 1, 2].map((k) => supply(pathPool, (k * POOL) / 3));
    for (const text of [seedText(1), pathText(1)]) {
      if (SEED.exec(text) === null || PATH.exec(text) === null) throw new Error(`workload 3: the regular expressions reject ${text}`);
    }
    const rows = await measure(
      {
        [names.seed]: () => parseRef(seed!()),
        [names.seedRegex]: () => SEED.exec(seedForRegex!()),
        [names.seedGrammar]: () => runRule(seedLanguage.placeholder, seedForGrammar!()),
        [names.path]: () => parseRef(path!(), pathOptions),
        [names.pathRegex]: () => PATH.exec(pathForRegex!()),
        [names.pathGrammar]: () => runRule(pathLanguage.placeholder, pathForGrammar!()),
      },
      { batch: 100, time: 150, rounds: 9 },
    );
    return {
      id: this.id,
      title: this.title,
      unit: "ns",
      rows,
      baselines: [names.seedRegex, names.pathRegex],
      targets: [
        ratioTarget(rows, "fresh parseRef time ÷ regex time (seed)", names.seed, names.seedRegex, "max", 5),
        ratioTarget(rows, "fresh parseRef time ÷ regex time (path)", names.path, names.pathRegex, "max", 5),
      ],
      notes: [
        `Each operation takes the next of ${POOL.toLocaleString("en")} distinct strings (\`$12.field_345\`, \`$12.items[7].field_345\`); the parse cache holds at most 10,000, so every parse is a miss.`,
        "parseRef builds the typed AST with spans (and stores it in the bounded cache); the regular expression only matches.",
      ],
    };
  },
};

export default workload;
