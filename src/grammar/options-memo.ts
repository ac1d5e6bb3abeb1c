/**
 * The parser's memo of the last options object: callers pass the same options (a constant) again and
 * again, and validating them on every string would cost more than a cache hit.
 */
import { asRefError } from "../shared/errors.js";
import { normalizeOptions, OPTION_NAMES, sameOptionValues, type NormalizedOptions, type ResolveOptions } from "../shared/options.js";

/** The last options object normalized, with a copy of its fields, to skip validating the same options again. */
let lastOptions: ResolveOptions | undefined;
let lastCopy: ResolveOptions | undefined;
let lastNormalized: NormalizedOptions | undefined;

/** `normalizeOptions`, remembering the last object: every field is compared, so an object changed since is normalized afresh. */
export function normalizedOf(options: ResolveOptions | undefined): NormalizedOptions {
  if (options === undefined || options === null || typeof options !== "object") return normalizeOptions(options);
  try {
    // Every field is compared, so an options object changed since the last call is normalized afresh.
    if (options === lastOptions && sameOptionValues(options, lastCopy!)) return lastNormalized!;
    // Each field is read once (a getter may answer differently each time): the copy is what gets normalized.
    const copy: Record<string, unknown> = {};
    for (const name of OPTION_NAMES) copy[name] = options[name];
    const normalized = normalizeOptions(copy);
    lastCopy = copy;
    lastOptions = options;
    lastNormalized = normalized;
    return normalized;
  } catch (error) {
    // A getter or Proxy trap that throws: code `access`, with the original as cause.
    throw asRefError(error, "the options");
  }
}
