/** The types of runtimes-fixture.mjs (a script node runs as it is, so JavaScript with this beside it). */
export declare const fixture: string;
export declare const modules: string;
/**
 * `npm ci` in test/runtimes unless its node_modules was installed from this very lock file.
 * @example installRuntimes((line) => process.stdout.write(line));
 */
export declare function installRuntimes(log?: (line: string) => void): void;
