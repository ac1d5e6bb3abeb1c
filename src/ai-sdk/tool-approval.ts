/**
 * The AI SDK's approval rules applied to the steps of a plan, as the SDK applies them to a direct call
 * (its `resolveToolApproval`): the call's `toolApproval` (ai 7's option of `generateText`,
 * `streamText` and `ToolLoopAgent`) first — one function for every call, or an entry per tool — and,
 * where it says nothing about a tool, the tool's own `needsApproval`. Each step is asked with its
 * resolved arguments when its turn comes: `'user-approval'` holds it for a person (the plan answers
 * `suspended`), `'denied'` fails it (`denied`, with the reason), `'approved'` and `'not-applicable'`
 * run it. An answer that is none of those fails the step too: a rule that cannot be read never runs a
 * tool.
 */
import type { ToolSet } from "ai";
import { RefError } from "../shared/errors.js";
import { isPlainObject, ownData } from "../shared/own-data.js";
import { quoted, safeText } from "../shared/text.js";
import { denyCall, type ToolApproval } from "../step/gated.js";

/** The statuses of ai 7's `ToolApprovalStatus`. */
export const APPROVAL_STATUSES = ["not-applicable", "approved", "denied", "user-approval"] as const;

/** A status, or its object form (`{ type: "denied", reason: "blocked by policy" }`). */
export type AiSdkApprovalStatus =
  (typeof APPROVAL_STATUSES)[number] | { readonly type: (typeof APPROVAL_STATUSES)[number]; readonly reason?: string };

/* eslint-disable @typescript-eslint/no-explicit-any -- the application's own typed rules (over its tools' inputs and its context types) must be assignable here */
/** ai 7's `SingleToolApprovalFunction`: one tool's rule, asked with the step's resolved arguments. */
export type AiSdkSingleToolApproval = (
  input: any,
  options: { toolCallId: string; messages: any[]; toolContext: any; runtimeContext: any },
) => AiSdkApprovalStatus | undefined | PromiseLike<AiSdkApprovalStatus | undefined>;

/** ai 7's `GenericToolApprovalFunction`: one rule for every call. */
export type AiSdkGenericToolApproval = (options: {
  toolCall: { type: "tool-call"; toolCallId: string; toolName: string; input: any };
  tools: any;
  toolsContext: any;
  messages: any[];
  runtimeContext: any;
}) => AiSdkApprovalStatus | undefined | PromiseLike<AiSdkApprovalStatus | undefined>;
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * ai 7's `ToolApprovalConfiguration`: give a plan tool the `toolApproval` you give `generateText`,
 * so that a tool gated there is gated inside a plan too.
 */
export type AiSdkToolApproval = AiSdkGenericToolApproval | Readonly<Record<string, AiSdkApprovalStatus | AiSdkSingleToolApproval>>;

/**
 * What a step's call is made and asked about with besides its arguments: the plan call's messages and
 * `experimental_context` (ai 6), the application's `runtimeContext` and `toolsContext` (ai 7).
 */
export interface ApprovalScope {
  readonly messages: readonly unknown[];
  readonly experimentalContext?: unknown;
  readonly runtimeContext?: unknown;
  readonly toolsContext?: Readonly<Record<string, unknown>>;
}

/** The rules of one tool set, read and checked once. */
export interface ReadApproval {
  readonly config: AiSdkToolApproval | undefined;
  readonly tools: ToolSet;
}

/** Check a `toolApproval` option: a function, or an object whose entries are statuses or functions. Throws `invalid-options`. */
export function readToolApproval(value: unknown, what: string): AiSdkToolApproval | undefined {
  if (value === undefined || typeof value === "function") return value as AiSdkToolApproval | undefined;
  if (!isPlainObject(value))
    throw new RefError("invalid-options", `${what}: option toolApproval must be a function or an object of statuses by tool name`);
  for (const name of Object.keys(value)) {
    const entry = ownData(value, name);
    if (entry === undefined || entry === null || typeof entry === "function" || statusOf(entry) !== undefined) continue;
    throw new RefError(
      "invalid-options",
      `${what}: toolApproval's entry for tool ${quoted(name, 40)} must be one of ${APPROVAL_STATUSES.map((status) => `"${status}"`).join(", ")}, an object { type, reason }, or a function`,
    );
  }
  return value as AiSdkToolApproval;
}

/** A status as `{ type, reason }`, or `undefined` when it is none (`undefined` itself is `not-applicable`, as in the SDK). */
function statusOf(value: unknown): { readonly type: string; readonly reason?: string } | undefined {
  if (value === undefined) return { type: "not-applicable" };
  const type = typeof value === "string" ? value : ownData(value, "type");
  if (typeof type !== "string" || !(APPROVAL_STATUSES as readonly string[]).includes(type)) return undefined;
  const reason = typeof value === "string" ? undefined : ownData(value, "reason");
  return typeof reason === "string" ? { type, reason } : { type };
}

/** The reason of a denial that gave none (the step's error names the step and its tool). */
const DENIED = "denied by toolApproval";

/** What a status means for the step: `true` hold it, `false` run it, or its denial. */
function decide(value: unknown): unknown {
  const status = statusOf(value);
  if (status === undefined)
    return denyCall(`toolApproval answered ${safeText(String(value), 60)}, which is not one of ${APPROVAL_STATUSES.join(", ")}`);
  switch (status.type) {
    case "user-approval":
      return true;
    case "denied":
      return denyCall(status.reason ?? DENIED);
    default:
      return false;
  }
}

/** The answer of a rule, decided once it is known (a promise's once it settles). */
function decided(answer: unknown): unknown {
  const then =
    (typeof answer === "object" && answer !== null) || typeof answer === "function" ? (answer as { then?: unknown }).then : undefined;
  return typeof then === "function" ? Promise.resolve(answer).then(decide) : decide(answer);
}

/**
 * The approval rule of one tool of the set (for `requireApproval`), `true` where every call waits, or
 * `undefined` where its calls run without asking; `toolCallId` names a step's call, `scope` is read
 * when a step is asked about.
 *
 * @example
 * approvalFor({ config: { pay: "user-approval" }, tools }, "pay", tools.pay, (id) => `run:${id}`, () => scope) // true
 */
export function approvalFor(
  read: ReadApproval,
  name: string,
  needsApproval: true | ((input: unknown, options: { toolCallId: string; messages: unknown[]; context?: unknown }) => unknown) | undefined,
  toolCallId: (stepId: number) => string,
  scope: () => ApprovalScope,
): true | ToolApproval | undefined {
  const config = read.config;
  if (typeof config === "function") {
    return (args, step) => {
      const { messages, runtimeContext, toolsContext } = scope();
      const toolCall = { type: "tool-call" as const, toolCallId: toolCallId(step.id), toolName: name, input: args };
      return decided(config({ toolCall, tools: read.tools, toolsContext, messages: [...messages], runtimeContext }));
    };
  }
  const entry: unknown = config === undefined ? undefined : ownData(config, name);
  if (entry !== undefined && entry !== null) {
    if (typeof entry !== "function") {
      const status = decide(entry);
      return status === true ? true : status === false ? undefined : () => status;
    }
    return (args, step) => {
      const { messages, runtimeContext, toolsContext } = scope();
      const options = {
        toolCallId: toolCallId(step.id),
        messages: [...messages],
        toolContext: ownData(toolsContext, name),
        runtimeContext,
      };
      return decided((entry as AiSdkSingleToolApproval)(args, options));
    };
  }
  if (needsApproval === undefined || needsApproval === true) return needsApproval;
  return (args, step) => {
    const { messages, toolsContext } = scope();
    return needsApproval(args, { toolCallId: toolCallId(step.id), messages: [...messages], context: ownData(toolsContext, name) });
  };
}
