/**
 * The runtime matrix's set-up file (test/runtimes/vitest.config.ts): each test file first checks that it
 * runs where the matrix says, so that a `node` bin that shadowed another or an alias that no longer
 * applies fails every file, saying what ran instead. It sits outside test/runtimes on purpose: a bare
 * import from here resolves as one from src/ or test/ does, to the root's copy unless the matrix's
 * resolution applies.
 */

/** The version of the copy of a package that this run loads (its package.json, through the run's resolution). */
async function loadedVersion(name: string): Promise<string> {
  // A specifier the compiler does not follow: @openai/agents exports no package.json, which the matrix's resolution serves anyway.
  const manifest: string = `${name}/package.json`;
  const loaded = (await import(manifest)) as { default: { version: string } };
  return loaded.default.version;
}

const expectations = [
  { variable: "PLAN_REFS_EXPECT_NODE", what: "Node", actual: async () => process.version },
  { variable: "PLAN_REFS_EXPECT_AI", what: "ai", actual: () => loadedVersion("ai") },
  { variable: "PLAN_REFS_EXPECT_AGENTS", what: "@openai/agents", actual: () => loadedVersion("@openai/agents") },
] as const;

for (const { variable, what, actual } of expectations) {
  const wanted = process.env[variable];
  if (wanted === undefined) continue;
  const found = await actual();
  if (found !== wanted)
    throw new Error(`the runtime matrix expected ${what} ${wanted}, but this file runs with ${what} ${found} (on Node ${process.version})`);
}
