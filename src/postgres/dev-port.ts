/**
 * The port of a development database (`plan-refs db start`) whose folder does not name another: its
 * own file, so that the command's help reads it without loading the server's code.
 */

/**
 * The default port of a development database (`--port` changes it, and it is kept with the data).
 *
 * @example
 * `postgres://…@127.0.0.1:${DEV_DATABASE_PORT}/postgres`
 */
export const DEV_DATABASE_PORT = 54329;
