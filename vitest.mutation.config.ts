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
    ],
    // Left out of mutation runs only: tests of the built dist/ (Stryker mutates src/, not dist/) and
    // the 1 MB template (2 s a run; the same code is killed by the smaller template rows).
    testNamePattern: /^(?!.*(plain Node process|x 200,000|runPlan: hostile)).*$/,
    testTimeout: 60_000,
  },
});
