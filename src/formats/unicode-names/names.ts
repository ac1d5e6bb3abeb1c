/**
 * Unicode character names as Python 3.11 reads them in a `\N{NAME}` escape, for the LLMCompiler
 * converter (the rules are CPython's `_getcode`, Modules/unicodedata.c; scripts/unicode-names.py
 * generates ./data.ts from CPython and says more):
 *
 * - a name starting "HANGUL SYLLABLE " (in capitals) is a Hangul syllable or nothing: the longest
 *   initial, medial and final jamo short names, in turn, that use up the name;
 * - a name starting "CJK UNIFIED IDEOGRAPH-" is 4 or 5 capital hexadecimal digits of a CJK unified
 *   ideograph or nothing;
 * - any other name is a character's name or an alias (NameAliases.txt), its ASCII letters in any
 *   case. Named sequences (KEYCAP NUMBER SIGN) are not characters: Python refuses them in a literal.
 *
 * The table of names is about 350 kB once inflated and a map of 35,000 entries: it is made the first
 * time a name outside the two algorithmic forms is looked up, never when the module is imported.
 */
import {
  CJK_UNIFIED_IDEOGRAPHS,
  INFLATED_LENGTH,
  JAMO_FINAL,
  JAMO_INITIAL,
  JAMO_MEDIAL,
  packedNames,
  TABLE_ALIASES,
  TABLE_NAMES,
} from "./data.js";
import { inflateSync } from "fflate";

export { LONGEST_NAME } from "./data.js";

const HANGUL_PREFIX = "HANGUL SYLLABLE ";
const CJK_PREFIX = "CJK UNIFIED IDEOGRAPH-";
const HANGUL_FIRST = 0xac00;
const CJK_DIGITS = /^[0-9A-F]{4,5}$/;

let table: ReadonlyMap<string, number> | undefined;

/** Whether the table of names has been made (by a lookup); false until a `\N{…}` escape needs it. */
export function isNameTableLoaded(): boolean {
  return table !== undefined;
}

/**
 * The code point Python 3.11 gives `\N{name}`, or undefined when it refuses the name.
 *
 * @example
 * characterByName("bullet") // 0x2022
 * characterByName("HANGUL SYLLABLE GA") // 0xac00
 * characterByName("hangul syllable ga") // undefined
 */
export function characterByName(name: string): number | undefined {
  if (name.startsWith(HANGUL_PREFIX)) return hangulSyllable(name);
  if (name.startsWith(CJK_PREFIX)) return unifiedIdeograph(name.slice(CJK_PREFIX.length));
  return nameTable().get(asciiUpperCase(name));
}

/**
 * A name close to `name` that Python reads (without spaces around it, or in capitals for the
 * algorithmic names, which are read in capitals only), for a did-you-mean; else undefined.
 */
export function nameNear(name: string): string | undefined {
  const trimmed = name.trim();
  const candidates = [trimmed, asciiUpperCase(name), asciiUpperCase(trimmed)];
  return candidates.find((candidate) => candidate !== name && candidate !== "" && characterByName(candidate) !== undefined);
}

/** Every name and alias of the table, in capitals, with its code point (the algorithmic names are not in it). */
export function nameTable(): ReadonlyMap<string, number> {
  table ??= readTable();
  return table;
}

/** Only ASCII letters change case, as in CPython (`"ı".toUpperCase()` is "I", which Python never reads so). */
function asciiUpperCase(text: string): string {
  return text.replace(/[a-z]+/g, (letters) => letters.toUpperCase());
}

function hangulSyllable(name: string): number | undefined {
  let at = HANGUL_PREFIX.length;
  const parts: number[] = [];
  for (const jamo of [JAMO_INITIAL, JAMO_MEDIAL, JAMO_FINAL]) {
    // The longest short name that matches (the first of equal ones); no other choice is tried, as in CPython.
    let index = -1;
    let length = -1;
    jamo.forEach((short, i) => {
      if (short.length > length && name.startsWith(short, at)) {
        index = i;
        length = short.length;
      }
    });
    if (index < 0) return undefined;
    parts.push(index);
    at += length;
  }
  if (at !== name.length) return undefined;
  const [initial, medial, final] = parts as [number, number, number];
  return HANGUL_FIRST + (initial * JAMO_MEDIAL.length + medial) * JAMO_FINAL.length + final;
}

function unifiedIdeograph(digits: string): number | undefined {
  if (!CJK_DIGITS.test(digits)) return undefined;
  const code = Number.parseInt(digits, 16);
  return CJK_UNIFIED_IDEOGRAPHS.some(([first, last]) => first <= code && code <= last) ? code : undefined;
}

/** Inflate and read the packed table (its form is described in scripts/unicode-names.py). */
function readTable(): Map<string, number> {
  // fflate: raw DEFLATE in plain JavaScript (no Node module, so the converter still runs in a browser).
  const bytes = inflateSync(
    Uint8Array.from(atob(packedNames()), (char) => char.charCodeAt(0)),
    { out: new Uint8Array(INFLATED_LENGTH) },
  );
  let text = "";
  for (let at = 0; at < bytes.length; at += 0x2000) text += String.fromCharCode(...bytes.subarray(at, at + 0x2000));
  const lines = text.split("\n");
  const names = new Map<string, number>();
  let code = -1;
  let previous = "";
  let at = 0;
  for (; at < lines.length && lines[at] !== "="; at++) {
    const line = lines[at]!;
    if (line.startsWith("+")) {
      code += Number.parseInt(line.slice(1), 16);
      continue;
    }
    code++;
    previous = previous.slice(0, line.charCodeAt(0) - 0x40) + line.slice(1);
    names.set(previous.endsWith("#") ? previous.slice(0, -1) + code.toString(16).toUpperCase().padStart(4, "0") : previous, code);
  }
  for (const line of lines.slice(at + 1)) {
    const space = line.indexOf(" ");
    names.set(line.slice(space + 1), Number.parseInt(line.slice(0, space), 16));
  }
  if (names.size !== TABLE_NAMES + TABLE_ALIASES)
    throw new Error(`the packed table of Unicode names holds ${names.size} names, not ${TABLE_NAMES + TABLE_ALIASES}`);
  return names;
}
