/**
 * The tests Stryker runs for `npm run mutation` (mutants in src/grammar, src/resolve, src/lint and the
 * step kernel, src/step): every test in the folders that mirror the mutated code and what they build on
 * (test/grammar, test/resolve, test/shared, test/lint, test/step, test/run), runPlan's spans
 * (test/tracing/run-plan.test.ts: the kernel's tracing of a try), the kernel's tracing helpers one by one
 * (test/tracing/kernel-trace.test.ts), except
 * the soak test and those tagged `slow`, `other-layers`, `counts-cases` or `compiles-schemas` (tags defined in vitest.config.ts): each mutant reruns the tests that reach it, and those would make a run several times longer while smaller
 * cases reach the same code. A new test file in those folders is picked up; renaming a test changes
 * nothing. `npx vitest run --config vitest.mutation.config.ts` runs the same selection without mutants.
 */
import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

export default defineConfig({
  test: {
    include: [
      "test/grammar/**/*.test.ts",
      "test/resolve/**/*.test.ts",
      "test/shared/**/*.test.ts",
      "test/lint/**/*.test.ts",
      "test/step/**/*.test.ts",
      "test/run/**/*.test.ts",
      "test/tracing/run-plan.test.ts",
      "test/tracing/kernel-trace.test.ts",
    ],
    // The soak test runs thousands of plans to watch memory and timers: no mutant needs it to be seen.
    exclude: ["test/run/soak.test.ts"],
    tags: base.test?.tags,
    tagsFilter: ["!slow && !other-layers && !counts-cases && !compiles-schemas"],
    setupFiles: ["test/mutation-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: base.test?.hookTimeout,
  },
});
