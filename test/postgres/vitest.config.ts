// The files that start PostgreSQL, run on their own with the run's one server
// (`npx vitest run --config test/postgres/vitest.config.ts`); npm test's config adds the same global set-up.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/postgres/**/*.test.ts", "test/tracing/postgres.test.ts"],
    globalSetup: ["test/postgres/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
