/**
 * Baseline: the same lookups evaluated by `@actions/expressions`, GitHub's expression engine. Each
 * placeholder becomes an expression over a `steps` context (`$1.items[0]` is `steps['1']['items'][0]`),
 * lexed, parsed and evaluated. The results are converted to the engine's data types once per results
 * object (cached), so the timings are those of the expressions, not of the conversion.
 */
import { Evaluator, Lexer, Parser, data } from "@actions/expressions";

type Dict = Readonly<Record<string, unknown>>;

const SEED = /^\$(\d+)(?:\.([\s\S]+))?$/;
const SEGMENTS = String.raw`(?:\.[^.[\]{}$?\s]+|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*`;
const WHOLE = new RegExp(String.raw`^\$(\d+)(${SEGMENTS})$`);
const INTERPOLATION = new RegExp(String.raw`\$\{(\d+)(${SEGMENTS})\}`, "g");
const SEGMENT = /\.([^.[\]{}$?\s]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;

const contexts = new WeakMap<object, data.Dictionary>();

function contextOf(results: Dict): data.Dictionary {
  let context = contexts.get(results);
  if (context === undefined) {
    const steps = JSON.parse(JSON.stringify(results), data.reviver) as data.ExpressionData;
    context = new data.Dictionary({ key: "steps", value: steps });
    contexts.set(results, context);
  }
  return context;
}

function quote(key: string): string {
  return `'${key.replaceAll("'", "''")}'`;
}

function evaluate(expression: string, context: data.Dictionary): unknown {
  const lexed = new Lexer(expression).lex();
  const parsed = new Parser(lexed.tokens, ["steps"], []).parse();
  return toJs(new Evaluator(parsed, context).evaluate());
}

function toJs(value: data.ExpressionData): unknown {
  return JSON.parse(JSON.stringify(value, data.replacer)) as unknown;
}

/** Seed syntax, top-level values only. */
export function actionsResolve(args: Dict, results: Dict): Record<string, unknown> {
  const context = contextOf(results);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    const match = typeof value === "string" ? SEED.exec(value) : null;
    out[name] =
      match === null ? value : evaluate(`steps[${quote(match[1]!)}]${match[2] === undefined ? "" : `[${quote(match[2])}]`}`, context);
  }
  return out;
}

function pathExpression(step: string, path: string): string {
  let expression = `steps[${quote(step)}]`;
  for (const [, name, index, quoted] of path.matchAll(SEGMENT)) {
    expression += index !== undefined ? `[${index}]` : `[${quote(name ?? (JSON.parse(quoted!) as string))}]`;
  }
  return expression;
}

/** Path syntax with templates at any depth. */
export function actionsResolveDeep(args: Dict, results: Dict): Record<string, unknown> {
  const context = contextOf(results);
  const walk = (value: unknown): unknown => {
    if (typeof value === "string") {
      const whole = value.charCodeAt(0) === 36 ? WHOLE.exec(value) : null;
      if (whole !== null) return evaluate(pathExpression(whole[1]!, whole[2]!), context);
      if (!value.includes("${")) return value;
      return value.replace(INTERPOLATION, (_, step: string, path: string) => {
        const found = evaluate(pathExpression(step, path), context);
        return typeof found === "string" ? found : JSON.stringify(found);
      });
    }
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value === "object" && value !== null) {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[key] = walk(item);
      return out;
    }
    return value;
  };
  return walk(args) as Record<string, unknown>;
}
