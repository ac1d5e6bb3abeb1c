import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    // Imports in beforeAll hooks (poisoning, the TextMate engine) can take seconds on a loaded machine.
    hookTimeout: 60_000,
  },
});
