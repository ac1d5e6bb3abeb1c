/**
 * The postgres subpath as the commands load it (only when they need it), and its errors as the
 * command line's.
 */
import { CliError } from "./input.js";

/** The postgres subpath, loaded only by the commands that use it. */
export async function loadPostgres(): Promise<typeof import("../postgres/index.js")> {
  return import("../postgres/index.js");
}

/** A PostgresError as the command line's one-line error (exit 2); anything else goes on. */
export async function asCliError(error: unknown): Promise<unknown> {
  const { PostgresError } = await loadPostgres();
  if (error instanceof PostgresError) return new CliError(error.message, error.code);
  return error;
}
