export interface EmbeddedDatabase {
  readonly url: string;
  readonly port: number;
  /** Stop the server (its data kept). */
  stop(): Promise<void>;
  /** Start it again after `stop`. */
  start(): Promise<void>;
  /** Stop it and remove its data. */
  remove(): Promise<void>;
}
export function freePort(): Promise<number>;
export function startEmbeddedPostgres(): Promise<EmbeddedDatabase>;
