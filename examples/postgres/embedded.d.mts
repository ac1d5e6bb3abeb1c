export interface EmbeddedDatabase {
  readonly url: string;
  readonly port: number;
  /** Where its server's code runs from: `startEmbeddedPostgres({ serverModule })` in another process runs from the same files. */
  readonly serverModule: string;
  /** Stop the server (its data kept). */
  stop(): Promise<void>;
  /** Start it again after `stop`. */
  start(): Promise<void>;
  /** Stop it and remove its data. */
  remove(): Promise<void>;
}
export function freePort(): Promise<number>;
export function startEmbeddedPostgres(options?: { readonly serverModule?: string }): Promise<EmbeddedDatabase>;
