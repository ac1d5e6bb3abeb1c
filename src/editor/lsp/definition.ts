/** Go to definition and find references: a reference leads to its step, a step to its references. */
import type { DefinitionParams, Location, ReferenceParams } from "vscode-languageserver/node";
import { definitionAt, referencesTo, stepAt } from "../definition.js";
import { analyzePlan } from "../plan-document.js";
import { planAt, toRange, type ServerContext } from "./context.js";

/**
 * The step a reference at a position refers to; `null` where there is none.
 *
 * @example
 * connection.onDefinition((params) => context.runHandler("definition", null, () => definition(context, params)))
 */
export function definition(context: ServerContext, params: DefinitionParams): Location | null {
  const request = planAt(context, params.textDocument.uri, params.position);
  const span = request === undefined ? undefined : definitionAt(request.text, request.offset, context.editorOptions(request.document));
  if (request === undefined || span === undefined) return null;
  return { uri: request.document.uri, range: toRange(request.document, span) };
}

/**
 * Every reference to the step at a position (a reference or the step's id), and the step's id when
 * the client asks for the declaration; `null` where there is no step.
 *
 * @example
 * connection.onReferences((params) => context.runHandler("references", null, () => references(context, params)))
 */
export function references(context: ServerContext, params: ReferenceParams): Location[] | null {
  const request = planAt(context, params.textDocument.uri, params.position);
  if (request === undefined) return null;
  const { document, text, offset } = request;
  const options = context.editorOptions(document);
  const target = stepAt(text, offset, options);
  if (target === undefined) return null;
  const locations: Location[] = [];
  if (params.context.includeDeclaration) {
    for (const step of analyzePlan(text, options).steps) {
      if (step.id === target.stepId && step.idNode !== undefined) {
        locations.push({
          uri: document.uri,
          range: toRange(document, { start: step.idNode.offset, end: step.idNode.offset + step.idNode.length }),
        });
      }
    }
  }
  for (const span of referencesTo(text, target.stepId, options)) locations.push({ uri: document.uri, range: toRange(document, span) });
  return locations;
}
