#!/usr/bin/env python3
"""Generate the Unicode name table of `\\N{NAME}` escapes in LLMCompiler plans, and its test cases.

    python3 scripts/unicode-names.py

fromLLMCompiler reads the Python string literals a planner writes, so `"\\N{BULLET}"` must give the
character CPython gives, and a name CPython refuses must be refused. This script asks CPython itself
(3.11, the version pinned below, whose unicodedata is Unicode 14.0.0) and writes:

- src/formats/unicode-names/data.ts: every character name, every alias, the ranges of the CJK unified
  ideographs and the Hangul jamo short names; src/formats/unicode-names/names.ts reads it;
- test/cases/formats-llmcompiler-names.json: plans with `\\N{...}` escapes of every kind, accepted and
  refused, each one evaluated here by CPython's own parser (`ast.literal_eval`), for
  test/formats/convert-cases.test.ts.

What CPython 3.11 does with `\\N{...}` in a string literal (Objects/unicodeobject.c, then
Modules/unicodedata.c `_getcode`), which names.ts repeats:

- the name is everything between `{` and the first `}`: no `{`, or no `}` before the string ends, or
  nothing between them, is "malformed \\N character escape"; nothing is trimmed;
- a name starting "HANGUL SYLLABLE " (capitals, case-sensitive) is only ever a Hangul syllable: the
  longest initial, then the longest medial, then the longest final jamo short name, which must use up
  the name;
- a name starting "CJK UNIFIED IDEOGRAPH-" is only ever 4 or 5 hexadecimal digits in capitals naming a
  code point of the CJK unified ideograph ranges (leading zeros allowed: -04E00);
- any other name is looked up in the table of names and aliases, ASCII letters in any case (other
  letters as written, so "dotless \\u0131" never reads as "I"); named sequences (KEYCAP NUMBER SIGN)
  are in CPython's table but refused in a literal, so they are left out here.

Sources. Names: `unicodedata.name` of every code point; the algorithmic ones (Hangul syllables, CJK
unified ideographs) are left out, names.ts computes them. unicodedata has no list of aliases, but
CPython keeps them in its own table at the private-use code points U+F0000 to U+F01FF (named sequences
follow at U+F0200), and the "namereplace" error handler asks that table for the name of any code point
with aliases included: so each of those code points' name is an alias, and `unicodedata.lookup` of
that alias gives its character. That is CPython's table exactly, with nothing to download; every
alias is then checked by evaluating `"\\N{alias}"`.

The packed form (data.ts): one line per named code point in code point order, each line a character
whose code minus 0x40 says how many leading characters it shares with the line before, then the rest
of the name; "#" at the end stands for the code point in at least four capital hexadecimal digits
(CJK COMPATIBILITY IDEOGRAPH-F900); a line "+<hex>" skips that many code points. Then a line "=", then
one alias a line, "<hex code point> <ALIAS>". The text is compressed with raw DEFLATE and written as
base64; names.ts inflates it (with fflate: src/formats imports no Node module, so that a bundler can take
it to a browser) the first time a table name is looked up.
"""

import ast
import base64
import json
import random
import sys
import unicodedata
import zlib
from pathlib import Path

PYTHON = (3, 11)
UNICODE = "14.0.0"

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src/formats/unicode-names/data.ts"
CASES = ROOT / "test/cases/formats-llmcompiler-names.json"

HANGUL_PREFIX = "HANGUL SYLLABLE "
CJK_PREFIX = "CJK UNIFIED IDEOGRAPH-"
HANGUL_FIRST, HANGUL_COUNT = 0xAC00, 11172
JAMO_COUNTS = (19, 21, 28)
ALIASES = range(0xF0000, 0xF0200)
MAX_SHARED = 60


def fail(message):
    sys.stderr.write(f"unicode-names.py: {message}\n")
    sys.exit(1)


def literal(body, quote='"'):
    """What CPython makes of a string literal: ("ok", value) or ("error", its message)."""
    try:
        return "ok", ast.literal_eval(quote + body + quote)
    except SyntaxError as error:
        return "error", str(error.msg)


def cpython_accepts(name):
    kind, value = literal("\\N{" + name + "}")
    return value if kind == "ok" else None


def table_names():
    """Every name unicodedata gives a code point, the algorithmic ones left out, in code point order."""
    names = []
    for code in range(0x110000):
        name = unicodedata.name(chr(code), None)
        if name is None or name.startswith(HANGUL_PREFIX) or name.startswith(CJK_PREFIX):
            continue
        names.append((code, name))
    return names


def aliases():
    """CPython's aliases, read from its own table (see the module's comment), in table order."""
    found = []
    for private in ALIASES:
        written = chr(private).encode("ascii", "namereplace").decode("ascii")
        if not written.startswith("\\N{"):
            continue
        name = written[3:-1]
        character = unicodedata.lookup(name)
        if len(character) != 1:
            fail(f"the alias {name!r} at U+{private:X} is a sequence")
        found.append((ord(character), name))
    return found


def cjk_ranges():
    """The code points whose name is the algorithmic CJK UNIFIED IDEOGRAPH-XXXX, as ranges."""
    ranges = []
    for code in range(0x110000):
        name = unicodedata.name(chr(code), None)
        if name is None or not name.startswith(CJK_PREFIX):
            continue
        if name != f"{CJK_PREFIX}{code:X}":
            fail(f"U+{code:X} is named {name!r}")
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return ranges


def jamo_names():
    """The short names of the initial, medial and final jamo, read off the syllables' names."""
    initial_count, medial_count, final_count = JAMO_COUNTS
    syllable = lambda code: unicodedata.name(chr(code))[len(HANGUL_PREFIX):]
    step = medial_count * final_count
    medials = [syllable(HANGUL_FIRST + m * final_count)[1:] for m in range(medial_count)]  # initial G
    initials = [syllable(HANGUL_FIRST + i * step)[: -len(medials[0])] for i in range(initial_count)]  # medial A
    finals = [syllable(HANGUL_FIRST + f)[len("GA"):] for f in range(final_count)]
    for index in range(HANGUL_COUNT):
        i, rest = divmod(index, step)
        m, f = divmod(rest, final_count)
        if syllable(HANGUL_FIRST + index) != initials[i] + medials[m] + finals[f]:
            fail(f"the jamo names do not make the name of U+{HANGUL_FIRST + index:X}")
    return initials, medials, finals


def pack(names, alias_list):
    lines = []
    previous_code, previous = -1, ""
    for code, name in names:
        if code != previous_code + 1:
            lines.append(f"+{code - previous_code - 1:x}")
        hexadecimal = f"{code:04X}"
        coded = name[: -len(hexadecimal)] + "#" if name.endswith("-" + hexadecimal) else name
        shared = 0
        while shared < min(len(previous), len(coded), MAX_SHARED) and previous[shared] == coded[shared]:
            shared += 1
        lines.append(chr(0x40 + shared) + coded[shared:])
        previous_code, previous = code, coded
    lines.append("=")
    lines.extend(f"{code:x} {name}" for code, name in alias_list)
    return "\n".join(lines)


def unpack(text):
    """The reading names.ts does, to check the packed text before it is written."""
    table = {}
    code, previous = -1, ""
    lines = text.split("\n")
    at = 0
    while lines[at] != "=":
        line = lines[at]
        at += 1
        if line.startswith("+"):
            code += int(line[1:], 16)
            continue
        code += 1
        previous = previous[: ord(line[0]) - 0x40] + line[1:]
        table[previous[:-1] + f"{code:04X}" if previous.endswith("#") else previous] = code
    for line in lines[at + 1 :]:
        hexadecimal, name = line.split(" ", 1)
        table[name] = int(hexadecimal, 16)
    return table


def deflate(data):
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    return compressor.compress(data) + compressor.flush()


def check_table(names, alias_list, ranges):
    seen = {}
    for code, name in names + alias_list:
        if name in seen:
            fail(f"{name!r} names both U+{seen[name]:X} and U+{code:X}")
        seen[name] = code
        if name.startswith(HANGUL_PREFIX) or name.startswith(CJK_PREFIX):
            fail(f"{name!r} starts like an algorithmic name, which CPython never looks up in its table")
        if set(name) - set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -"):
            fail(f"{name!r} has a character the packed form does not expect")
        if cpython_accepts(name) != chr(code):
            fail(f'"\\N{{{name}}}" is not U+{code:X} in CPython')
    for first, last in ranges:
        for code in (first, last):
            if cpython_accepts(f"{CJK_PREFIX}{code:X}") != chr(code):
                fail(f"CPython refuses the CJK unified ideograph U+{code:X}")
        for code in (first - 1, last + 1):
            if not any(a <= code <= b for a, b in ranges) and cpython_accepts(f"{CJK_PREFIX}{code:X}") is not None:
                fail(f"CPython accepts U+{code:X} outside the CJK ranges")


def data_module(packed, inflated_length, names, alias_list, ranges, jamo, longest):
    initials, medials, finals = jamo
    strings = lambda items: "[" + ", ".join(json.dumps(item) for item in items) + "]"
    version = ".".join(str(part) for part in sys.version_info[:3])
    return f"""// Generated by scripts/unicode-names.py from CPython {version}'s unicodedata (Unicode {UNICODE}): edit the script, not this file.
/**
 * The Unicode character names that Python 3.11 reads in `\\N{{NAME}}`, for names.ts: the constants of
 * the algorithmic names, and the table of the other names and aliases, packed (see the script).
 */

/** The Unicode version of the names. */
export const UNICODE_VERSION = "{UNICODE}";

/** The longest name of any kind, in characters: no longer text between the braces can be a name. */
export const LONGEST_NAME = {longest};

/** The code point ranges (first, last) of the CJK unified ideographs, named CJK UNIFIED IDEOGRAPH-XXXX. */
export const CJK_UNIFIED_IDEOGRAPHS: readonly (readonly [number, number])[] = [{", ".join(f"[0x{a:X}, 0x{b:X}]" for a, b in ranges)}];

/** Hangul jamo short names, in the order of the syllables' code points: HANGUL SYLLABLE is initial, medial and final. */
export const JAMO_INITIAL: readonly string[] = {strings(initials)};
export const JAMO_MEDIAL: readonly string[] = {strings(medials)};
export const JAMO_FINAL: readonly string[] = {strings(finals)};

/** How many names and aliases the packed table holds, and the length of its inflated text. */
export const TABLE_NAMES = {len(names)};
export const TABLE_ALIASES = {len(alias_list)};
export const INFLATED_LENGTH = {inflated_length};

/**
 * The table, raw DEFLATE in base64 ({len(packed):,} characters). Inside a function, not a constant:
 * importing the module compiles only its top level, so the string is not made (nor the table
 * inflated) until names.ts first needs the table, at the first `\\N{{…}}` escape that looks it up.
 */
export function packedNames(): string {{
  return "{packed}";
}}
"""


def case(name, body, longest, quote='"', line_end=")"):
    """One row of the case file: `1. web_search(<literal>)` and what fromLLMCompiler must make of it."""
    text = f"1. web_search({quote}{body}{quote}{line_end}"
    kind, value = literal(body, quote)
    args_start = text.index("(") + 1
    row = {"name": name, "text": [text], "cpython": value if kind == "error" else f"U+{ord(value):04X}" if len(value) == 1 else value}
    if kind == "ok":
        if "$" in value:
            fail(f"{name}: a $ in the value is written $$ in the plan; pick another character")
        row["plan"] = {"steps": [{"id": 1, "tool": "web_search", "args": {"query": value}}]}
        row["diagnostics"] = []
        return row
    if "malformed" in value:
        expected = "malformed \\N character escape"
    elif "unknown Unicode character name" in value:
        expected = "unknown Unicode character name"
    else:
        fail(f"{name}: CPython says {value!r}")
    if line_end == ")":
        # As LLMCompiler does when ast.literal_eval refuses the arguments: their text is the argument, with a warning.
        close = text.rindex(")")
        row["plan"] = {"steps": [{"id": 1, "tool": "web_search", "args": {"query": text[args_start:close]}}]}
        row["diagnostics"] = [{"code": "invalid-plan", "severity": "warning", "line": 1, "column": args_start + 1, "endColumn": close + 1, "messageIncludes": expected}]
    else:
        # No ")" ends the call, so LLMCompiler cannot read the line either: the error points at the escape.
        escape = text.index("\\N")
        row["plan"] = {"steps": []}
        row["diagnostics"] = [{"code": "invalid-plan", "line": 1, "column": escape + 1, "endColumn": escape_end(text, escape, quote, longest) + 1, "messageIncludes": expected}]
    return row


def escape_end(text, escape, quote, longest):
    """Where llmcompiler.ts ends the span of a refused \\N escape: after its "}", else where it stops reading the name."""
    if text[escape + 2 : escape + 3] != "{":
        return escape + 2
    start = at = escape + 3
    while at < len(text) and at - start <= longest and text[at] != "}" and not text.startswith(quote, at):
        at += 2 if text[at] == "\\" and text[at + 1 : at + 2] != "}" else 1
    return at + 1 if at < len(text) and at - start <= longest and text[at] == "}" else min(at, len(text))


def cases(names, alias_list, ranges, longest):
    rows = []
    by_code = dict(names)

    def named(title, name):
        rows.append(case(title, "\\N{" + name + "}", longest))

    def written(title, body, **options):
        rows.append(case(title, body, longest, **options))

    # Table names: in capitals, in small letters, mixed; with digits and hyphens; the first and last; the longest; astral.
    named("a table name: BULLET", "BULLET")
    named("a table name in small letters: bullet", "bullet")
    named("a table name in mixed case", "Latin Small Letter A With Grave")
    named("a table name with a hyphen: HYPHEN-MINUS", "HYPHEN-MINUS")
    named("a table name with digits", "LINEAR B SYLLABLE B008 A")
    named("the first named code point: SPACE", by_code[0x20])
    named("the last named code point", names[-1][1])
    named("the longest name", max((name for _, name in names), key=len))
    named("an astral character: GRINNING FACE", "GRINNING FACE")
    named("a name with a code point in it: CJK COMPATIBILITY IDEOGRAPH-F900", "CJK COMPATIBILITY IDEOGRAPH-F900")
    named("a name with a code point in it, in small letters", "cjk compatibility ideograph-2f800")
    named("a name with a code point in it: NUSHU CHARACTER-1B170", "NUSHU CHARACTER-1B170")
    named("a name with a code point in it: KHITAN SMALL SCRIPT CHARACTER-18B00", "khitan small script character-18b00")
    sample = random.Random(14)
    for code, name in sorted(sample.sample([entry for entry in names if chr(entry[0]) != "$"], 24)):
        named(f"a table name: U+{code:04X}", name.lower() if code % 3 == 0 else name)
    # Aliases, in any case; named sequences are refused in a literal.
    named("an alias: NULL", "NULL")
    named("an alias: LINE FEED", "LINE FEED")
    named("an alias: BYTE ORDER MARK", "BYTE ORDER MARK")
    named("an alias in small letters: byte order mark", "byte order mark")
    named("an abbreviation alias: ZWJ", "ZWJ")
    named("a correction alias: LATIN CAPITAL LETTER GHA", "LATIN CAPITAL LETTER GHA")
    for code, name in sorted(sample.sample(alias_list, 6)):
        named(f"an alias of U+{code:04X}", name)
    named("a named sequence is refused in a literal: KEYCAP NUMBER SIGN", "KEYCAP NUMBER SIGN")
    # Hangul syllables: in capitals only, each jamo the longest that matches.
    named("a Hangul syllable: the first, GA", "HANGUL SYLLABLE GA")
    named("a Hangul syllable: the last, HIH", "HANGUL SYLLABLE HIH")
    named("a Hangul syllable with a final: GAG", "HANGUL SYLLABLE GAG")
    named("a Hangul syllable with no initial: A", "HANGUL SYLLABLE A")
    named("a Hangul syllable with a double initial: GGA", "HANGUL SYLLABLE GGA")
    named("a Hangul syllable with a double final: GAGG", "HANGUL SYLLABLE GAGG")
    named("a Hangul syllable: SSWAELH", "HANGUL SYLLABLE SSWAELH")
    named("a Hangul syllable in small letters is refused", "hangul syllable ga")
    named("a Hangul syllable with small jamo is refused", "HANGUL SYLLABLE ga")
    named("a Hangul syllable with a capital prefix only is refused", "Hangul Syllable GA")
    named("a Hangul syllable with a jamo left over is refused", "HANGUL SYLLABLE GAGGG")
    named("a Hangul syllable with no medial is refused", "HANGUL SYLLABLE KK")
    named("a Hangul syllable with no jamo is refused", "HANGUL SYLLABLE ")
    named("HANGUL SYLLABLE with no space is a table name, and there is none", "HANGUL SYLLABLE")
    named("a Hangul syllable with a space after it is refused", "HANGUL SYLLABLE GA ")
    # CJK unified ideographs: each range's edges, 4 or 5 capital hexadecimal digits.
    for first, last in ranges:
        named(f"a CJK unified ideograph: U+{first:04X}, the first of its range", f"CJK UNIFIED IDEOGRAPH-{first:04X}")
        named(f"a CJK unified ideograph: U+{last:04X}, the last of its range", f"CJK UNIFIED IDEOGRAPH-{last:04X}")
        for outside in (first - 1, last + 1):
            if not any(a <= outside <= b for a, b in ranges):
                named(f"U+{outside:04X}, next to a range of CJK unified ideographs, is refused", f"CJK UNIFIED IDEOGRAPH-{outside:04X}")
    named("a CJK unified ideograph in five digits, with a leading zero", "CJK UNIFIED IDEOGRAPH-04E00")
    named("a CJK unified ideograph in six digits is refused", "CJK UNIFIED IDEOGRAPH-004E00")
    named("a CJK unified ideograph in three digits is refused", "CJK UNIFIED IDEOGRAPH-4E0")
    named("a CJK unified ideograph in small hexadecimal digits is refused", "CJK UNIFIED IDEOGRAPH-9fa5")
    named("a CJK unified ideograph in small letters is refused", "cjk unified ideograph-4e00")
    named("a CJK unified ideograph with a small prefix is refused", "cjk unified ideograph-4E00")
    named("a CJK unified ideograph with no digits is refused", "CJK UNIFIED IDEOGRAPH-")
    named("a CJK compatibility ideograph is not a unified one", "CJK UNIFIED IDEOGRAPH-F900")
    named("a Tangut ideograph has no name in Python 3.11", "TANGUT IDEOGRAPH-17000")
    # Unknown names: nothing is trimmed, only ASCII letters change case.
    named("a space after the name is refused", "BULLET ")
    named("a space before the name is refused", " BULLET")
    named("a brace in the name is refused", "{BULLET")
    named("an unknown name", "NO SUCH CHARACTER")
    named("a one-letter name", "A")
    named("a letter whose capital is not ASCII is not folded: dotless \u0131", "LATIN SMALL LETTER DOTLESS \u0131")
    named("a long s is not folded to S", "\u017fPACE")
    named("a backslash in the name", "BUL\\LET")
    named("a name one longer than the longest", "X" * (longest + 1))
    named("a name far longer than any", "LATIN " * 40)
    # Malformed escapes, and where the name ends.
    written("\\N with no braces is malformed", "\\N")
    written("\\N before another character is malformed", "\\Nx")
    written("\\N{} is malformed", "\\N{}")
    written("\\N{ with no } before the string ends is malformed", "\\N{BULLET")
    written("\\N{ with its } only after the string is malformed", '\\N{BULLET", "}')
    written("\\N with a space before the brace is malformed", "\\N {BULLET}")
    written("\\N\\{ is malformed", "\\N\\{BULLET}")
    written("a } after the escape is text", "\\N{BULLET}}")
    written("two escapes in a row", "\\N{BULLET}\\N{bullet}")
    written("an escape among other escapes and text", "a\\tb\\N{EM DASH}c\\u00e9")
    written("an escaped quote in the name does not end the string", '\\N{a\\"b}')
    written("a backslash before the } ends the name", "\\N{BULLET\\}")
    written("the other quote in the name", '\\N{a"b}', quote="'")
    written("a single-quoted string", "\\N{BLACK STAR}", quote="'")
    written("a triple-quoted string", "\\N{WHITE STAR}", quote='"""')
    written("the quote of a triple-quoted string in the name", '\\N{a""}', quote='"""')
    # The line has no ")": the diagnostic points at the escape.
    written('an unknown name in a call with no ")": the error is the escape\'s', "\\N{BULLET }", line_end="")
    written('\\N{} in a call with no ")"', "\\N{}", line_end="")
    written('\\N with no braces in a call with no ")"', "\\Nx", line_end="")
    written('\\N{ with no } in a call with no ")"', "\\N{BULLET", line_end="")
    written('a name longer than any in a call with no ")"', "\\N{" + "X" * (longest + 20) + "}", line_end="")
    return rows


def main():
    if sys.version_info[:2] != PYTHON or unicodedata.unidata_version != UNICODE:
        fail(f"run this with Python {'.'.join(map(str, PYTHON))} (Unicode {UNICODE}): this is Python {sys.version.split()[0]} with Unicode {unicodedata.unidata_version}")
    names = table_names()
    alias_list = aliases()
    ranges = cjk_ranges()
    jamo = jamo_names()
    check_table(names, alias_list, ranges)
    text = pack(names, alias_list)
    if unpack(text) != {name: code for code, name in names + alias_list}:
        fail("the packed table does not read back")
    hangul_longest = len(HANGUL_PREFIX) + sum(max(len(name) for name in column) for column in jamo)
    longest = max([len(name) for _, name in names + alias_list] + [len(CJK_PREFIX) + 5, hangul_longest])
    raw = text.encode("ascii")
    packed = base64.b64encode(deflate(raw)).decode("ascii")
    DATA.parent.mkdir(parents=True, exist_ok=True)
    DATA.write_text(data_module(packed, len(raw), names, alias_list, ranges, jamo, longest))
    description = (
        "Generated by scripts/unicode-names.py (edit the script, not this file): plans with \\N{...} escapes, each string "
        "evaluated by CPython 3.11's parser (cpython: the code point it gives, or its error). A name CPython refuses is "
        "refused: as LLMCompiler does when ast.literal_eval fails, the arguments' text is the argument, with a warning; "
        "in a call with no \")\" the error is the escape's. Rows as in formats-llmcompiler.json; messageIncludes: a part "
        "of the message."
    )
    rows = cases(names, alias_list, ranges, longest)
    lines = ",\n".join("    " + json.dumps(row) for row in rows)
    CASES.write_text(f'{{\n  "description": {json.dumps(description)},\n  "cases": [\n{lines}\n  ]\n}}\n')
    print(f"{DATA.relative_to(ROOT)}: {len(names)} names, {len(alias_list)} aliases, {len(raw)} bytes packed to {len(packed)} characters")
    print(f"{CASES.relative_to(ROOT)}: {len(rows)} cases")


if __name__ == "__main__":
    main()
