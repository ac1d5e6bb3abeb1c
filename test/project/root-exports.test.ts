/**
 * The root export list, pinned (the packed package's root is checked against the same list in
 * test/package/consumer.test.ts), and every name that left the root still reachable on a subpath.
 */
import { describe, expect, test } from "vitest";
import * as root from "../../src/index.js";
import * as agents from "../../src/agents/index.js";
import * as draw from "../../src/draw/index.js";
import * as editor from "../../src/editor/index.js";
import * as formats from "../../src/formats/index.js";
import * as grammar from "../../src/grammar/index.js";
import * as lint from "../../src/lint/index.js";
import * as plan from "../../src/plan/index.js";
import * as resolve from "../../src/resolve/index.js";
import * as run from "../../src/run/index.js";
import { MAX_ROOT_EXPORTS, ROOT_EXPORTS } from "../helpers/root-exports.js";

/** What the root exported before it was cut down (0.1.0's list), each name to stay on a subpath. */
const FORMER_ROOT: Readonly<Record<string, readonly string[]>> = {
  grammar: ["clearParseCache", "parseCacheStats", "pathLanguage", "seedLanguage", "setParseCacheSize"],
  resolve: ["DEFAULT_LIMITS"],
  plan: ["MAX_STREAMED_PLAN_LENGTH", "parseJsonText", "planGraph", "scanArgs"],
  lint: ["didYouMean", "walkSchema"],
  run: [
    "DEFAULT_SESSION_MAX_BYTES",
    "DEFAULT_SESSION_MAX_RESULTS",
    "MAX_CONTENT_LENGTH",
    "MAX_TIMEOUT_MS",
    "PlanSession",
    "RETRY_DEFAULTS",
    "approvalRuleOf",
    "backoffMs",
    "retryDelayMs",
  ],
  agents: ["DEFAULT_MAX_RESULT_CHARS", "cutResult", "planCallDescription", "readPlanCallOptions", "runPlanCall"],
  editor: [
    "TOKEN_KINDS",
    "applyTextEdits",
    "completionsAt",
    "definitionAt",
    "documentTokens",
    "fixesOf",
    "hoverAt",
    "quickFixes",
    "renameStep",
    "stepAt",
    "tokenize",
  ],
  formats: [
    "END_OF_PLAN",
    "MAX_ARGUMENT_DEPTH",
    "MAX_CONVERSION_DIAGNOSTICS",
    "MAX_PLAN_LINE_LENGTH",
    "MAX_PLAN_STEPS",
    "MAX_PLAN_TEXT_LENGTH",
    "MAX_SCHEMA_DEPTH",
    "MAX_SCHEMA_NODES",
    "MAX_SCHEMA_TOOLS",
    "STRICT_FORMATS",
    "STRICT_KEYWORDS",
    "STRICT_REWRITES",
    "fromLLMCompiler",
    "fromLLMCompilerStream",
    "fromReWOO",
    "fromStrictOutput",
    "planSchema",
    "referencePattern",
  ],
  draw: [
    "COLORS",
    "FONT_FAMILY",
    "LONGEST_LABEL",
    "OUTCOME_COLORS",
    "OUTPUT_NODE",
    "PLAN_GEOMETRY",
    "RUN_GEOMETRY",
    "WHOLE_RESULT",
    "dotText",
    "escapeXml",
    "fitText",
    "formatMs",
    "layoutPlan",
    "layoutRun",
    "layoutToSvg",
    "mermaidText",
    "planPicture",
    "planToDot",
    "planToMermaid",
    "planToSvg",
    "runLayoutToSvg",
    "runToMermaid",
    "runToSvg",
    "textWidth",
  ],
};
const SUBPATHS: Readonly<Record<string, object>> = { grammar, resolve, plan, lint, run, agents, editor, formats, draw };

describe("the root export", () => {
  test("is exactly the pinned list, at most MAX_ROOT_EXPORTS runtime values", () => {
    expect(Object.keys(root).sort()).toEqual([...ROOT_EXPORTS].sort());
    expect(ROOT_EXPORTS.length).toBeLessThanOrEqual(MAX_ROOT_EXPORTS);
  });

  test.each(Object.entries(FORMER_ROOT))("every name that left the root is on plan-refs/%s", (subpath, names) => {
    const module = SUBPATHS[subpath]!;
    expect(names.filter((name) => !(name in module))).toEqual([]);
  });

  test("each root name is the same value as on its subpath", () => {
    const everywhere = Object.values(SUBPATHS);
    for (const name of ROOT_EXPORTS)
      expect(
        everywhere.some((module) => (module as Record<string, unknown>)[name] === root[name]),
        name,
      ).toBe(true);
  });
});
