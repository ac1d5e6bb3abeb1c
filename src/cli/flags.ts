/**
 * Reading a command's flags: the one place the command line's arguments are split into flags and
 * positionals, for every command. Node's `parseArgs` has the right model (long flags, `--flag value`
 * and `--flag=value`, repeatable flags, `--` ends the flags) but not the right words: its messages are
 * several lines with literal `\n`s, name no close flag, and it refuses a value that starts with `-`
 * (`--timeout -5` is "ambiguous"). So the same model is read here, and every mistake is a `FlagError`:
 * one line naming the flag, what is wrong and, for an unknown flag, the command's closest flag; the
 * dispatcher prints it with the command's usage line. A flag that needs a value takes the next argument
 * whatever it starts with, so `--timeout -5` is judged by the flag's own check.
 */
import { didYouMean } from "../lint/did-you-mean.js";
import { defineOwn } from "../shared/own-data.js";
import { quoted, safeText } from "../shared/text.js";
import { CliError } from "./input.js";

/** A flag: `boolean` takes no value; `string` takes one (`multiple`: repeatable; `choices`: the values allowed). */
export type FlagSpec =
  { readonly type: "boolean" } | { readonly type: "string"; readonly multiple?: boolean; readonly choices?: readonly string[] };

/** The value a flag's spec gives: a boolean, a string (one of `choices`), or the list of a repeatable flag. */
type FlagValue<S extends FlagSpec> = S extends { type: "boolean" }
  ? boolean
  : S extends { multiple: true }
    ? string[]
    : S extends { choices: readonly (infer C extends string)[] }
      ? C
      : string;

/** The flags given, by name (a flag not given is absent), and the positionals in order. */
export interface ParsedFlags<Specs extends Record<string, FlagSpec>> {
  readonly values: { [Name in keyof Specs]?: FlagValue<Specs[Name]> };
  readonly positionals: string[];
}

/**
 * A mistake in a command's flags: one line (the flag, what is wrong, a did-you-mean), printed by the
 * dispatcher with the command's usage; exit code 2.
 */
export class FlagError extends CliError {
  override name = "FlagError";
  constructor(message: string) {
    super(message, "usage");
  }
}

/** The names every command answers to besides its own (the dispatcher handles them first). */
const COMMON_FLAGS = ["help"];

/**
 * Read `argv` (the arguments after the command's name) against the command's flags. `positionals`:
 * whether arguments that are not flags are allowed (`-` always counts as one: it means stdin).
 *
 * @example
 * parseFlags(["plan.json", "--timeout", "-5"], { timeout: { type: "string" } }).values.timeout // "-5"
 * parseFlags(["--catalgo", "x"], { catalog: { type: "string" } }) // throws FlagError: unknown flag --catalgo; did you mean --catalog?
 */
export function parseFlags<const Specs extends Record<string, FlagSpec>>(
  argv: readonly string[],
  specs: Specs,
  { positionals: allowPositionals = true }: { positionals?: boolean } = {},
): ParsedFlags<Specs> {
  const values = Object.create(null) as Record<string, string | boolean | string[]>;
  const positionals: string[] = [];
  const spec = (name: string): FlagSpec | undefined => (Object.hasOwn(specs, name) ? specs[name] : undefined);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-" || !arg.startsWith("-")) {
      positionals.push(arg);
      continue;
    }
    const equals = arg.indexOf("=");
    const flag = arg.startsWith("--") && equals > 2 ? arg.slice(0, equals) : arg;
    const name = flag.startsWith("--") ? flag.slice(2) : "";
    const found = name === "" ? undefined : spec(name);
    if (found === undefined) throw new FlagError(unknownFlag(flag, Object.keys(specs)));
    const inline = flag === arg ? undefined : arg.slice(equals + 1);
    if (found.type === "boolean") {
      if (inline !== undefined) throw new FlagError(`${flag} takes no value, not ${quoted(inline, 20)}`);
      values[name] = true;
      continue;
    }
    let value: string;
    if (inline !== undefined) value = inline;
    else if (i + 1 < argv.length) value = argv[++i]!;
    else throw new FlagError(`${flag} needs a value`);
    if (found.choices !== undefined && !found.choices.includes(value))
      throw new FlagError(`${flag} must be ${alternatives(found.choices)}, not ${quoted(value, 20)}`);
    if (found.multiple === true) {
      const list = values[name];
      values[name] = Array.isArray(list) ? [...list, value] : [value];
    } else {
      if (name in values) throw new FlagError(`${flag} is given twice; it takes one value`);
      values[name] = value;
    }
  }
  if (!allowPositionals && positionals.length > 0)
    throw new FlagError(`unexpected argument ${quoted(positionals[0]!, 40)}: this command takes flags only`);
  return { values: values as ParsedFlags<Specs>["values"], positionals };
}

/** "unknown flag --catalgo; did you mean --catalog?" among the command's flags (and --help). */
function unknownFlag(flag: string, names: readonly string[]): string {
  const shown = quotedFlag(flag);
  const typed = flag.replace(/^-+/, "");
  const suggestion = typed === "" ? undefined : didYouMean(typed, [...names, ...COMMON_FLAGS]);
  return `unknown flag ${shown}${suggestion === undefined ? "" : `; did you mean --${suggestion}?`}`;
}

/** A flag as typed, shown bare when it is a plain one (`--catalgo`), quoted and escaped otherwise. */
function quotedFlag(flag: string): string {
  return /^--?[A-Za-z0-9][A-Za-z0-9-]{0,40}$/.test(flag) ? flag : quoted(flag, 40);
}

/** `"a"`, `"a" or "b"`, `"a", "b" or "c"`. */
function alternatives(choices: readonly string[]): string {
  const shown = choices.map((choice) => `"${choice}"`);
  return shown.length <= 1 ? (shown[0] ?? '""') : `${shown.slice(0, -1).join(", ")} or ${shown.at(-1)!}`;
}

/**
 * A flag's value as a positive integer (`--concurrency 4`), or undefined when the flag was not given.
 *
 * @example
 * positiveInteger("8", "--concurrency") // 8
 * positiveInteger("-5", "--timeout")    // throws FlagError: --timeout must be a positive integer, not "-5"
 */
export function positiveInteger(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(value) || value < 1)
    throw new FlagError(`${flag} must be a positive integer, not ${quoted(text, 20)}`);
  return value;
}

/**
 * A repeatable `NAME=N` flag (`--tool-concurrency geocode=2`) as an object of numbers by name (own
 * properties, a name like `__proto__` too), each N read by `read` with the label `--flag NAME`;
 * `undefined` when the flag was not given. The name is what comes before the last `=`.
 *
 * @example
 * namedNumbers(["geocode=2"], "--tool-concurrency", positiveInteger) // { geocode: 2 }
 * namedNumbers(["geocode"], "--tool-concurrency", positiveInteger)   // throws FlagError: --tool-concurrency must be NAME=N, not "geocode"
 */
export function namedNumbers(
  texts: readonly string[] | undefined,
  flag: string,
  read: (text: string, label: string) => number | undefined,
): Record<string, number> | undefined {
  if (texts === undefined) return undefined;
  const numbers: Record<string, number> = {};
  for (const text of texts) {
    const equals = text.lastIndexOf("=");
    if (equals <= 0) throw new FlagError(`${flag} must be NAME=N (a tool's name and a number), not ${quoted(text, 40)}`);
    const name = text.slice(0, equals);
    if (Object.hasOwn(numbers, name)) throw new FlagError(`${flag} gives ${quoted(name, 40)} twice; give each tool once`);
    defineOwn(numbers, name, read(text.slice(equals + 1), `${flag} ${safeText(name, 40)}`));
  }
  return numbers;
}

/**
 * A flag's whole number that may be 0 (a wait in milliseconds), or `undefined` when the flag was not given.
 *
 * @example
 * wholeNumber("0", "--retry-delay") // 0
 */
export function wholeNumber(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(value))
    throw new FlagError(`${flag} must be a whole number of milliseconds, not ${quoted(text, 20)}`);
  return value;
}
