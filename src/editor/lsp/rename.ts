/**
 * Rename a step: from its id or from any reference to it, the id and every reference change together.
 * A new name that is not a step id, or the id of another step, is refused with `InvalidParams`.
 */
import {
  ErrorCodes,
  ResponseError,
  type PrepareRenameParams,
  type Range as LspRange,
  type RenameParams,
  type WorkspaceEdit,
} from "vscode-languageserver/node";
import { referencesTo, stepAt } from "../definition.js";
import { analyzePlan } from "../plan-document.js";
import { renameStep } from "../rename.js";
import { planAt, toRange, type ServerContext } from "./context.js";
import { cutText } from "../../shared/text.js";

const STEP_ID = /^(?:0|[1-9][0-9]*)$/;

/**
 * The range to rename and its current id, when the position is on a step's id or on a well-formed
 * reference to an existing step; `null` otherwise.
 *
 * @example
 * connection.onPrepareRename((params) => context.runHandler("prepare rename", null, () => prepareRename(context, params)))
 */
export function prepareRename(context: ServerContext, params: PrepareRenameParams): { range: LspRange; placeholder: string } | null {
  const request = planAt(context, params.textDocument.uri, params.position);
  if (request === undefined) return null;
  const { document, text, offset } = request;
  const options = context.editorOptions(document);
  const target = stepAt(text, offset, options);
  if (target === undefined || !target.exists) return null;
  // A malformed string is not a reference: renaming from it would leave it as it is.
  const renamable = target.declaration || referencesTo(text, target.stepId, options).some((span) => span.start === target.span.start);
  return renamable ? { range: toRange(document, target.span), placeholder: String(target.stepId) } : null;
}

/**
 * The edits that rename the step at a position to `params.newName`. The new name is checked before
 * the guard (`context.runHandler`) runs the rename itself, so a refusal is always an error response.
 *
 * @example
 * connection.onRenameRequest((params) => rename(context, params))
 */
export function rename(context: ServerContext, params: RenameParams): WorkspaceEdit | ResponseError | null {
  const request = planAt(context, params.textDocument.uri, params.position);
  if (request === undefined) return null;
  const { document, text, offset } = request;
  const newName = params.newName.trim();
  const newId = Number(newName);
  if (!STEP_ID.test(newName) || !Number.isSafeInteger(newId)) {
    return new ResponseError(ErrorCodes.InvalidParams, `a step id is a non-negative integer, not "${cutText(newName, 20)}"`);
  }
  return context.runHandler("rename", null, () => {
    const options = context.editorOptions(document);
    const target = stepAt(text, offset, options);
    if (target === undefined || !target.exists) return null;
    if (target.stepId !== newId && analyzePlan(text, options).byId.has(newId)) {
      return new ResponseError(ErrorCodes.InvalidParams, `step ${newId} already exists`);
    }
    const edits = renameStep(text, target.stepId, newId, options).map((edit) => ({
      range: toRange(document, edit.span),
      newText: edit.newText,
    }));
    return { changes: { [document.uri]: edits } };
  });
}
