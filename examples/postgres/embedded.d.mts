export { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from "../../src/postgres/embedded.js";
