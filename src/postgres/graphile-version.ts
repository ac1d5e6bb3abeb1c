/**
 * The graphile-worker versions plan-refs is tested with, and the guard `migrate` and `startWorker`
 * run first: a few statements (releasing a job the worker holds, see sql/release-job.ts) write
 * graphile-worker's private tables, which a version outside these may lay out differently, so such a
 * version is refused with one line instead of failing jobs later.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ownData } from "../shared/own-data.js";
import { safeText } from "../shared/text.js";
import { PostgresError } from "./errors.js";

/** One line of graphile-worker releases tested: `major.minor`, its first tested patch, and its schema's last migration. */
export interface TestedGraphileWorker {
  readonly line: string;
  readonly fromPatch: number;
  readonly schema: number;
}

/**
 * The tested lines: a patch release of a line is accepted (graphile-worker's patches keep its
 * tables), but only on a schema whose last migration is one of these (a patch that adds a migration
 * is refused until tested). `package.json`'s peer range says the same (`GRAPHILE_WORKER_RANGE`; a
 * test compares them).
 *
 * @example
 * TESTED_GRAPHILE_WORKER.map((t) => t.schema) // [19, 20]
 */
export const TESTED_GRAPHILE_WORKER: readonly TestedGraphileWorker[] = [
  { line: "0.17", fromPatch: 3, schema: 19 },
  { line: "0.18", fromPatch: 0, schema: 20 },
];

/**
 * The peer range of graphile-worker, as `package.json` states it.
 *
 * @example
 * GRAPHILE_WORKER_RANGE // "~0.17.3 || ~0.18.0"
 */
export const GRAPHILE_WORKER_RANGE = TESTED_GRAPHILE_WORKER.map((t) => `~${t.line}.${t.fromPatch}`).join(" || ");

/**
 * What to install when the version found is refused (the newest tested line).
 *
 * @example
 * GRAPHILE_WORKER_INSTALL // "npm install graphile-worker@~0.18.0"
 */
export const GRAPHILE_WORKER_INSTALL = `npm install graphile-worker@~${TESTED_GRAPHILE_WORKER.map((t) => `${t.line}.${t.fromPatch}`).at(-1) ?? ""}`;

/** A released version, `major.minor.patch` (prereleases and builds are never tested). */
const RELEASE = /^(\d{1,6})\.(\d{1,6})\.(\d{1,6})$/;

/**
 * Why the installed graphile-worker `version` is refused, or `undefined` when it is within the
 * tested range (`undefined` for `version`: it could not be read).
 *
 * @example
 * graphileVersionProblem("0.16.6") // "graphile-worker 0.16.6 is installed; plan-refs supports ~0.17.3 || ~0.18.0: npm install graphile-worker@~0.18.0"
 */
export function graphileVersionProblem(version: string | undefined): string | undefined {
  const parts = version === undefined ? null : RELEASE.exec(version);
  const tested = parts === null ? undefined : TESTED_GRAPHILE_WORKER.find((t) => t.line === `${Number(parts[1])}.${Number(parts[2])}`);
  if (parts !== null && tested !== undefined && Number(parts[3]) >= tested.fromPatch) return undefined;
  const found = version === undefined ? "of an unknown version" : safeText(version, 40);
  return `graphile-worker ${found} is installed; plan-refs supports ${GRAPHILE_WORKER_RANGE}: ${GRAPHILE_WORKER_INSTALL}`;
}

/**
 * Why a database whose graphile-worker schema is at migration `schema` is refused, or `undefined`
 * when a tested version left it there (`undefined` for `schema`: no migration yet, `migrate` makes them).
 *
 * @example
 * graphileSchemaProblem(21) // "the database's graphile-worker schema is at migration 21; plan-refs supports migrations 19 to 20 (graphile-worker ~0.17.3 || ~0.18.0): …"
 */
export function graphileSchemaProblem(schema: number | undefined): string | undefined {
  if (schema === undefined || TESTED_GRAPHILE_WORKER.some((t) => t.schema === schema)) return undefined;
  const numbers = TESTED_GRAPHILE_WORKER.map((t) => t.schema);
  const newest = Math.max(...numbers);
  const fix =
    schema > newest
      ? "a newer graphile-worker migrated it; use a plan-refs release that supports it"
      : `${GRAPHILE_WORKER_INSTALL}, then run migrate`;
  return `the database's graphile-worker schema is at migration ${schema}; plan-refs supports migrations ${Math.min(...numbers)} to ${newest} (graphile-worker ${GRAPHILE_WORKER_RANGE}): ${fix}`;
}

/**
 * Throw `unsupported-graphile-worker` for a problem found above.
 *
 * @example
 * refuseGraphileWorker(graphileVersionProblem(installedGraphileWorkerVersion()))
 */
export function refuseGraphileWorker(problem: string | undefined): void {
  if (problem !== undefined) throw new PostgresError("unsupported-graphile-worker", problem);
}

/** How many folders up from graphile-worker's entry point its package.json is looked for (it is in `dist/`). */
const MAX_MANIFEST_DEPTH = 4;

/**
 * The version of the graphile-worker that `import("graphile-worker")` loads from `from` (a file URL or
 * path; by default this module's): read from its package.json, found upwards from its entry point (0.18
 * exports only its entry, not its package.json, and exports no version); `undefined` when unreadable.
 *
 * @example
 * installedGraphileWorkerVersion() // "0.18.0"
 */
export function installedGraphileWorkerVersion(from: string = import.meta.url): string | undefined {
  let folder: string;
  try {
    folder = dirname(createRequire(from).resolve("graphile-worker"));
  } catch {
    return undefined;
  }
  for (let depth = 0; depth < MAX_MANIFEST_DEPTH; depth++) {
    let manifest: unknown;
    try {
      manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
    } catch {
      manifest = undefined;
    }
    if (ownData(manifest, "name") === "graphile-worker") {
      const version = ownData(manifest, "version");
      return typeof version === "string" ? version : undefined;
    }
    folder = dirname(folder);
  }
  return undefined;
}
