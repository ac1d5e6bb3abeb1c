/**
 * The graphile-worker guard of `migrate` and `startWorker`: the rule in rows (the version and the
 * schema migration found, as the guard takes them), the peer range in package.json equal to the
 * tested one, and the version read from real installs: the one in node_modules accepted, an older
 * one installed from the npm registry refused with one line.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { PostgresError } from "../../src/postgres/errors.js";
import {
  GRAPHILE_WORKER_INSTALL,
  GRAPHILE_WORKER_RANGE,
  graphileSchemaProblem,
  graphileVersionProblem,
  installedGraphileWorkerVersion,
  refuseGraphileWorker,
} from "../../src/postgres/graphile-version.js";
import { tempFolder } from "../helpers/temp.js";

const root = new URL("../../", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as {
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe("the rule", () => {
  test.each([
    ["0.17.3", true],
    ["0.17.9", true],
    ["0.18.0", true],
    ["0.18.4", true],
    ["0.17.2", false],
    ["0.16.6", false],
    ["0.19.0", false],
    ["1.18.0", false],
    ["0.18.0-rc.1", false],
    ["0.17.0-canary.6c2c85c", false],
    ["0.18", false],
    ["latest", false],
    [undefined, false],
  ])("graphile-worker %s accepted: %s", (version, accepted) => {
    const problem = graphileVersionProblem(version);
    expect(problem === undefined).toBe(accepted);
    if (problem !== undefined) {
      expect(problem).toBe(
        `graphile-worker ${version ?? "of an unknown version"} is installed; plan-refs supports ${GRAPHILE_WORKER_RANGE}: ${GRAPHILE_WORKER_INSTALL}`,
      );
      expect(() => refuseGraphileWorker(problem)).toThrow(
        expect.objectContaining({ name: "PostgresError", code: "unsupported-graphile-worker", message: problem }),
      );
    }
  });

  test.each([
    [19, undefined],
    [20, undefined],
    [undefined, undefined],
    [
      18,
      `the database's graphile-worker schema is at migration 18; plan-refs supports migrations 19 to 20 (graphile-worker ~0.17.3 || ~0.18.0): npm install graphile-worker@~0.18.0, then run migrate`,
    ],
    [
      21,
      `the database's graphile-worker schema is at migration 21; plan-refs supports migrations 19 to 20 (graphile-worker ~0.17.3 || ~0.18.0): a newer graphile-worker migrated it; use a plan-refs release that supports it`,
    ],
  ])("a schema at migration %s: %s", (schema, problem) => {
    expect(graphileSchemaProblem(schema)).toBe(problem);
  });

  test("the peer range is the tested range, and the version developed against is in it", () => {
    expect(GRAPHILE_WORKER_RANGE).toBe("~0.17.3 || ~0.18.0");
    expect(manifest.peerDependencies["graphile-worker"]).toBe(GRAPHILE_WORKER_RANGE);
    expect(graphileVersionProblem(manifest.devDependencies["graphile-worker"])).toBeUndefined();
  });
});

describe("the installed package", () => {
  test("the graphile-worker in node_modules is the one developed against, and accepted", () => {
    const version = installedGraphileWorkerVersion();
    expect(version).toBe(manifest.devDependencies["graphile-worker"]);
    expect(() => refuseGraphileWorker(graphileVersionProblem(version))).not.toThrow();
  });

  const folder = tempFolder("graphile-0-16");

  // Spawns npm: a graphile-worker outside the range, installed from its exact lock as a user would.
  test("graphile-worker 0.16.6 installed beside a module is refused with one line naming it, the range and what to install", () => {
    const fixture = new URL("test/fixtures/graphile-worker-0.16/", root);
    for (const file of ["package.json", "package-lock.json"]) copyFileSync(new URL(file, fixture), join(folder, file));
    const npm = spawnSync("npm", ["ci", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: folder,
      encoding: "utf8",
      shell: process.platform === "win32",
    });
    expect(npm.status, npm.stderr).toBe(0);
    const version = installedGraphileWorkerVersion(pathToFileURL(join(folder, "index.mjs")).href);
    expect(version).toBe("0.16.6");
    let refused: unknown;
    try {
      refuseGraphileWorker(graphileVersionProblem(version));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(PostgresError);
    expect(refused).toMatchObject({
      code: "unsupported-graphile-worker",
      message: "graphile-worker 0.16.6 is installed; plan-refs supports ~0.17.3 || ~0.18.0: npm install graphile-worker@~0.18.0",
    });
  }, 300_000);
});
