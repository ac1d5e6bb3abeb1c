/** Freezing ASTs that are shared (the parse cache hands the same AST to every caller). */
import type { AstNode, RefAst } from "./ast.js";

/**
 * Freeze an AST deeply before it enters the cache, where every later caller shares it. An AST that is
 * not cached belongs to its caller alone and is left as built: freezing costs more than parsing.
 * Walks node by node in a loop (a chain of defaults may be thousands of nodes deep).
 */
export function freezeAst<T extends RefAst>(root: T): T {
  if (Object.isFrozen(root)) return root;
  const pending: AstNode[] = [root];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    Object.freeze(node.span);
    switch (node.type) {
      case "reference":
        pending.push(node.step, ...node.path);
        Object.freeze(node.path);
        break;
      case "default":
        pending.push(node.reference, node.fallback);
        break;
      case "template":
        pending.push(...node.parts);
        Object.freeze(node.parts);
        break;
      case "interpolation":
        pending.push(node.expression);
        break;
      default:
        break;
    }
    Object.freeze(node);
  }
  return root;
}
