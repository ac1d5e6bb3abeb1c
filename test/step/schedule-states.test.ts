/**
 * The SQL of the workers applies the rules of src/step/schedule.ts to states in the database through
 * the state lists schedule.ts exports beside its predicates: each list is exactly the states its
 * predicate holds for (settle_done's counters also take a dependency to let its dependent start once done alone).
 */
import { expect, test } from "vitest";
import {
  ACTIVE_STATES,
  AWAITING_STATES,
  endedStatus,
  isAwaitingApproval,
  isReady,
  isSettled,
  LETS_START_STATES,
  onStop,
  READY_FROM_STATES,
  SETTLED_STATES,
  STEP_STATES,
} from "../../src/step/schedule.js";

test.each([
  ["SETTLED_STATES", SETTLED_STATES, isSettled],
  ["READY_FROM_STATES", READY_FROM_STATES, (state: (typeof STEP_STATES)[number]) => isReady(state, [], () => undefined)],
  ["LETS_START_STATES", LETS_START_STATES, (state: (typeof STEP_STATES)[number]) => isReady("waiting", [0], () => state)],
  // Still to be run by a worker: not settled, not waiting on a dependency nor for a person.
  [
    "ACTIVE_STATES",
    ACTIVE_STATES,
    (state: (typeof STEP_STATES)[number]) => !isSettled(state) && state !== "waiting" && !isAwaitingApproval(state),
  ],
  ["AWAITING_STATES", AWAITING_STATES, isAwaitingApproval],
] as const)("%s lists the states its rule holds for", (_name, list, rule) => {
  expect([...list]).toEqual(STEP_STATES.filter(rule));
});

test("stopping a run aborts a running step and skips one not started (the states a stop reads)", () => {
  expect(STEP_STATES.filter((state) => onStop(state) === "abort")).toEqual(["running"]);
  expect(LETS_START_STATES).toEqual(["done"]);
});

test("a run ends suspended once only steps waiting for approval (and what waits on them) are left; a stop keeps them waiting", () => {
  expect(STEP_STATES.filter((state) => onStop(state) === "keep")).toEqual(["done", "failed", "skipped", "awaiting-approval"]);
  expect(endedStatus(["done", "awaiting-approval", "waiting"], undefined, [])).toBe("suspended");
  expect(endedStatus(["failed", "awaiting-approval"], undefined, [])).toBe("suspended");
  expect(endedStatus(["awaiting-approval", "running"], undefined, [])).toBeUndefined();
  expect(endedStatus(["done", "waiting"], undefined, [])).toBeUndefined();
  expect(endedStatus(["done", "failed", "skipped"], undefined, [])).toBe("failed");
  expect(endedStatus(["awaiting-approval", "failed"], "failed", [])).toBe("failed");
  expect(endedStatus(["awaiting-approval"], "aborted", [])).toBe("aborted");
});
