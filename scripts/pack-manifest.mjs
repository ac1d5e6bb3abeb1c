#!/usr/bin/env node
/**
 * `npm pack` and `npm publish` run `prepack`, then tar the folder, then `postpack`. `prepare` builds
 * dist/ for a git install (npm runs only `prepare` for one), but in the tarball it only makes npm 11
 * warn that a consumer installing the file has "install scripts not yet covered by allowScripts"
 * (npm counts `prepare` for every source that is not the registry), although it never runs there: the
 * tarball holds dist/ already. So `prepack` builds, then `strip` takes `prepare` out of package.json
 * for the tarball (keeping the file as it was beside it), and `postpack` puts the file back, byte for byte.
 *
 *   node scripts/pack-manifest.mjs strip     (in prepack, after the build)
 *   node scripts/pack-manifest.mjs restore   (in postpack)
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

const MANIFEST = "package.json";
/** The manifest as it was, kept while the tarball is made (a pack that failed half-way leaves it: strip restores it first). */
const KEPT = "package.json.before-pack";

const command = process.argv[2];
if (command === "strip") {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
  const text = readFileSync(MANIFEST, "utf8");
  const manifest = JSON.parse(text);
  writeFileSync(KEPT, text);
  if (manifest.scripts !== undefined) delete manifest.scripts.prepare;
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
} else if (command === "restore") {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
} else {
  process.stderr.write("usage: node scripts/pack-manifest.mjs strip|restore\n");
  process.exit(2);
}
