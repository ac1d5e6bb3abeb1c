import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Tags say why a test is left out of mutation runs (vitest.mutation.config.ts); npm test runs them all.
    tags: [
      { name: "slow", description: "inputs of megabytes or tens of thousands of nodes; smaller cases reach the same code" },
      { name: "other-layers", description: "reaches src/grammar and src/resolve only through other layers or the built dist/" },
      { name: "counts-cases", description: "a property that also checks how many of its generated cases reached what it tests (mutation runs cut properties short)" },
      { name: "compiles-schemas", description: "a property whose every case compiles a new schema with Ajv: longer than the mutation runs give a property" },
    ],
    testTimeout: 30_000,
    // Imports in beforeAll hooks (poisoning, the TextMate engine) can take seconds on a loaded machine.
    hookTimeout: 60_000,
  },
});
