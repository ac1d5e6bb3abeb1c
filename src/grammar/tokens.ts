/**
 * The reference language's tokens, defined once: the character codes the hand-written scanners compare
 * with, and the regular-expression sources of the multi-character tokens. The Parsimmon grammar
 * (language.ts), the fast scanner (scanner.ts), the printer (format.ts), the editor's lexer and
 * completion, and the TextMate grammar's generator (syntaxes/build-injection-grammar.mjs) all read
 * them from here.
 *
 * This module imports nothing and holds only constants and pure functions: the TextMate generator
 * loads it by transpiling this file, so that it never depends on a build of `dist/`.
 */

/** `"` */
export const QUOTE = 34;
/** `$` */
export const DOLLAR = 36;
/** `.` */
export const DOT = 46;
/** `0` */
export const ZERO = 48;
/** `9` */
export const NINE = 57;
/** `?` */
export const QUESTION = 63;
/** `[` */
export const OPEN_BRACKET = 91;
/** `\` */
export const BACKSLASH = 92;
/** `]` */
export const CLOSE_BRACKET = 93;
/** `u` (a JSON `\uXXXX` escape) */
export const LOWER_U = 117;
/** `}` */
export const CLOSE_BRACE = 125;
/** ` ` (the only character allowed around `??`) */
export const SPACE = 32;

/** Whether a UTF-16 code unit is an ASCII digit 0-9 (a step number's and an index's characters). */
export function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

/** One or more ASCII digits: a step number, an index. */
export const DIGITS_SOURCE = "[0-9]+";

/** Four hex digits, as in a JSON `\uXXXX` escape. */
export const HEX4_SOURCE = String.raw`[0-9a-fA-F]{4}`;

/** One escape of a JSON string: `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t` `\uXXXX`. */
export const JSON_ESCAPE_SOURCE = String.raw`\\(?:["\\/bfnrt]|u${HEX4_SOURCE})`;

/** A JSON string, quotes included (a quoted key, a string literal). */
export const JSON_STRING_SOURCE = String.raw`"(?:[^"\\\u0000-\u001f]|${JSON_ESCAPE_SOURCE})*"`;

/** A JSON number (a number literal). */
export const JSON_NUMBER_SOURCE = String.raw`-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`;

/** The JSON literal words and their values, in the grammar's order (after a string and a number). */
export const LITERAL_WORDS: readonly (readonly [word: string, value: boolean | null])[] = [
  ["true", true],
  ["false", false],
  ["null", null],
];

/** The default operator `??` with optional spaces around it (and nowhere else). */
export const DEFAULT_OP_SOURCE = String.raw` *\?\? *`;

/** The characters other than whitespace that end a path name (`.name`): `. [ ] { } $ ?`. */
export const PATH_NAME_STOPS = ".[]{}$?";

/** `PATH_NAME_STOPS` as members of a character class (`.\[\]{}$?`). */
export const PATH_NAME_STOPS_CLASS = PATH_NAME_STOPS.replace(/[\\\][^-]/g, "\\$&");

/** One character of a path name: anything but `PATH_NAME_STOPS` and whitespace (JavaScript's `\s`). */
export const PATH_NAME_CHAR_SOURCE = String.raw`[^${PATH_NAME_STOPS_CLASS}\s]`;

const PATH_NAME = new RegExp(`^${PATH_NAME_CHAR_SOURCE}+$`);

/**
 * Whether `name` can be written `.name` in path syntax (else it needs the quoted form `["name"]`).
 *
 * @example
 * isPathName("city") // true
 * isPathName("a.b")  // false
 */
export function isPathName(name: string): boolean {
  return PATH_NAME.test(name);
}
