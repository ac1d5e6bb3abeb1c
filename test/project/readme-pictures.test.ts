/**
 * The README's pictures (docs/images/*.svg) are what `npm run pictures` draws with the code as it is
 * now: a change to the renderer or to the trip example that changes a picture fails here until the
 * pictures are drawn again and committed. The script runs against the built package (dist/), as
 * `npm test` builds it first.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { parseXml } from "../draw/xml.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

test("docs/images/trip-plan.svg and trip-run.svg are what npm run pictures draws now", () => {
  const result = spawnSync(process.execPath, [join(root, "scripts/pictures.mjs"), "--check"], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
});

test("the pictures are SVG documents the README shows, with the trip's four steps", () => {
  const plan = readFileSync(join(root, "docs/images/trip-plan.svg"), "utf8");
  const run = readFileSync(join(root, "docs/images/trip-run.svg"), "utf8");
  expect(parseXml(plan.trim()).name).toBe("svg");
  expect(parseXml(run.trim()).name).toBe("svg");
  expect(plan.match(/class="plan-refs-step/g)?.length).toBe(4);
  expect(run.match(/class="plan-refs-bar plan-refs-ok/g)?.length).toBe(4);
  const readme = readFileSync(join(root, "README.md"), "utf8");
  expect(readme).toContain("docs/images/trip-plan.svg");
  expect(readme).toContain("docs/images/trip-run.svg");
});
