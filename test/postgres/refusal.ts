/** What a call of plan-refs/postgres that must be refused rejects with: a PostgresError (the test fails otherwise). */
import { expect } from "vitest";
import { PostgresError } from "../../src/postgres/index.js";

export async function refusal(promise: Promise<unknown>): Promise<PostgresError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PostgresError);
  return error as PostgresError;
}
