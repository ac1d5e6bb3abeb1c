/**
 * The parser's memo of the last options object: callers pass the same options (a constant) again and
 * again, and validating them on every string would cost more than a cache hit.
 */
import { asRefError } from "../shared/errors.js";
import { normalizeOptions, type NormalizedOptions, type ResolveOptions } from "../shared/options.js";

/** The last options object normalized, with a copy of its fields, to skip validating the same options again. */
let lastOptions: ResolveOptions | undefined;
let lastCopy: ResolveOptions | undefined;
let lastNormalized: NormalizedOptions | undefined;

function sameFields(a: ResolveOptions, b: ResolveOptions): boolean {
  return (
    a.syntax === b.syntax &&
    a.templates === b.templates &&
    a.strict === b.strict &&
    a.maxRefLength === b.maxRefLength &&
    a.maxSegments === b.maxSegments &&
    a.maxInterpolations === b.maxInterpolations &&
    a.deep === b.deep &&
    a.maxDepth === b.maxDepth &&
    a.maxPlaceholders === b.maxPlaceholders &&
    a.maxOutputLength === b.maxOutputLength
  );
}

/** `normalizeOptions`, remembering the last object: every field is compared, so an object changed since is normalized afresh. */
export function normalizedOf(options: ResolveOptions | undefined): NormalizedOptions {
  if (options === undefined || options === null || typeof options !== "object") return normalizeOptions(options);
  try {
    // Every field is compared, so an options object changed since the last call is normalized afresh.
    if (options === lastOptions && sameFields(options, lastCopy!)) return lastNormalized!;
    // Each field is read once (a getter may answer differently each time): the copy is what gets normalized.
    const { syntax, templates, strict, maxRefLength, maxSegments, maxInterpolations, deep, maxDepth, maxPlaceholders, maxOutputLength } = options;
    const copy = { syntax, templates, strict, maxRefLength, maxSegments, maxInterpolations, deep, maxDepth, maxPlaceholders, maxOutputLength };
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
