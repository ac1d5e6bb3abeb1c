/**
 * "Did you mean": the closest known name to a mistyped one, by edit distance with transpositions
 * (`ctiy` is one edit from `city`), bounded so that a huge schema or a long key stays cheap.
 */
import { asRefError } from "../shared/errors.js";

/** Names longer than this are not compared (a typo suggestion for them would not help anyway). */
const MAX_NAME = 64;
/** At most this many candidates are compared. */
const MAX_CANDIDATES = 2_000;

/**
 * The candidate closest to `name`, if one is close enough to be a likely typo: a case-insensitive
 * match, or at most one edit per three characters (at least one edit).
 *
 * @example
 * didYouMean("ctiy", ["city", "country"]) // "city"
 * didYouMean("zzz", ["city"])             // undefined
 */
export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  if (typeof name !== "string" || name.length > MAX_NAME) return undefined;
  try {
    return closest(name, candidates);
  } catch (error) {
    // Candidates that cannot be iterated (not iterable, a throwing Proxy or iterator): a RefError.
    throw asRefError(error, "the candidates");
  }
}

function closest(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  let compared = 0;
  for (const candidate of candidates) {
    if (++compared > MAX_CANDIDATES) break;
    if (
      typeof candidate !== "string" ||
      candidate === name ||
      candidate.length > MAX_NAME ||
      Math.abs(candidate.length - name.length) > limit
    )
      continue;
    const distance = candidate.toLowerCase() === lower ? 0 : editDistance(lower, candidate.toLowerCase(), limit);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transpositions), giving up with
 * `limit + 1` as soon as every cell of a row is over `limit`.
 *
 * @example
 * editDistance("ctiy", "city", 2) // 1
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      // A transposition needs two characters on each side. (At i or j = 1 the guard changes no outcome,
      // as charCodeAt(-1) is NaN and equals nothing: it is there for the reader, and for before[j - 2].)
      const pair = i > 1 && j > 1;
      if (pair && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        value = Math.min(value, before[j - 2]! + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}
