/**
 * CodedError: the one base of the integrations' errors — each keeps its own name, its code and its
 * cause, and is still an Error and a CodedError.
 */
import { expect, test } from "vitest";
import { McpCallError, McpSetupError } from "../../src/mcp/errors.js";
import { PostgresError } from "../../src/postgres/errors.js";
import { CodedError } from "../../src/shared/errors.js";

test.each([
  ["McpSetupError", () => new McpSetupError("missing-sdk", "one line", { cause: 1 })],
  ["McpCallError", () => new McpCallError("timeout", "one line", { cause: 1 })],
  ["PostgresError", () => new PostgresError("unknown-run", "one line", { cause: 1 })],
] as const)("%s is a CodedError with its own name, code, message and cause", (name, make) => {
  const error = make();
  expect(error).toBeInstanceOf(Error);
  expect(error).toBeInstanceOf(CodedError);
  expect(error.name).toBe(name);
  expect(String(error)).toBe(`${name}: one line`);
  expect(error.cause).toBe(1);
  expect(error.code).toMatch(/^[a-z]+(-[a-z]+)*$/);
});
