/**
 * The vitest configuration of the runtime matrix (scripts/test-matrix.mjs runs it with each Node binary
 * of this folder): the repository as the root, the root's tags and time limits, a set-up file that
 * checks the Node version and the SDK versions, and `ai`, `@openai/agents` and `zod` resolved as from
 * this folder, to its copies of the current majors. An npm alias would not do: src/ imports "ai", which
 * from src/ finds the root's ai 6. zod goes with them so that the tests' schemas and the SDKs' are one copy.
 */
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vitest/config";
import rootConfig, { GROUPS, POSTGRES_SETUP } from "../../vitest.config.js";

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

/** The packages whose imports resolve to this folder's copies, anywhere in the run. */
export const CURRENT_MAJORS: readonly string[] = ["ai", "@openai/agents", "zod"];

const importer = here("package.json");

/**
 * Each import of one of CURRENT_MAJORS (or a subpath: `ai/test`) resolved as if written in this folder,
 * by vite's own resolver, so the packages' `exports` still choose the file. `<name>/package.json` is the
 * file itself, for the set-up file's version check (@openai/agents does not export it).
 */
function currentMajors(): Plugin {
  const pattern = new RegExp(`^(${CURRENT_MAJORS.map((name) => name.replace(/[/]/g, "\\/")).join("|")})(/.*)?$`);
  return {
    name: "plan-refs-current-majors",
    enforce: "pre",
    async resolveId(source, from, options) {
      const match = pattern.exec(source);
      if (match === null || from === importer) return null;
      if (match[2] === "/package.json") return here(`node_modules/${match[1]}/package.json`);
      return this.resolve(source, importer, { ...options, skipSelf: true });
    },
  };
}

export default defineConfig({
  root: here("../.."),
  plugins: [currentMajors()],
  test: {
    // The root's tests, and this folder's own (named *.matrix.ts so that the root's run, with ai 6, never picks them).
    include: ["test/**/*.test.ts", "test/runtimes/*.matrix.ts"],
    tags: rootConfig.test?.tags,
    testTimeout: rootConfig.test?.testTimeout,
    hookTimeout: rootConfig.test?.hookTimeout,
    setupFiles: [here("../helpers/expect-runtime.ts")],
    /**
     * One project per suite of scripts/test-matrix.mjs (`--project`), each with the workers of the root's
     * group for such files (vitest's default, one core fewer than the machine has, left a core idle), and
     * `postgres` with the root's one server for the run (without it each file started its own).
     */
    projects: [
      { extends: true, test: { name: "in-process", maxWorkers: GROUPS.cpu.maxWorkers } },
      { extends: true, test: { name: "postgres", maxWorkers: GROUPS.waits.maxWorkers, globalSetup: [POSTGRES_SETUP] } },
    ],
  },
});
