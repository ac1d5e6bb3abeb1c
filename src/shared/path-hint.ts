/**
 * One home for the "this seed key reads like a path" rule, shared by the linter (`path-like-key`, and
 * the hint on `unknown-key`) and the evaluator (the hint on a `missing-key` `KeyError`). In the seed
 * syntax (the default) `$1.hits[0].url` is the one key `hits[0].url`; an author who wrote it almost
 * always meant the path syntax, where it reads key `hits`, index 0, key `url`.
 */
import { quoted, safeText } from "./text.js";

/**
 * Where a seed key would split if it were read as a path: the offset of its first `.` or `[`, or -1
 * when it has neither (then it cannot be a path written in the wrong syntax).
 *
 * @example
 * pathLikeAt("hits[0].url") // 4
 * pathLikeAt("city") // -1
 */
export function pathLikeAt(key: string): number {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c === 0x2e || c === 0x5b) return i; // "." or "["
  }
  return -1;
}

/**
 * Whether a seed key reads like a path, given the keys the producer's output schema declares
 * (`undefined`: no schema known). The linter's rule for `path-like-key` and for the hint on
 * `unknown-key`: a `[` always (unless the schema declares the whole key); a `.` alone only when the
 * schema declares the part before it and not the whole key (some results do have keys such as
 * `"user.name"`, so without a schema a `.` is no evidence).
 *
 * @example
 * isPathLikeKey("hits[0].url", undefined) // true
 * isPathLikeKey("address.city", undefined) // false
 * isPathLikeKey("address.city", new Set(["address"])) // true
 */
export function isPathLikeKey(key: string, declared: ReadonlySet<string> | undefined): boolean {
  const at = pathLikeAt(key);
  if (at < 0 || declared?.has(key) === true) return false;
  if (key.includes("[")) return true; // `[` is path syntax, hardly ever part of a real key
  return declared !== undefined && declared.has(key.slice(0, at));
}

/**
 * The hint for a seed key that reads like a path: the same text in the linter's `path-like-key` and
 * `unknown-key` messages and in the evaluator's `missing-key` `KeyError`. `key` must contain a `.` or
 * `[` (see `pathLikeAt`). Untrusted text is escaped and truncated.
 *
 * @example
 * pathSyntaxHint("hits[0].url")
 * // 'in the seed syntax (the default) "hits[0].url" is one key, not a path; to read key "hits" and then [0].url, set the option syntax: "path" (in a plan: "options": {"syntax": "path"})'
 */
export function pathSyntaxHint(key: string): string {
  const at = pathLikeAt(key);
  const read = at <= 0 ? "to read it as a path" : `to read key ${quoted(key.slice(0, at), 30)} and then ${safeText(key.slice(at), 30)}`;
  return `in the seed syntax (the default) ${quoted(key, 40)} is one key, not a path; ${read}, set the option syntax: "path" (in a plan: "options": {"syntax": "path"})`;
}
