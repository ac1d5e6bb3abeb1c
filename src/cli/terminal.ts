/**
 * What the command line prints is escaped: a tool's error message, a file name or plan text echoed in
 * a message can hold newlines and terminal escape sequences, which could otherwise forge lines such as
 * `plan-refs: ok: 9 results` or drive the terminal. The escapes are the linter's (`safeText`, JSON's
 * `\n`, `\u001b`), applied to every character a terminal would act on, and to nothing else, so the
 * quotes and text of a message read as written.
 */
import { safeText } from "../shared/text.js";

/**
 * C0 controls, DEL, C1 controls (U+009B is a one-byte CSI on some terminals), the Unicode line and
 * paragraph separators, bidirectional overrides and lone surrogates.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * One line of message text, safe to print: every character a terminal acts on is written as an escape.
 *
 * @example
 * printable("boom\nplan-refs: ok") // "boom\\nplan-refs: ok"
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (character) => {
    const escaped = safeText(character, 1);
    // JSON leaves DEL, C1 controls and the separators as they are: write those as \uXXXX.
    return escaped === character ? `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}` : escaped;
  });
}
