/**
 * `plan-refs run --results FILE`: where the results may go, checked before any tool runs, and the
 * write itself. The target must be a regular file or a new file in a writable folder; a symbolic link
 * is written through, to the file it points at (the link stays a link). Devices, FIFOs, sockets,
 * folders and the command's own input files (the plan, the catalog, the tools module) are refused.
 * The file is written to a temporary file beside the real target and renamed over it, so it is never
 * left half written, and the temporary file is removed whatever happens.
 */
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { CliError, userPath } from "./input.js";

/** Symbolic links followed at most (as the kernel's ELOOP limit). */
const MAX_LINKS = 40;

/** A checked `--results` target: the path given, and the file that will actually be written. */
export interface ResultsTarget {
  readonly given: string;
  /** The folder `given` is relative to. */
  readonly cwd: string;
  /** The real path written (a symbolic link resolved to its target). */
  readonly path: string;
  /** The mode of the file replaced, kept on the new one. */
  readonly mode: number | undefined;
  /** The flag that named it (`--results`, `--timeline`, `--out`) and what a refusal means (`nothing was run`). */
  readonly flag?: string;
  readonly outcome?: string;
}

/** An input file of the command, which the results must never overwrite. */
export interface GuardedFile {
  readonly path: string;
  readonly role: string;
}

/**
 * Check a `--results` target (relative to `cwd`, as are the guarded files) before anything runs. Throws a `CliError` (exit 2) naming what is wrong.
 * The same rules hold for every file the command line writes (`--timeline`, `graph --out`): `flag`
 * names it in the message and `outcome` says what did not happen.
 *
 * @example
 * checkResultsTarget("out.json", "/abs", [{ path: "plan.json", role: "the plan" }]) // { given: "out.json", cwd: "/abs", path: "/abs/out.json", mode: undefined, flag: "--results", … }
 * checkResultsTarget("graph.svg", "/abs", [], "--out", "nothing was written")
 */
export function checkResultsTarget(
  given: string,
  cwd: string,
  guarded: readonly GuardedFile[],
  flag = "--results",
  outcome = "nothing was run",
): ResultsTarget {
  const refuse = (why: string): never => {
    throw new CliError(`${flag} ${given}: ${why}; ${outcome}`, "results-target");
  };
  let path = userPath({ cwd }, given);
  for (let links = 0; ; links++) {
    let stats: Stats;
    try {
      stats = lstatSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") return refuse(`cannot be checked (${code ?? "error"})`);
      return newFile(path, given, cwd, refuse, flag, outcome);
    }
    if (stats.isSymbolicLink()) {
      if (links >= MAX_LINKS) return refuse("too many levels of symbolic links");
      path = resolve(dirname(path), readlinkSync(path));
      continue;
    }
    if (stats.isDirectory()) return refuse("is a directory; give a file name");
    if (!stats.isFile()) return refuse("is not a regular file (devices, FIFOs and sockets are refused)");
    for (const file of guarded) {
      if (sameFile(stats, userPath({ cwd }, file.path)))
        return refuse(`is ${file.role}; write ${flag === "--results" ? "the results" : "it"} to another file`);
    }
    try {
      accessSync(path, constants.W_OK);
    } catch {
      return refuse("is not writable");
    }
    const real = realpathSync(path);
    checkFolder(dirname(real), refuse);
    return { given, cwd, path: real, mode: stats.mode & 0o7777, flag, outcome };
  }
}

function newFile(path: string, given: string, cwd: string, refuse: (why: string) => never, flag: string, outcome: string): ResultsTarget {
  const folder = dirname(path);
  let real: string;
  try {
    real = realpathSync(folder);
  } catch {
    return refuse(`its folder ${folder} does not exist`);
  }
  checkFolder(real, refuse);
  return { given, cwd, path: join(real, basename(path)), mode: undefined, flag, outcome };
}

function checkFolder(folder: string, refuse: (why: string) => never): void {
  let stats: Stats;
  try {
    stats = statSync(folder);
  } catch {
    return refuse(`its folder ${folder} does not exist`);
  }
  if (!stats.isDirectory()) return refuse(`${folder} is not a folder`);
  try {
    accessSync(folder, constants.W_OK | constants.X_OK);
  } catch {
    return refuse(`its folder ${folder} is not writable`);
  }
}

function sameFile(stats: Stats, other: string): boolean {
  try {
    const that = statSync(other);
    return that.dev === stats.dev && that.ino === stats.ino;
  } catch {
    return false;
  }
}

/**
 * Write the results: check the target again (it may have changed while the tools ran), write a
 * temporary file beside it, rename it over the target. Returns the error code when that fails (the
 * caller then prints the results on stdout); the temporary file never stays behind.
 *
 * @example
 * writeResults(target, text, guarded) // undefined when written, else a reason such as "EACCES"
 */
export function writeResults(target: ResultsTarget, text: string, guarded: readonly GuardedFile[]): string | undefined {
  let again: ResultsTarget;
  const flag = target.flag ?? "--results";
  const outcome = target.outcome ?? "nothing was run";
  try {
    again = checkResultsTarget(target.given, target.cwd, guarded, flag, outcome);
  } catch (error) {
    if (!(error instanceof CliError)) return "cannot be checked";
    const prefix = `${flag} ${target.given}: `;
    const suffix = `; ${outcome}`;
    let why = error.message;
    if (why.startsWith(prefix)) why = why.slice(prefix.length);
    if (why.endsWith(suffix)) why = why.slice(0, -suffix.length);
    return why;
  }
  const temporary = join(dirname(again.path), `.${basename(again.path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  let fd: number | undefined;
  try {
    // O_EXCL: never through a file or link someone put there first.
    fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
    const bytes = Buffer.from(text, "utf8");
    for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    if (again.mode !== undefined) chmodSync(temporary, again.mode);
    renameSync(temporary, again.path);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? "error";
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // Already closed or never usable: nothing to do.
      }
    }
    try {
      unlinkSync(temporary);
    } catch {
      // Renamed away (the usual case) or never created.
    }
  }
}
