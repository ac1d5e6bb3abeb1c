/**
 * `path-like-key`: a seed key that reads like a path. In the seed syntax (the default)
 * `"$1.hits[0].url"` is the one key `hits[0].url`, so a plan written for the path syntax without
 * `"options": {"syntax": "path"}` would lint clean and then fail at run time with `no key "hits[0].url"`.
 *
 * When it warns (the decision the issue left open):
 * - a key with a `[` always warns, unless the producer's output schema declares that very key: `[` is
 *   path syntax, hardly ever part of a real key;
 * - a key with a `.` but no `[` warns only when the producer's output schema declares the part before
 *   the first `.` (`address` for `address.city`) and not the whole key. Without a schema a `.` alone
 *   does not warn: some results do have keys such as `"user.name"`, and a warning on every dotted key
 *   would be noise.
 * When `unknown-key` (or `not-indexable`) is already reported for the reference, this warning is not
 * added: the `unknown-key` message carries the same hint.
 */
import type { ReferenceNode } from "../grammar/ast.js";
import type { LocatedStep } from "../plan/plan.js";
import { isPathLikeKey, pathSyntaxHint } from "../shared/path-hint.js";
import type { Span } from "../shared/span.js";
import { refLabel, type SchemaChecker } from "./check-schemas.js";
import { draft, type Draft } from "./draft.js";

/**
 * Push a `path-like-key` warning when the seed reference `node` (in the string `text`, reading the
 * result of `target`) has a key that reads like a path.
 *
 * @example
 * checkPathLike("$1.hits[0].url", node, target, undefined, { pointer: "/steps/1/args/u", step: 2 }, out)
 */
export function checkPathLike(
  text: string,
  node: ReferenceNode,
  target: LocatedStep,
  schemas: SchemaChecker | undefined,
  where: { readonly pointer: string; readonly step?: number | undefined },
  out: Draft[],
): void {
  if (node.syntax !== "seed" || node.path.length !== 1) return;
  const segment = node.path[0]!;
  if (segment.type !== "key") return;
  if (!isPathLikeKey(segment.name, schemas?.declaredOutputKeys(target.tool))) return;
  const span: Span = segment.span;
  out.push(draft("path-like-key", "warning", `${refLabel(text, node)}: ${pathSyntaxHint(segment.name)}`, { ...where, span }));
}
