/**
 * The tools object runPlan accepts: a plain object, a null-prototype object, or a module namespace
 * (`await import("./tools.mjs")`) whose exported functions are the tools. Node's own module namespace is
 * needed (vitest hands tests a namespace of getters), so the run happens in a child `node` over dist/.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const script = `
const { runPlan } = await import(${JSON.stringify(pathToFileURL(`${root}dist/run/index.js`).href)});
const tools = await import(${JSON.stringify(pathToFileURL(`${root}test/fixtures/namespace-tools.mjs`).href)});
const ok = await runPlan([{ id: 1, tool: "double", args: { n: 21 } }, { id: 2, tool: "double", args: { n: "$1" } }], tools);
const bad = await runPlan([{ id: 1, tool: "notATool", args: {} }], tools);
console.log(JSON.stringify({ status: ok.status, two: ok.results.get(2), bad: bad.status, codes: bad.diagnostics.map((d) => d.code) }));
`;

test("a module namespace object is a tools object: its exported functions are the tools, other exports are not", () => {
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(child.stderr).toBe("");
  expect(JSON.parse(child.stdout)).toEqual({ status: "ok", two: 84, bad: "invalid", codes: ["unknown-tool"] });
});
