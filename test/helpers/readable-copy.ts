/**
 * A copy of the built package that every user can read, for tests that run the CLI as another user
 * (`nobody`): the checkout may sit in a folder only its owner can enter (mode 700, as `mktemp -d`
 * makes, or /root), and then that user cannot even load the CLI from it. The copy holds what npm
 * would install: the package's published files (package.json `files`) and its runtime dependencies.
 */
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, parse, relative } from "node:path";
import { tempFolder } from "./temp.js";

interface Manifest {
  readonly files?: readonly string[];
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
}

const manifest = (folder: string): Manifest => JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as Manifest;

/** Where Node finds package `name` from `folder`: the nearest node_modules/<name> above it. */
function findPackage(folder: string, name: string): string | undefined {
  for (let at = folder; ; at = dirname(at)) {
    const candidate = join(at, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (at === parse(at).root) return undefined;
  }
}

/** The package folders `root`'s runtime dependencies need, each once, by name. */
function runtimeDependencies(root: string): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (folder: string): void => {
    const { dependencies = {}, optionalDependencies = {} } = manifest(folder);
    for (const name of Object.keys({ ...dependencies, ...optionalDependencies })) {
      const at = findPackage(folder, name);
      if (at === undefined || found.has(name)) continue;
      found.set(name, at);
      visit(at);
    }
  };
  visit(root);
  return found;
}

/** Let every user read everything under `path` and enter every folder (files keep their x bits). */
function openToEveryone(path: string): void {
  const stat = statSync(path);
  chmodSync(path, stat.isDirectory() ? (stat.mode & 0o7777) | 0o555 : (stat.mode & 0o7777) | 0o444);
  if (stat.isDirectory()) for (const entry of readdirSync(path)) openToEveryone(join(path, entry));
}

/** Every user may enter `folder` and each folder above it. */
export function everyoneCanEnter(folder: string): boolean {
  for (let at = folder; ; at = dirname(at)) {
    if ((statSync(at).mode & 0o001) === 0) return false;
    if (at === parse(at).root) return true;
  }
}

/**
 * Copy the package at `root` as npm would install it into a fresh temp folder every user can read
 * (removed after the file's tests, see `tempFolder`); returns the copy's root. Call it at the top level
 * of a test file or in a `describe` body.
 *
 * @example
 * const copy = readableCopy("results-cli", root); // copy/dist/cli/main.js runs as nobody
 */
export function readableCopy(name: string, root: string): string {
  const copy = tempFolder(name);
  cpSync(join(root, "package.json"), join(copy, "package.json"));
  for (const entry of manifest(root).files ?? []) {
    if (existsSync(join(root, entry))) cpSync(join(root, entry), join(copy, entry), { recursive: true });
  }
  for (const [dependency, folder] of runtimeDependencies(root)) cpSync(folder, join(copy, "node_modules", dependency), { recursive: true });
  openToEveryone(copy);
  return copy;
}

/** Who a test runs the CLI as to see a "not writable" refusal when it is root (root may write anywhere). */
export const NOBODY = 65534;

/**
 * How to run the CLI executable `main` (`<package>/dist/cli/main.js`) as nobody: from a readable copy
 * of its package (see `readableCopy`), or the reason it cannot (the temp dir `scratch` is in is closed
 * to nobody too), which the tests that need nobody fail with (a skipped test would pass unseen). Only
 * for root; call it where `readableCopy` may be called.
 *
 * @example
 * const nobody = cliForNobody("graph-cli", main, tmp); // { main: "/tmp/plan-refs-graph-cli-…/dist/cli/main.js" }
 */
export function cliForNobody(name: string, main: string, scratch: string): { readonly main: string } | { readonly unavailable: string } {
  if (!everyoneCanEnter(scratch))
    return { unavailable: `${scratch} is in a folder nobody can enter, so the CLI cannot run as nobody from there` };
  const packageRoot = dirname(dirname(dirname(main)));
  return { main: join(readableCopy(name, packageRoot), relative(packageRoot, main)) };
}
