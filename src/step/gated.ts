/**
 * Tools that need a person's approval before they run, marked on the tool function itself. The mark
 * travels with the function wherever it goes (`runPlan`, `resumePlan`, a plan tool, a PostgreSQL
 * worker), so a tool its framework declared with `needsApproval` can never be handed on as a plain
 * function that runs at once: every executor asks first. The mark is kept in a module-private
 * `WeakMap`, not on the function, so a plan or a tools object cannot forge or remove it.
 */
import { RefError } from "../shared/errors.js";
import type { ToolFunction } from "./attempt.js";

/**
 * Whether one call of a gated tool must first be approved, asked with the step's resolved arguments
 * (a copy of their top level): `true` (or a promise of it) holds the step for approval; `denyCall(reason)`
 * fails it at once (`denied`, nobody is asked); a throw or a rejection fails it (`denied`) too, so it
 * is never called without an answer.
 */
export type ToolApproval = (args: Record<string, unknown>, step: { readonly id: number; readonly tool: string }) => unknown;

const RULES = new WeakMap<object, ToolApproval>();
const ALWAYS: ToolApproval = () => true;

/** A rule's answer that one call must not run at all (`denyCall`). */
export interface CallDenial {
  readonly reason: string;
}

/** The denials `denyCall` made: an object that merely looks like one is an ordinary truthy answer (it holds the step). */
const DENIALS = new WeakSet<CallDenial>();

/**
 * What a `requireApproval` rule returns to refuse one call outright, as a policy does (the AI SDK's
 * `toolApproval` status `'denied'`): the step fails `denied` with `reason`, its tool is not called and
 * nobody is asked to approve it.
 *
 * @example
 * const pay = requireApproval(payFn, (args) => (Number(args.amount) > 10_000 ? denyCall("over the daily limit") : Number(args.amount) > 100));
 */
export function denyCall(reason: string): CallDenial {
  const denial = Object.freeze({ reason: String(reason) });
  DENIALS.add(denial);
  return denial;
}

/**
 * The denial a rule answered (`denyCall`), or `undefined` for any other answer.
 *
 * @example
 * denialOf(denyCall("blocked by policy"))?.reason // "blocked by policy"
 * denialOf(true)                                  // undefined
 */
export function denialOf(answer: unknown): CallDenial | undefined {
  return typeof answer === "object" && answer !== null && DENIALS.has(answer as CallDenial) ? (answer as CallDenial) : undefined;
}

/**
 * The same tool function, marked as needing approval: every step that calls it waits for a person
 * (`report.pending`, status `suspended`) until `resumePlan` approves it, exactly as `approvalTools`
 * makes it. With a rule, only the calls the rule holds wait. `false` returns the function unmarked.
 *
 * @example
 * const tools = { search, pay: requireApproval(pay, (args) => Number(args.amount) > 100) };
 * const report = await runPlan(plan, tools); // a payment over 100 waits: report.status "suspended"
 */
export function requireApproval<F extends ToolFunction>(fn: F, rule: boolean | ToolApproval = true): F {
  if (typeof fn !== "function") throw new RefError("invalid-options", "requireApproval takes a tool function");
  if (rule === false) return fn;
  if (rule !== true && typeof rule !== "function")
    throw new RefError("invalid-options", "requireApproval's rule must be a boolean or a function of the step's resolved arguments");
  RULES.set(fn, rule === true ? ALWAYS : rule);
  return fn;
}

/**
 * Whether a step of `tool` asks for approval before it runs, whatever its arguments, the rule of both
 * executors: its name is in the run's `approvalTools`, or its function `fn` is marked
 * (`requireApproval`, whose rule then answers). `runPlan` also asks its `needsApproval`.
 *
 * @example
 * asksApproval(new Set(["pay"]), "pay", pay) // true
 * asksApproval(undefined, "search", search)  // false: named nowhere, unmarked
 */
export function asksApproval(approvalTools: ReadonlySet<string> | undefined, tool: string, fn: unknown): boolean {
  return approvalTools?.has(tool) === true || approvalRuleOf(fn) !== undefined;
}

/**
 * The approval rule a tool function was marked with (`requireApproval`), or `undefined` for a tool
 * that runs without asking.
 *
 * @example
 * approvalRuleOf(requireApproval(async () => "sent")) !== undefined // true
 */
export function approvalRuleOf(fn: unknown): ToolApproval | undefined {
  return typeof fn === "function" ? RULES.get(fn) : undefined;
}
