/**
 * The parse cache and who gets into it (admission). One concern: which strings' outcomes are kept for
 * later calls, and how much memory that may take. What an outcome is, is classify.ts's business.
 */
import { RefError } from "../shared/errors.js";
import { BoundedCache } from "./cache.js";
import type { Outcome } from "./outcome.js";

/** The outcomes of one string in the four syntax modes (seed, seed+templates, path, path+templates). */
type CacheEntry = (Outcome | undefined)[];

/** Default bound of the parse cache (entries). */
export const DEFAULT_PARSE_CACHE_SIZE = 10_000;
/** Strings longer than this are parsed every time rather than cached, so the cache's memory stays bounded. */
const CACHEABLE_LENGTH = 512;
/** Keyed by the text itself: a string keeps its hash, so a hit costs one `Map.get`. */
const cache = new BoundedCache<CacheEntry>(DEFAULT_PARSE_CACHE_SIZE);
/**
 * Admission (as in TinyLFU): a placeholder the scanner parses is cached the second time it is seen,
 * not the first. Scanning costs about as much as a regular expression, while caching every fresh
 * string (an id in every argument) would churn the cache and the garbage collector for strings never
 * seen again. The doorkeeper is a fixed table of string hashes: no allocation, nothing retained. A
 * collision only caches a string one sighting early, an overwritten slot one sighting late. Whatever
 * needs the grammar (templates, near-misses) is cached at once.
 */
const DOORKEEPER_SLOTS = 1 << 14;
const doorkeeper = new Int32Array(DOORKEEPER_SLOTS);

/** Whether `text` was (probably) seen since its slot was last taken; marks it seen. */
function seenBefore(text: string): boolean {
  // FNV-1a over the UTF-16 code units; 0 marks an empty slot, so no hash is 0.
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  // Murmur3's finalizer: FNV alone leaves short strings' hashes clustered.
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  hash = (hash ^ (hash >>> 16)) | 1;
  const slot = hash >>> 18;
  if (doorkeeper[slot] === hash) return true;
  doorkeeper[slot] = hash;
  return false;
}

/** Whether `text` may be cached at all (short enough). */
export function cacheable(text: string): boolean {
  return text.length <= CACHEABLE_LENGTH;
}

/** The cached outcome of `text` (a cacheable string) in syntax mode `mode`, if any: one `Map.get` on a hit. */
export function cachedOutcome(text: string, mode: number): Outcome | undefined {
  return cache.get(text)?.[mode];
}

/**
 * Offer the outcome of `text` (a cacheable string) in syntax mode `mode` to the cache; `cheap` when
 * the scanner parsed it (or it is a plain literal). Returns whether it was kept: a kept outcome is
 * shared by every later caller, so the caller must freeze what it holds.
 */
export function admit(text: string, mode: number, outcome: Outcome, cheap: boolean): boolean {
  let entry = cache.get(text);
  if (entry === undefined && cheap && !seenBefore(text)) return false;
  if (entry === undefined) {
    entry = [undefined, undefined, undefined, undefined];
    cache.set(text, entry);
  }
  entry[mode] = outcome;
  return true;
}

/**
 * Set how many parsed strings the cache keeps (0 turns caching off). Returns the previous bound.
 * The cache never holds more entries than this bound, and strings longer than 512 characters are
 * never cached, so its memory is bounded whatever goes through the parser.
 *
 * @example
 * setParseCacheSize(50_000) // 10000, the default
 */
export function setParseCacheSize(maxEntries: number): number {
  if (!Number.isInteger(maxEntries) || maxEntries < 0)
    throw new RefError("invalid-options", "the parse cache size must be a non-negative integer");
  const previous = cache.maxEntries;
  cache.resize(maxEntries);
  return previous;
}

/**
 * How many strings the parse cache holds now, and its bound.
 *
 * @example
 * parseCacheStats() // { size: 12, maxEntries: 10000 }
 */
export function parseCacheStats(): { size: number; maxEntries: number } {
  return { size: cache.size, maxEntries: cache.maxEntries };
}

/**
 * Empty the parse cache.
 *
 * @example
 * clearParseCache()
 * parseCacheStats().size // 0
 */
export function clearParseCache(): void {
  cache.clear();
  doorkeeper.fill(0);
}
