/**
 * Reading the command line's input files: regular files or `-` (stdin) only, under a size limit,
 * strict UTF-8 without a byte order mark. Every failure is a `CliError` with one clear line.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { resolve } from "node:path";
import type { McpCallErrorCode, McpSetupErrorCode } from "../mcp/errors.js";
import type { PostgresErrorCode } from "../postgres/errors.js";
import type { RefErrorCode } from "../shared/errors.js";
import { LineIndex } from "../shared/positions.js";

/** Largest input file accepted by default (16 MiB). */
export const DEFAULT_MAX_INPUT_BYTES = 16 * 1024 * 1024;

/**
 * The codes of `CliError`: the command line's own, and those of the PostgreSQL and MCP errors it
 * passes on unchanged.
 */
export type CliErrorCode =
  | "usage"
  | "tools-module"
  | "wrong-flag"
  | "not-a-file"
  | "json-syntax"
  | "file-too-large"
  | "file-not-found"
  | "file-unreadable"
  | "token-file"
  | "invalid-tools"
  | "interrupted"
  | "utf8-bom"
  | "invalid-utf8"
  | "write-failed"
  | "results-target"
  | "token-required"
  | "missing-sdk"
  /** A RefError of the library (a bad option, a plan that does not match a report) passed on. */
  | RefErrorCode
  | PostgresErrorCode
  | `mcp-${McpSetupErrorCode}`
  | McpCallErrorCode;

/**
 * A user's mistake on the command line: printed as one line, never with a stack trace; `excerpt`, when
 * there is one, is the source line it points at with a caret under it (`sourceExcerpt`'s, escaped).
 */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly code: CliErrorCode,
    readonly exitCode = 2,
    readonly excerpt = "",
  ) {
    super(message);
  }
}

/**
 * What `-` reads: stdin's bytes to its end, at most `maxBytes` (more: a `CliError` of code
 * `file-too-large`, or any number of bytes over `maxBytes`, which the reader then refuses).
 */
export type CliStdin = (maxBytes: number) => Uint8Array;

/** Where an input comes from: the folder a relative path is resolved against, and what `-` reads. */
export interface InputSource {
  readonly cwd: string;
  readonly stdin: CliStdin;
}

/**
 * Where a path the user gave is, for the command line: resolved against its working folder (never
 * the process's, which a command run in-process does not share).
 *
 * @example
 * userPath({ cwd: "/work" }, "plans/a.json") // "/work/plans/a.json"
 */
export function userPath(from: Pick<InputSource, "cwd">, path: string): string {
  return resolve(from.cwd, path);
}

/**
 * Read a text input: a path to a regular file (relative to `from.cwd`), or `-` for stdin. Messages
 * name the path as given.
 *
 * @example
 * readTextInput("plan.json", { cwd: "/work", stdin: readStdin }) // the text of /work/plan.json
 */
export function readTextInput(path: string, from: InputSource, maxBytes = DEFAULT_MAX_INPUT_BYTES): string {
  if (path === "-") {
    const bytes = from.stdin(maxBytes);
    if (bytes.length > maxBytes) throw overLimit("<stdin>", maxBytes);
    return decodeUtf8(bytes, "<stdin>");
  }
  return decodeUtf8(readRegularFile(userPath(from, path), path, maxBytes), path);
}

function readRegularFile(file: string, path: string, maxBytes: number): Buffer {
  // Open first, then look at what was opened (fstat): no window in which the path can be swapped for a
  // FIFO or a device between the check and the read. O_NONBLOCK: opening a FIFO does not wait for a writer.
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(code === "ENOENT" ? `${path}: no such file` : `${path}: cannot read (${code ?? "error"})`, "file-not-found");
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) throw new CliError(`${path}: is a directory, not a file`, "not-a-file");
    if (!stats.isFile()) throw new CliError(`${path}: is not a regular file (devices, FIFOs and sockets are refused)`, "not-a-file");
    if (stats.size > maxBytes) throw new CliError(`${path}: is ${stats.size} bytes, over the limit of ${maxBytes} bytes`, "file-too-large");
    return readAll(fd, maxBytes, path);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? "error"})`, "file-unreadable");
  } finally {
    closeSync(fd);
  }
}

/** The process's stdin (file descriptor 0), read to its end: the default `CliStdin`. */
export function readStdin(maxBytes: number): Buffer {
  const stats = fstatSync(0);
  if (stats.isDirectory()) throw new CliError("<stdin>: is a directory", "not-a-file");
  return readAll(0, maxBytes, "<stdin>");
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Read until end of file, refusing to go past `maxBytes` (a file may grow after `stat`). */
function readAll(fd: number, maxBytes: number, name: string): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const chunk = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let read: number;
    try {
      read = readSync(fd, chunk, 0, chunk.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") {
        // A non-blocking stdin with no data yet: wait a little instead of spinning.
        Atomics.wait(pause, 0, 0, 10);
        continue;
      }
      if (code === "EOF") break;
      throw error;
    }
    if (read === 0) break;
    total += read;
    if (total > maxBytes) throw overLimit(name, maxBytes);
    chunks.push(Buffer.from(chunk.subarray(0, read)));
  }
  return Buffer.concat(chunks, total);
}

function overLimit(name: string, maxBytes: number): CliError {
  return new CliError(`${name}: input is over the limit of ${maxBytes} bytes`, "file-too-large");
}

/** Strict UTF-8: a byte order mark or an invalid byte is an error naming its line and column. */
export function decodeUtf8(bytes: Uint8Array, name: string): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    throw new CliError(`${name}:1:1: the file starts with a UTF-8 byte order mark; save it as UTF-8 without BOM`, "utf8-bom");
  }
  const bad = firstInvalidUtf8(bytes);
  if (bad >= 0) {
    const before = new TextDecoder("utf-8").decode(bytes.subarray(0, bad));
    const { line, column } = new LineIndex(before).position(before.length);
    throw new CliError(
      `${name}:${line}:${column}: invalid UTF-8 (byte 0x${bytes[bad]!.toString(16).padStart(2, "0")} at byte offset ${bad})`,
      "invalid-utf8",
    );
  }
  return new TextDecoder("utf-8").decode(bytes);
}

/** The offset of the first byte that is not part of well-formed UTF-8, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    let code = b & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      code = (code << 6) | (c & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}
