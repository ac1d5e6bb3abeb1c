/**
 * The commands a message tells the reader to run next: written so that pasting them runs what was meant,
 * with the flags that change the answer (a `lint` without the `--catalog` the plan was drawn with finds
 * nothing), each word quoted for a POSIX shell when it needs to be.
 */
import { cutText, printable } from "../shared/text.js";

/** A word a POSIX shell reads as itself, unquoted. */
const PLAIN_WORD = /^[A-Za-z0-9_\-.,/:@%+=]+$/;
/** Longer words are cut (a hint is one line, not a copy of a huge argument). */
const MAX_WORD = 200;

/** A word the shell reads from an environment variable, written `"$NAME"` (a secret the hint does not print). */
export interface VariableWord {
  readonly variable: "DATABASE_URL";
}

/**
 * `plan-refs …words` as one line to paste into a shell: each word quoted when it needs to be, and
 * printable (control characters escaped); a `VariableWord` as `"$NAME"`.
 *
 * @example
 * commandHint(["lint", "my plan.json", "--catalog", "tools.json"]) // "plan-refs lint 'my plan.json' --catalog tools.json"
 * commandHint(["status", "r1", "--database", { variable: "DATABASE_URL" }]) // 'plan-refs status r1 --database "$DATABASE_URL"'
 */
export function commandHint(words: readonly (string | VariableWord)[]): string {
  return ["plan-refs", ...words.map(shellWord)].join(" ");
}

/**
 * The flags of `given` (a command's parsed string flags) named in `names`, as words for `commandHint`:
 * those given, in the order of `names`; a flag given several times is repeated.
 *
 * @example
 * flagWords({ catalog: "tools.json" }, ["catalog", "tools"]) // ["--catalog", "tools.json"]
 */
export function flagWords(given: Readonly<Record<string, unknown>>, names: readonly string[]): string[] {
  const words: string[] = [];
  for (const name of names) {
    const value = Object.hasOwn(given, name) ? given[name] : undefined;
    for (const one of Array.isArray(value) ? value : [value]) if (typeof one === "string") words.push(`--${name}`, one);
  }
  return words;
}

function shellWord(word: string | VariableWord): string {
  if (typeof word !== "string") return `"$${word.variable}"`;
  const cut = cutText(word, MAX_WORD);
  if (PLAIN_WORD.test(cut)) return cut;
  return printable(`'${cut.replaceAll("'", "'\\''")}'`);
}
