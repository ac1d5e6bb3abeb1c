/**
 * The plan linter: the table in test/cases/lint.json (every code, with exact positions,
 * escapes and line endings included), then what JSON rows cannot express: hostile values and caller
 * options. The "did you mean" helper and the schema walker are in did-you-mean.test.ts and
 * schema-walk.test.ts.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { lintPlan, lintPlanText, type Diagnostic, type LintOptions } from "../../src/lint/index.js";
import { lintReadPlan } from "../../src/lint/lint-plan.js";
import { readPlan } from "../../src/plan/plan.js";
import { scanArgs } from "../../src/plan/references.js";

interface ExpectedDiagnostic {
  readonly code: string;
  readonly severity: string;
  readonly pointer: string;
  readonly step?: number;
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly text: string;
  readonly message: string;
  readonly fix?: Diagnostic["fix"];
}

interface LintRow {
  readonly name: string;
  readonly plan?: unknown;
  readonly text?: string;
  readonly options?: LintOptions;
  readonly tools?: LintOptions["tools"];
  readonly expected: readonly ExpectedDiagnostic[];
}

const rows = (JSON.parse(readFileSync(new URL("../cases/lint.json", import.meta.url), "utf8")) as { cases: LintRow[] }).cases;
/** The rows whose plan is also a value: not a text that is no JSON, nor one nested past what the position finder reads (as a value it is fine). */
const parsable = rows.filter((row) => row.expected.every((d) => d.code !== "json-syntax" && !(d.code === "limit" && d.pointer === "")));

function textOf(row: LintRow): string {
  return row.text ?? JSON.stringify(row.plan, null, 2);
}

function optionsOf(row: LintRow): LintOptions {
  return { ...row.options, ...(row.tools === undefined ? {} : { tools: row.tools }) };
}

/** Line and column of an offset, counted here independently of LineIndex (CRLF, CR and LF end a line). */
function naivePosition(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    const c = text[i];
    if (c === "\n" || (c === "\r" && text[i + 1] !== "\n")) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

describe("lint.json", () => {
  test.each(rows)("$name", (row) => {
    const text = textOf(row);
    const diagnostics = lintPlanText(text, optionsOf(row));
    const actual = diagnostics.map((d) => ({
      code: d.code,
      severity: d.severity,
      pointer: d.pointer,
      ...(d.step === undefined ? {} : { step: d.step }),
      line: d.range?.start.line,
      column: d.range?.start.column,
      endLine: d.range?.end.line,
      endColumn: d.range?.end.column,
      text: d.offset === undefined ? undefined : text.slice(d.offset.start, d.offset.end),
      message: d.message,
      ...(d.fix === undefined ? {} : { fix: d.fix }),
    }));
    expect(actual).toEqual(row.expected);
    for (const d of diagnostics) {
      // Absent fields are left out, not set to undefined (diagnostics print and compare cleanly).
      expect(Object.values(d)).not.toContain(undefined);
      expect(d.range?.start).toEqual(naivePosition(text, d.offset!.start));
      expect(d.range?.end).toEqual(naivePosition(text, d.offset!.end));
    }
  });

  // The same plans as values: the same diagnostics (without file positions), in the same order.
  test.each(parsable)("lintPlan agrees with lintPlanText: $name", (row) => {
    const text = textOf(row);
    const fromText = lintPlanText(text, optionsOf(row)).map(({ range: _r, offset: _o, ...rest }) => rest);
    const fromValue = lintPlan(JSON.parse(text), optionsOf(row));
    expect(fromValue).toEqual(fromText);
    // No position fields at all, not fields set to undefined (toEqual would not tell them apart).
    for (const d of fromValue)
      expect(Object.keys(d).filter((key) => key === "range" || key === "offset" || d[key as keyof Diagnostic] === undefined)).toEqual([]);
  });
});

describe("lintReadPlan (the runner's entry: the plan read once)", () => {
  test.each(parsable)("agrees with lintPlan: $name", (row) => {
    const plan = JSON.parse(textOf(row)) as unknown;
    expect(lintReadPlan(plan, readPlan(plan), optionsOf(row))).toEqual(lintPlan(plan, optionsOf(row)));
  });

  test("each step's arguments are scanned once, in order, by the scanner given", () => {
    const plan = {
      steps: [
        { id: 1, tool: "a", args: { q: "x" } },
        { id: 2, tool: "b", args: { q: "$3" } },
      ],
    };
    const seen: number[] = [];
    const diagnostics = lintReadPlan(plan, readPlan(plan), undefined, (position, args, options) => {
      seen.push(position);
      return scanArgs(args, options);
    });
    expect(seen).toEqual([0, 1]);
    expect(diagnostics.map((d) => [d.code, d.pointer])).toEqual([["unknown-step", "/steps/1/args/q"]]);
  });

  test("a scanner that throws is one invalid-plan diagnostic", () => {
    const plan = { steps: [{ id: 1, tool: "a", args: {} }] };
    const diagnostics = lintReadPlan(plan, readPlan(plan), undefined, () => {
      throw new Error("boom \u001b[31m");
    });
    expect(diagnostics).toEqual([
      { code: "invalid-plan", severity: "error", message: "the plan could not be read: boom \\u001b[31m", pointer: "" },
    ]);
  });
});

describe("spans inside string values", () => {
  test("unknown-key: the span is the failing segment, dot included", () => {
    const tools = { a: { output: { type: "object", properties: { city: {} }, additionalProperties: false } } };
    const [d] = lintPlan(
      {
        options: { syntax: "path" },
        steps: [
          { id: 1, tool: "a" },
          { id: 2, tool: "a", args: { q: "x" } },
          { id: 3, tool: "a", args: { q: "$1.city.x ?? $1.zip" } },
        ],
      },
      { tools },
    );
    expect(d).toMatchObject({ code: "unknown-key", pointer: "/steps/2/args/q", step: 3, span: { start: 15, end: 19 } });
    expect("$1.city.x ?? $1.zip".slice(d!.span!.start, d!.span!.end)).toBe(".zip");
  });

  test("an unknown step in a braced template part spans its digits", () => {
    const [d] = lintPlan({ options: { templates: true }, steps: [{ id: 1, tool: "a", args: { q: "at ${12.city}" } }] });
    expect(d).toMatchObject({ code: "unknown-step", span: { start: 5, end: 7 } });
  });
});

describe("never throws", () => {
  const hostile = new Proxy(
    {},
    {
      getPrototypeOf() {
        throw new Error("trap");
      },
      ownKeys() {
        throw new Error("trap");
      },
    },
  );
  let getterRan = false;
  const getter = {
    steps: [
      {
        id: 1,
        tool: "a",
        get args(): Record<string, unknown> {
          getterRan = true;
          return { q: "$2" };
        },
      },
    ],
  };
  const cyclic: Record<string, unknown> = { id: 1, tool: "a" };
  cyclic["args"] = { self: cyclic };
  const values: [string, unknown][] = [
    ["undefined", undefined],
    ["a function", () => 1],
    ["a symbol", Symbol("s")],
    ["a BigInt id", { steps: [{ id: 10n, tool: "a" }] }],
    ["a throwing Proxy", hostile],
    ["a Proxy as a step", { steps: [hostile] }],
    ["a getter for args (never invoked)", getter],
    ["cyclic args", { steps: [cyclic] }],
    ["a Map", new Map([[1, 2]])],
    [
      "a class instance step",
      {
        steps: [
          new (class Step {
            id = 1;
            tool = "a";
          })(),
        ],
      },
    ],
  ];
  test.each(values)("lintPlan on %s returns diagnostics", (_name, value) => {
    const diagnostics = lintPlan(value);
    expect(Array.isArray(diagnostics)).toBe(true);
    for (const d of diagnostics) expect(d.severity).toMatch(/^(error|warning|info)$/);
  });

  test("a getter in the plan is never invoked: its args count as missing", () => {
    getterRan = false;
    expect(lintPlan(getter).map((d) => [d.code, d.pointer])).toEqual([["invalid-plan", "/steps/0/args"]]);
    expect(getterRan).toBe(false);
  });

  test.each([
    ["options that are not an object", 5 as unknown as LintOptions],
    ["a bad option value", { maxDepth: -1 }],
    ["a catalog that is not an object", { tools: "tools" as unknown as LintOptions["tools"] }],
  ])("invalid caller options are a diagnostic: %s", (_name, options) => {
    const diagnostics = lintPlan({ steps: [] }, options);
    expect(diagnostics.map((d) => d.code)).toEqual(["invalid-options"]);
  });

  test("lintPlanText on a non-string", () => {
    expect(lintPlanText(42 as unknown as string)).toEqual([
      {
        code: "invalid-plan",
        severity: "error",
        message: "the plan could not be read: lintPlanText needs the text of a plan, not number",
        pointer: "",
      },
    ]);
  });
});

describe("caller options", () => {
  test("an undefined caller option does not override the plan's", () => {
    const plan = {
      options: { syntax: "path" },
      steps: [
        { id: 1, tool: "a" },
        { id: 2, tool: "b", args: { q: "$1.a[" } },
      ],
    };
    const withUndefined = lintPlan(plan, { syntax: undefined, templates: undefined });
    expect(withUndefined.map((d) => d.code)).toEqual(["malformed-ref"]);
    // In the seed syntax "$1.a[" is a valid placeholder (key "a["), which reads like a path: only that warning.
    expect(lintPlan(plan, { syntax: "seed" }).map((d) => d.code)).toEqual(["path-like-key"]);
  });
});

/** Keep the Diagnostic type honest: a JSON round trip keeps every field. */
test("diagnostics are plain JSON data", () => {
  const diagnostics: Diagnostic[] = lintPlanText('{"steps": [{"id": 1, "tool": "a", "args": {"q": "$2"}}]}');
  expect(JSON.parse(JSON.stringify(diagnostics))).toEqual(diagnostics);
});
