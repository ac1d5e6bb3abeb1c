#!/usr/bin/env node
/**
 * `npm run build`: `tsc -p tsconfig.build.json`, skipped when dist/ is exactly what that command made
 * from the inputs as they are now. `npm ci` builds dist/ (`prepare`) and `npm test` builds again: the
 * second build would rewrite the same files.
 *
 * After a build, a stamp records two hashes: of the inputs (every file under src/, the two tsconfig
 * files, package.json and package-lock.json, which pins the compiler and every type it reads) and of
 * dist/ (each file's path and bytes). The next build is skipped only when both hashes are those of the
 * stamp: an edited, added or removed source file changes the first, a deleted, edited or added file of
 * dist/ the second, and either rebuilds. The stamp says only that these inputs made these outputs, so
 * where it is kept (node_modules/.cache, never packed) cannot make dist/ stale, whichever checkout wrote it.
 *
 *   node scripts/build.mjs   (in the package's folder, as npm runs it; `npm run build:clean` always builds)
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

const root = process.cwd();
const INPUTS = ["src", "tsconfig.json", "tsconfig.build.json", "package.json", "package-lock.json"];
const OUTPUT = "dist";
const STAMP = join(root, "node_modules/.cache/plan-refs/build-stamp.json");
/** Folders deeper than this are not a source tree this script was written for. */
const MAX_DEPTH = 32;

/** Every file at or under `path` (an absolute path), sorted, relative to the package's folder; none when it does not exist. */
function filesUnder(path, depth = 0) {
  if (depth > MAX_DEPTH) throw new Error(`build: ${relative(root, path)} is more than ${MAX_DEPTH} folders deep`);
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return [];
  if (!stat.isDirectory()) return stat.isFile() ? [relative(root, path).split(sep).join("/")] : [];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(join(path, name), depth + 1));
}

/** The hash of the named files and folders: each file's path, length and bytes, so a rename or a removal counts. */
function contentHash(paths) {
  const hash = createHash("sha256");
  for (const file of paths.flatMap((path) => filesUnder(join(root, path)))) {
    const bytes = readFileSync(join(root, file));
    hash.update(`${file}\0${bytes.length}\0`);
    hash.update(bytes);
  }
  return hash.digest("hex");
}

function readStamp() {
  try {
    const stamp = JSON.parse(readFileSync(STAMP, "utf8"));
    return typeof stamp === "object" && stamp !== null ? stamp : undefined;
  } catch {
    return undefined;
  }
}

if (process.argv.length > 2) {
  process.stderr.write("usage: node scripts/build.mjs (no arguments)\n");
  process.exit(2);
}

const inputs = contentHash(INPUTS);
const stamp = readStamp();
if (stamp?.inputs === inputs && existsSync(join(root, OUTPUT)) && stamp.outputs === contentHash([OUTPUT])) process.exit(0);

const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], {
  cwd: root,
  stdio: "inherit",
});
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
// Written whole under a name of its own, then renamed: two builds at once never leave half a stamp. A stamp
// that cannot be written only means that the next build runs.
try {
  mkdirSync(join(STAMP, ".."), { recursive: true });
  const partial = `${STAMP}.${process.pid}`;
  writeFileSync(partial, `${JSON.stringify({ inputs, outputs: contentHash([OUTPUT]) })}\n`);
  renameSync(partial, STAMP);
} catch (error) {
  process.stderr.write(`build: dist/ is built, but its stamp was not written (${error.message}): the next build runs again\n`);
}
