/**
 * Document URIs as the language server reads them: the path of a URI, and the file of a `file:` URI on
 * this machine. Neither function throws.
 */
import { fileURLToPath } from "node:url";

/** The path of a document URI (a local `file:` URI's file path; otherwise the URI's path part). */
export function uriPath(uri: string): string {
  const local = localPath(uri);
  if (local !== undefined) return local;
  try {
    return new URL(uri).pathname;
  } catch {
    return uri;
  }
}

/**
 * The file path of a `file:` URI on this machine (no host, or `localhost`); `undefined` for any other
 * URI, `file://host/…` included (a file on another machine, whatever the platform would make of it).
 * Never throws.
 *
 * @example
 * localPath("file:///home/me/trip.plan.json") // "/home/me/trip.plan.json"
 * localPath("file://server/share/trip.plan.json") // undefined
 */
export function localPath(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    const url = new URL(uri);
    if (url.hostname !== "" && url.hostname !== "localhost") return undefined;
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}
