/**
 * `plan-refs/agents`: a whole plan as one tool call, for any agent framework — what `plan-refs/ai-sdk`,
 * `plan-refs/openai-agents` and `plan-refs/mcp` are built on. Read the call's options, describe the
 * plan language to the model from a catalog, run the model's plan and answer with the shared
 * plan-call answer (bounded, results cut to a named limit).
 *
 * @example
 * ```ts
 * const tools = { add: ({ a, b }: { a: number; b: number }) => a + b };
 * const catalog = { add: { input: { type: "object" } } };
 * const description = planCallDescription(catalog, {});
 * const answer = await runPlanCall({ steps: [{ id: 1, tool: "add", args: { a: 1, b: 2 } }] }, { tools, catalog }, {});
 * // answer.status === "ok", answer.results === { "1": 3 }
 * ```
 */
export {
  cutResult,
  DEFAULT_INLINE_RESULT_CHARS,
  DEFAULT_MAX_ANSWER_CHARS,
  DEFAULT_MAX_RESULT_CHARS,
  DEFAULT_MAX_STEPS,
  planCallDescription,
  readPlanCallOptions,
  runPlanCall,
  type DescribedResult,
  type PlanCall,
  type PlanCallDecision,
  type PlanCallDiagnostic,
  type PlanCallOptions,
  type PlanCallResult,
  type PlanCallStatus,
  type ReadPlanCallOptions,
} from "./plan-call.js";
