/**
 * Quick fixes: for each diagnostic of a plan's text whose fix the linter knows (a "did you mean", a
 * missing argument, a step number with leading zeros), the text edits that apply it. The language
 * server's code actions and CodeMirror's lint actions are both made from these.
 */
import { lintPlanText } from "../lint/lint-plan.js";
import { jsonc, type JsoncNode } from "../plan/jsonc.js";
import type { Diagnostic } from "../shared/diagnostic.js";
import { pointerTokens } from "../shared/pointer.js";
import { excerpt, quoted } from "../shared/text.js";
import { jsonEscape } from "./completion.js";
import type { EditorOptions } from "./editor-options.js";
import { withFallback } from "./guard.js";
import type { TextEdit } from "./rename.js";

/** One fix of one diagnostic. */
export interface QuickFix {
  /** What the fix does, for a menu: `Change to "longitude"`. */
  readonly title: string;
  /** The diagnostic it fixes (with its file offsets). */
  readonly diagnostic: Diagnostic;
  /** The edits, in document order, that do not overlap. */
  readonly edits: readonly TextEdit[];
}

/**
 * The quick fixes of a plan's text: lint it (with the same options as `lintPlanText`) and, for each
 * diagnostic that carries a fix, its edits. Never throws.
 *
 * @example
 * const [fix] = quickFixes('{ "steps": [ { "id": 1, "tool": "t", "args": { "q": "$01" } } ] }')
 * applyTextEdits(text, fix.edits) // "$01" is now "$1"
 */
export function quickFixes(planText: string, options?: EditorOptions): QuickFix[] {
  return withFallback("quickFixes", [], () => fixesOf(planText, lintPlanText(planText, options)));
}

/**
 * The quick fixes of diagnostics `lintPlanText` gave for `planText` (for a caller that has them
 * already). Never throws.
 *
 * @example
 * fixesOf(text, lintPlanText(text, { tools })).map((fix) => fix.title) // ['Change to "longitude"']
 */
export function fixesOf(planText: string, diagnostics: readonly Diagnostic[]): QuickFix[] {
  return withFallback("quickFixes", [], () => {
    const fixes: QuickFix[] = [];
    let tree: JsoncNode | undefined;
    for (const diagnostic of diagnostics) {
      const fix = diagnostic.fix;
      if (fix === undefined || diagnostic.offset === undefined) continue;
      if ("replace" in fix) {
        const { start, end } = diagnostic.offset;
        const token = diagnostic.span === undefined && planText.charCodeAt(start) === 34;
        const newText = token ? JSON.stringify(fix.replace) : jsonEscape(fix.replace);
        fixes.push({
          title: `Change to ${token ? quoted(fix.replace, 60) : excerpt(fix.replace, 60)}`,
          diagnostic,
          edits: [{ span: { start, end }, newText }],
        });
        continue;
      }
      tree ??= jsonc.parseTree(planText, [], { disallowComments: true });
      const edit = tree === undefined ? undefined : insertProperties(tree, diagnostic.pointer, fix.add);
      if (edit !== undefined)
        fixes.push({ title: `Add ${fix.add.map(({ name }) => quoted(name, 40)).join(", ")}`, diagnostic, edits: [edit] });
    }
    return fixes;
  });
}

/**
 * The edit that adds `properties` to the object at `pointer`; when that is a step without `args`,
 * an `args` object holding them.
 */
function insertProperties(
  tree: JsoncNode,
  pointer: string,
  properties: readonly { readonly name: string; readonly value: unknown }[],
): TextEdit | undefined {
  const path = pointerTokens(pointer).map((token) => (/^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : token));
  const node = jsonc.findNodeAtLocation(tree, path);
  if (node === undefined || node.type !== "object") return undefined;
  const members = properties.map(({ name, value }) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`).join(", ");
  const isStep =
    path.length > 0 &&
    typeof path[path.length - 1] === "number" &&
    jsonc.findNodeAtLocation(node, ["args"]) === undefined &&
    jsonc.findNodeAtLocation(node, ["tool"]) !== undefined;
  const content = isStep ? `"args": { ${members} }` : members;
  const last = node.children?.[node.children.length - 1];
  if (last === undefined) {
    // `{}` or `{ }`: write inside the braces.
    const close = node.offset + node.length - 1;
    return { span: { start: node.offset + 1, end: close }, newText: ` ${content} ` };
  }
  const at = last.offset + last.length;
  return { span: { start: at, end: at }, newText: `, ${content}` };
}
