/**
 * The tests Stryker runs for `npm run mutation` (mutants in src/grammar and src/resolve): the ones that
 * exercise the parser and the evaluator in-process. Browser, language server, CLI, editor, linter and
 * runner tests are left out: they reach grammar and resolve only through other layers (or through
 * dist/ in a child process, which Stryker does not mutate) and would make a run several times longer.
 * `npx vitest run --config vitest.mutation.config.ts` runs the same selection without mutants.
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "test/seed.test.ts",
      "test/path.test.ts",
      "test/templates.test.ts",
      "test/deep.test.ts",
      "test/parse.test.ts",
      "test/properties.test.ts",
      "test/scanner.test.ts",
      "test/cache.test.ts",
      "test/compile-args.test.ts",
      "test/hostile.test.ts",
      "test/mutation-kills.test.ts",
      "test/mutation-kills-ast-format.test.ts",
      "test/mutation-kills-parse.test.ts",
      "test/mutation-kills-scanner.test.ts",
      "test/mutation-kills-resolve.test.ts",
      "test/mutation-kills-compile.test.ts",
      "test/mutation-kills-evaluate.test.ts",
    ],
    // Left out of mutation runs only (each mutant reruns the tests that reach it): tests of the built
    // dist/ (Stryker mutates src/, not dist/), of entry points outside src/grammar and src/resolve,
    // and the slowest inputs (a 1 MB template, chains of 16,000 defaults, 20,000 interpolations, the
    // parse cache filled past its default and several other bounds), whose code smaller cases reach too.
    testNamePattern: new RegExp(
      `^(?!.*(${[
        "plain Node process",
        "x 200,000",
        "runPlan: hostile",
        "16,000 defaults with limits raised",
        "20,000 interpolations with maxRefLength raised",
        "is bounded by default",
        "bounded by setParseCacheSize\\(0\\)",
        "a long chain of defaults",
        "100,000",
        "1 MB",
        "16,000",
        "20,000",
        "deeper than maxDepth",
        "the four inputs of issue 9",
        "long chains of defaults",
        "setParseCacheSize\\((1|2|7|100)\\)",
        "(lintPlan|lintPlanText|readPlan|readTools|planGraph|scanArgs|parseJsonText|didYouMean|walkSchema|tokenize|documentTokens|completionsAt|hoverAt|renameStep|applyTextEdits)\\(",
      ].join("|")})).*$`,
    ),
    setupFiles: ["test/mutation-setup.ts"],
    testTimeout: 60_000,
  },
});
