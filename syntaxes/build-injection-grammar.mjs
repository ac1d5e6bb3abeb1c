// Builds plan-refs.injection.tmLanguage.json from the regular expressions below.
// TextMate grammars have no variables, and the same sub-expressions (a name, a quoted key, a literal)
// appear in several rules, so the JSON file is generated: edit this file, then run
//   node syntaxes/build-injection-grammar.mjs
// test/syntaxes/injection-grammar.test.ts fails when the committed JSON and this generator disagree.
//
// The grammar reads the raw JSON source of a string (between its quotes), not the decoded value the
// Parsimmon grammar in src/grammar/language.ts parses: a `"` inside a quoted key or a literal is
// written `\"`, a `\` is written `\\`. Everything below is an Oniguruma pattern over that raw text.
//
// The tokens that read the same in both (digits, a JSON escape, a number, `??`, the literal words,
// the characters that end a path name) come from src/grammar/tokens.ts, their one home. In the
// repository that file is read from source and transpiled with the TypeScript compiler (a dev
// dependency), so the generator never depends on a build of dist/ being present or current; in the
// published package, which has no src/, the built dist/grammar/tokens.js is imported instead.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The exports of src/grammar/tokens.ts (a module without imports), evaluated from its source. */
async function loadTokens() {
  const sourceUrl = new URL("../src/grammar/tokens.ts", import.meta.url);
  if (!existsSync(sourceUrl)) return import(new URL("../dist/grammar/tokens.js", import.meta.url).href);
  const { default: ts } = await import("typescript");
  const source = readFileSync(sourceUrl, "utf8");
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  });
  const module = { exports: {} };
  new Function("module", "exports", outputText)(module, module.exports);
  return module.exports;
}

const tokens = await loadTokens();

const HEX4 = tokens.HEX4_SOURCE;
const DIGITS = tokens.DIGITS_SOURCE;

// What JavaScript's \s matches (the Parsimmon grammar's "whitespace"), as Oniguruma class members.
const WHITESPACE = String.raw`\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`;
// The same characters, and the ones a path name may not contain, as the hex of a \uXXXX escape.
const NAME_FORBIDDEN_HEX = "(?i:000[9abcd]|0020|00a0|1680|200[0-9a]|202[89f]|205f|3000|feff|002e|005[bd]|007[bd]|0024|003f)";

// One JSON escape of the enclosing JSON string: \" \\ \/ \b \f \n \r \t \uXXXX.
const JSON_ESCAPE = tokens.JSON_ESCAPE_SOURCE;

// A path name after ".": characters other than . [ ] { } $ ? and whitespace. JSON escapes that decode
// to an allowed character count as one character (\" \\ \/ \b, and \uXXXX unless it spells a forbidden one).
const NAME = String.raw`(?:[^${tokens.PATH_NAME_STOPS_CLASS}"\\\x00-\x1F${WHITESPACE}]|\\["\\/b]|\\u(?!${NAME_FORBIDDEN_HEX})${HEX4})+`;

// A JSON string written inside the JSON string (quoted keys, string literals), without its quotes.
// Each decoded character is a plain character, \/ or a \uXXXX that is not a quote, backslash or
// control character; an escape of the inner string is a raw \\ followed by \" \\ \/ / b f n r t or uXXXX.
const INNER_ESCAPE = String.raw`\\\\(?:\\["\\/]|[/bfnrt]|u${HEX4})`;
const INNER_CHAR = String.raw`(?:[^"\\\x00-\x1F]|\\/|\\u(?!(?i:00[01][0-9a-f]|0022|005c))${HEX4}|${INNER_ESCAPE})`;
const INNER_STRING = String.raw`\\"${INNER_CHAR}*\\"`;

const SEGMENT = String.raw`(?:\.${NAME}|\[${DIGITS}\]|\[${INNER_STRING}\])`;
const REFERENCE = String.raw`\$${DIGITS}${SEGMENT}*`;
const NUMBER = tokens.JSON_NUMBER_SOURCE;
const LITERAL_WORDS = tokens.LITERAL_WORDS.map(([word]) => word);
const LITERAL = String.raw`(?:${INNER_STRING}|${NUMBER}|${LITERAL_WORDS.join("|")})`;
const DEFAULT_OP = tokens.DEFAULT_OP_SOURCE;
// What may follow the step of the first reference: segments, then `?? reference`s, then `?? literal`.
const PATH_TAIL = String.raw`${SEGMENT}*(?:${DEFAULT_OP}${REFERENCE})*(?:${DEFAULT_OP}${LITERAL})?`;

// The seed key: the whole rest of the string (any JSON string content, at least one character).
const SEED_KEY = String.raw`(?:[^"\\\x00-\x1F]|${JSON_ESCAPE})+`;
// Inside ${…} a seed key runs up to the first "}".
const SEED_BRACED_KEY = String.raw`(?:[^}"\\\x00-\x1F]|\\(?:["\\/bfnrt]|u(?!(?i:007d))${HEX4}))+`;

// Right after the opening quote: the previous character is a quote that is not escaped (inside a
// JSON string every other quote is written \").
const STRING_START = String.raw`(?<=^"|[^\\]")`;

const SUFFIX = ".plan-refs";
const scope = (name) => name + SUFFIX;

const jsonEscapes = [{ match: JSON_ESCAPE, name: "constant.character.escape.json" }];
const innerStringEscapes = [
  { match: INNER_ESCAPE, name: scope("constant.character.escape.string") },
  { match: JSON_ESCAPE, name: "constant.character.escape.json" },
];

export function buildGrammar() {
  return {
    $schema: "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
    information_for_contributors: [
      "Generated by syntaxes/build-injection-grammar.mjs: edit that file and run it, never this one.",
      'Highlights plan-refs references ($1.city, $1.items[0] ?? "x") and templates ("in ${1.city}") inside JSON strings.',
    ],
    name: "plan-refs references in JSON strings",
    scopeName: "plan-refs.injection",
    // Values only: object keys are `support.type.property-name.json`, never references. Inside our own
    // rules the injection is switched off so it cannot start again mid-reference (a seed key such as
    // the `a${1}` of `$0.a${1}` is text, not an interpolation).
    injectionSelector: `L:source.json string.quoted.double.json -${scope("meta.placeholder.path")} -${scope("meta.placeholder.seed")} -${scope("meta.interpolation.path")} -${scope("meta.interpolation.seed")}`,
    patterns: [
      { include: "#placeholder-path" },
      { include: "#placeholder-seed" },
      { include: "#template-escape" },
      { include: "#interpolation-path" },
      { include: "#interpolation-seed" },
    ],
    repository: {
      "placeholder-path": {
        comment:
          'A whole string that is a path-syntax expression: $1.a[0]["k"] ?? $2.b ?? "x". Checked whole by the look-ahead, then tokenized.',
        name: scope("meta.placeholder.path"),
        begin: String.raw`${STRING_START}(\$)(${DIGITS})(?=${PATH_TAIL}")`,
        beginCaptures: {
          1: { name: scope("punctuation.definition.variable") },
          2: { name: scope("constant.numeric.integer.step") },
        },
        end: `(?=")`,
        patterns: [{ include: "#path-tokens" }],
      },
      "placeholder-seed": {
        comment: "A whole string that is a seed placeholder but not a path expression: the key is the whole rest ($1.a b).",
        name: scope("meta.placeholder.seed"),
        match: String.raw`${STRING_START}(\$)(${DIGITS})(?:(\.)(${SEED_KEY}))?(?=")`,
        captures: {
          1: { name: scope("punctuation.definition.variable") },
          2: { name: scope("constant.numeric.integer.step") },
          3: { name: scope("punctuation.accessor") },
          4: { name: scope("variable.other.property"), patterns: jsonEscapes },
        },
      },
      "template-escape": {
        comment: "A leading $$ (one literal $) and $${ (the literal text ${) anywhere. The leading form is tried first, as in the parser.",
        patterns: [
          { match: String.raw`${STRING_START}\$\$`, name: scope("constant.character.escape.template") },
          { match: String.raw`\$\$\{`, name: scope("constant.character.escape.template") },
        ],
      },
      "interpolation-path": {
        comment: '${1.a[0] ?? $2.b ?? "x"}: the first reference has no $. Only a complete, valid interpolation is highlighted.',
        name: scope("meta.interpolation.path"),
        begin: String.raw`((\$)\{)(${DIGITS})(?=${PATH_TAIL}\})`,
        beginCaptures: {
          1: { name: scope("punctuation.section.embedded.begin") },
          2: { name: scope("punctuation.definition.variable") },
          3: { name: scope("constant.numeric.integer.step") },
        },
        end: String.raw`\}`,
        endCaptures: { 0: { name: scope("punctuation.section.embedded.end") } },
        patterns: [{ include: "#path-tokens" }],
      },
      "interpolation-seed": {
        comment: "${1.a b}: a seed reference whose key runs up to the first }, when it is not a path expression.",
        name: scope("meta.interpolation.seed"),
        match: String.raw`((\$)\{)(${DIGITS})(?:(\.)(${SEED_BRACED_KEY}))?(\})`,
        captures: {
          1: { name: scope("punctuation.section.embedded.begin") },
          2: { name: scope("punctuation.definition.variable") },
          3: { name: scope("constant.numeric.integer.step") },
          4: { name: scope("punctuation.accessor") },
          5: { name: scope("variable.other.property"), patterns: jsonEscapes },
          6: { name: scope("punctuation.section.embedded.end") },
        },
      },
      "path-tokens": {
        comment: "The pieces of an expression that a look-ahead has already validated, so each can be matched on its own.",
        patterns: [
          {
            match: String.raw`(\$)(${DIGITS})`,
            captures: {
              1: { name: scope("punctuation.definition.variable") },
              2: { name: scope("constant.numeric.integer.step") },
            },
          },
          {
            match: String.raw`(\.)(${NAME})`,
            captures: {
              1: { name: scope("punctuation.accessor") },
              2: { name: scope("variable.other.property"), patterns: jsonEscapes },
            },
          },
          {
            match: String.raw`(\[)(${DIGITS})(\])`,
            captures: {
              1: { name: scope("punctuation.section.brackets.begin") },
              2: { name: scope("constant.numeric.integer.index") },
              3: { name: scope("punctuation.section.brackets.end") },
            },
          },
          {
            match: String.raw`(\[)(\\")(${INNER_CHAR}*)(\\")(\])`,
            captures: {
              1: { name: scope("punctuation.section.brackets.begin") },
              2: { name: scope("punctuation.definition.string.begin") },
              3: { name: scope("variable.other.property.quoted"), patterns: innerStringEscapes },
              4: { name: scope("punctuation.definition.string.end") },
              5: { name: scope("punctuation.section.brackets.end") },
            },
          },
          { match: String.raw`\?\?`, name: scope("keyword.operator.default") },
          {
            match: String.raw`(\\")(${INNER_CHAR}*)(\\")`,
            name: scope("string.quoted.double.literal"),
            captures: {
              1: { name: scope("punctuation.definition.string.begin") },
              2: { patterns: innerStringEscapes },
              3: { name: scope("punctuation.definition.string.end") },
            },
          },
          { match: NUMBER, name: scope("constant.numeric.literal") },
          { match: "true|false", name: scope("constant.language.boolean") },
          { match: "null", name: scope("constant.language.null") },
        ],
      },
    },
  };
}

/** The file text: stable key order, two-space indentation, final newline. */
export function grammarText() {
  return JSON.stringify(buildGrammar(), null, 2) + "\n";
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = fileURLToPath(new URL("./plan-refs.injection.tmLanguage.json", import.meta.url));
  writeFileSync(target, grammarText());
  console.log(`wrote ${target}`);
}
