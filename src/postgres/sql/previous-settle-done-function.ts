/**
 * The previous release's `settle_done`, kept while a fleet is upgraded (see `DROPPED_SETTLE_DONE_ARGS`
 * in settle-done-function.ts for the versions).
 */
import type { Connection } from "../db.js";
import { settleDoneName } from "./settle-done-function.js";

/** The argument types of the previous release's `settle_done` (deprecated; a thin wrapper over the current one). */
export const PREVIOUS_SETTLE_DONE_ARGS = "text, bigint, integer, json, bigint[], text[], text, text, text";

/**
 * The previous release's `settle_done` (nine arguments, returning whether the result was stored), for
 * its workers still running while a fleet is upgraded: the current function with no worker to take a
 * dependent (`p_take` null: every dependent made ready is queued, as that release did).
 */
export function previousSettleDoneFunctionSql(connection: Connection): string {
  return `create or replace function ${settleDoneName(connection)}(
      p_run text, p_step bigint, p_attempt integer, p_result json, p_candidates bigint[], p_ready_from text[], p_clean text, p_with_failures text, p_suspended text)
    returns boolean language sql as $previous$
      select stored from ${settleDoneName(connection)}(p_run, p_step, p_attempt, p_result, p_candidates, p_ready_from, p_clean, p_with_failures, p_suspended, null::text, null::text[])
    $previous$`;
}
