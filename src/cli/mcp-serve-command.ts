/**
 * `plan-refs mcp serve`: plan-refs as an MCP server over the tools of other MCP servers (`--mcp`,
 * `--mcp-url`) and of a module (`--tools`): `run_plan` runs a whole plan in one call, `lint_plan`
 * checks one. Over stdio (stdout carries the protocol, so nothing else is written there), or over
 * Streamable HTTP with `--http PORT`.
 */
import { CliError } from "./input.js";
import { FlagError, parseFlags, positiveInteger } from "./flags.js";
import { ATTEMPTS_FLAGS, attemptsFlag, RETRY_ALIAS_HELP } from "./attempts-flag.js";
import { readCatalog, type CommandIo } from "./io.js";
import { loadTools } from "./load-tools.js";
import { asCliError, MCP_HELP, MCP_OPTIONS, withMcpServers } from "./mcp-flags.js";
import { packageVersion } from "../shared/version.js";
import { readTextInput } from "./input.js";
import { DEFAULT_MAX_PLANS, DEFAULT_MAX_STEPS, PlanService, type PlanServerOptions } from "../mcp/plan-server.js";
import { isLoopback, servePlanHttp } from "../mcp/serve-http.js";
import { loadSdk } from "../mcp/sdk.js";
import { printable, quoted } from "../shared/text.js";
import { TRACE_FILE_FLAG, TRACE_FILE_HELP, withCliTracing } from "./tracing.js";
import type { ToolCatalog } from "../plan/plan.js";

export const mcpUsage =
  'usage: plan-refs mcp serve (--mcp "COMMAND" | --mcp-url URL | --tools MODULE [--catalog FILE])… [--mcp-timeout MS] [--http PORT [--host HOST] [--token-file FILE]] [--expose-tools] [--sessions] [--concurrency N] [--timeout MS] [--attempts N] [--max-steps N] [--trace-file FILE]';

export const mcpHelp = `${mcpUsage}

Serve plan-refs as an MCP server. Its tool run_plan takes a whole plan over the tools below, lints it
against their schemas (a plan with errors is not run: the answer is isError with the diagnostics) and
runs it, independent steps at the same time, each step's arguments resolved against the results so
far; lint_plan only checks a plan. A request with a progressToken gets a progress notification as
each step ends; a cancelled request aborts its run and the upstream calls in flight. When an
upstream server's tools change, the tools are listed again and the clients are told.

options:
  --tools MODULE        a JavaScript module whose exported functions are tools too
  --catalog FILE.json   schemas for the --tools functions; an entry for an upstream tool replaces the server's
${MCP_HELP}
                        The upstream servers are stopped when the server ends
  --http PORT           serve Streamable HTTP on 127.0.0.1:PORT (0: any free port) instead of stdio;
                        the endpoint's URL is printed on stderr (http://127.0.0.1:PORT/mcp)
  --host HOST           with --http: the address to bind; any other than loopback needs --token-file
  --token-file FILE     with --http: clients must send Authorization: Bearer <the file's token>
                        (at least 16 characters, compared in constant time)
  --expose-tools        also serve every upstream tool as it is (names, schemas, results passed through)
  --sessions            keep each client connection's results (one session per stdio connection or
                        HTTP session, closed with it): a later plan refers to an earlier plan's steps
                        by id ($3.items), and answers describe large results instead of sending them
  --concurrency N       most tools running at once in one plan (default 8)
  --timeout MS          fail a step that runs longer than MS milliseconds (default: no limit)
  --attempts N          try a failing step up to N times in all, the first try included (default 1:
                        no retry; 3 is a first try and two retries)
${RETRY_ALIAS_HELP}
  --max-steps N         refuse a plan of more than N steps (default ${DEFAULT_MAX_STEPS}); at most ${DEFAULT_MAX_PLANS} plans
                        run at once, further calls wait their turn
${TRACE_FILE_HELP}
  -h, --help            show this help

exit codes:
  0    stdin closed (over stdio): the client is gone
  2    usage errors, or an upstream server could not be started or listed; nothing was served
  129, 130, 143   ended by SIGHUP, SIGINT or SIGTERM (the upstream servers are stopped first)

examples:
  plan-refs mcp serve --mcp "node examples/mcp/server.mjs"

(a client's MCP configuration starts it so; add --http 0 to serve Streamable HTTP instead)
`;

/** Longest token file read. */
const MAX_TOKEN_BYTES = 4096;
/** Shortest token accepted: a guessable one guards nothing. */
const MIN_TOKEN_LENGTH = 16;

/** `--http PORT`: a whole number from 0 to 65535. */
function port(text: string): number {
  const value = Number(text);
  if (!/^[0-9]{1,5}$/.test(text) || value > 65_535)
    throw new FlagError(`--http must be a port number from 0 to 65535 (0: any free port), not ${quoted(text, 20)}`);
  return value;
}

function readToken(path: string, io: CommandIo): string {
  const token = readTextInput(path, io, MAX_TOKEN_BYTES).trim();
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token))
    throw new CliError(
      `--token-file ${printable(path)}: the token must be one word of at least ${MIN_TOKEN_LENGTH} characters`,
      "token-file",
    );
  return token;
}

/**
 * Run `plan-refs mcp serve …`: serve until stdin closes (stdio) or a signal ends the process.
 *
 * @example
 * await runCli(["mcp", "serve", "--mcp", "node server.mjs"], io) // serves on stdin/stdout
 */
export async function mcpCommand(argv: string[], io: CommandIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "serve")
    throw new FlagError(
      sub === undefined
        ? "missing the subcommand: plan-refs mcp serve"
        : `unknown subcommand ${quoted(sub, 40)}; plan-refs mcp has one: serve`,
    );
  const { values } = parseFlags(
    rest,
    {
      tools: { type: "string" },
      catalog: { type: "string" },
      http: { type: "string" },
      host: { type: "string" },
      "token-file": { type: "string" },
      "expose-tools": { type: "boolean" },
      sessions: { type: "boolean" },
      concurrency: { type: "string" },
      timeout: { type: "string" },
      ...ATTEMPTS_FLAGS,
      "max-steps": { type: "string" },
      ...MCP_OPTIONS,
      ...TRACE_FILE_FLAG,
    },
    { positionals: false },
  );
  if (values.tools === undefined && values.mcp === undefined && values["mcp-url"] === undefined)
    throw new CliError(`missing the tools to serve: --mcp "COMMAND", --mcp-url URL or --tools MODULE\n${mcpUsage}`, "usage");
  if (values.catalog !== undefined && values.catalog === "-")
    throw new CliError("--catalog cannot be read from stdin: stdin carries MCP", "usage");
  for (const flag of ["host", "token-file"] as const)
    if (values[flag] !== undefined && values.http === undefined) throw new FlagError(`--${flag} needs --http PORT`);
  const http = values.http === undefined ? undefined : port(values.http);
  const host = values.host ?? "127.0.0.1";
  if (http !== undefined && !isLoopback(host) && values["token-file"] === undefined) {
    throw new CliError(
      `--host ${printable(host)} is not a loopback address: serving on it needs --token-file FILE (the bearer token clients must send); nothing was served`,
      "token-required",
    );
  }
  const token = values["token-file"] === undefined ? undefined : readToken(values["token-file"], io);
  const retry = attemptsFlag(values);
  const concurrency = positiveInteger(values.concurrency, "--concurrency");
  const timeoutMs = positiveInteger(values.timeout, "--timeout");
  const maxSteps = positiveInteger(values["max-steps"], "--max-steps");
  const options: PlanServerOptions = {
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(retry === undefined ? {} : { retry: { attempts: retry } }),
    ...(maxSteps === undefined ? {} : { maxSteps }),
    exposeTools: values["expose-tools"] === true,
    sessions: values.sessions === true,
    serverInfo: { name: "plan-refs", version: packageVersion() },
    onWarning: (message) => io.stderr(`plan-refs mcp serve: ${printable(message)}\n`),
  };
  const catalog: ToolCatalog | undefined = values.catalog === undefined ? undefined : readCatalog(values.catalog, io);
  const guarded = [
    ...(values.tools === undefined ? [] : [{ path: values.tools, role: "the tools module" }]),
    ...(values.catalog === undefined ? [] : [{ path: values.catalog, role: "the tool catalog" }]),
    ...(values["token-file"] === undefined ? [] : [{ path: values["token-file"], role: "the token file" }]),
  ];
  return withCliTracing(io, values["trace-file"], guarded, async () => {
    const module = values.tools === undefined ? undefined : await loadTools(values.tools, io);
    return withMcpServers(values, io, async (servers) => {
      let service: PlanService;
      try {
        service = await PlanService.create({
          clients: servers?.connections ?? [],
          ...(module === undefined ? {} : { tools: module.tools }),
          ...(catalog === undefined ? {} : { catalog }),
          options,
        });
      } catch (error) {
        throw asCliError(error, io.signal);
      }
      try {
        if (http !== undefined) {
          let listening: Awaited<ReturnType<typeof servePlanHttp>>;
          try {
            listening = await servePlanHttp(service, { port: http, host, ...(token === undefined ? {} : { token }) });
          } catch (error) {
            throw asCliError(error, io.signal);
          }
          io.stderr(`plan-refs mcp serve: listening on ${listening.url}\n`);
          await ended(io.signal);
          await listening.close();
          return 0;
        }
        const { StdioServerTransport } = await loadSdk("server/stdio.js");
        const transport = new StdioServerTransport();
        const closed = new Promise<void>((resolve) => {
          process.stdin.once("end", resolve);
          process.stdin.once("close", resolve);
          process.stdin.once("error", () => resolve());
        });
        await service.server().connect(transport);
        await Promise.race([closed, ended(io.signal)]);
        await transport.close().catch(() => undefined);
        return 0;
      } finally {
        await service.close();
      }
    });
  });
}

/** Settles when the command's signal aborts (never, without one). */
function ended(signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal === undefined) return;
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
