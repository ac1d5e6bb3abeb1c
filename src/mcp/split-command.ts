/**
 * Splitting a server command (`--mcp "node server.mjs --port 3"`) into words, as a POSIX shell would
 * for plain words and quotes, without running a shell: nothing is expanded, substituted or redirected.
 */
import { safeText } from "../shared/text.js";
import { McpSetupError } from "./errors.js";

/** Characters a shell would act on; unquoted, they are refused instead of being passed on silently. */
const SHELL_OPERATORS = new Set(["|", "&", ";", "<", ">", "(", ")", "`", "$"]);
const BLANKS = new Set([" ", "\t", "\n", "\r"]);

/**
 * Split a command line into words without a shell. Blanks separate words; `'…'` keeps everything
 * inside as written; `"…"` too, except that `\"` and `\\` stand for `"` and `\`; outside quotes `\`
 * makes the next character literal. Nothing is expanded: no variables, globs, `~`, redirections or
 * pipes. An unquoted shell operator (`| & ; < > ( ) $` and a backquote), an open quote, a trailing
 * `\` and an empty command are errors (`McpSetupError` code `invalid-command`, naming the offset).
 *
 * @example
 * splitCommand(`node "my server.mjs" --name 'a b'`) // ["node", "my server.mjs", "--name", "a b"]
 */
export function splitCommand(command: string): string[] {
  if (typeof command !== "string")
    throw new McpSetupError("invalid-command", `a server command must be a string, not ${command === null ? "null" : typeof command}`);
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  const fail = (offset: number, why: string): never => {
    throw new McpSetupError("invalid-command", `server command "${safeText(command, 80)}": ${why} at offset ${offset}`);
  };
  while (i < command.length) {
    const c = command[i]!;
    if (BLANKS.has(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i++;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) fail(i, "a single quote that is never closed");
      word += command.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      for (;;) {
        if (j >= command.length) fail(i, "a double quote that is never closed");
        const d = command[j]!;
        if (d === '"') break;
        if (d === "\\" && (command[j + 1] === '"' || command[j + 1] === "\\")) {
          word += command[j + 1];
          j += 2;
        } else {
          word += d;
          j++;
        }
      }
      inWord = true;
      i = j + 1;
    } else if (c === "\\") {
      if (i + 1 >= command.length) fail(i, "a backslash with nothing after it");
      // A code point, not half of a surrogate pair.
      const next = String.fromCodePoint(command.codePointAt(i + 1)!);
      word += next;
      inWord = true;
      i += 1 + next.length;
    } else if (SHELL_OPERATORS.has(c)) {
      fail(i, `"${safeText(c)}" is a shell operator, and no shell runs the command (quote it to pass it as written)`);
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  if (words.length === 0) throw new McpSetupError("invalid-command", "a server command is empty");
  return words;
}
