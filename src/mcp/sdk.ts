/**
 * Loading `@modelcontextprotocol/sdk` (an optional peer dependency) when it is first needed: the rest
 * of `plan-refs/mcp` works with any client and needs no SDK, so importing the subpath never fails;
 * connecting or serving without the SDK fails with one line naming the install command
 * (`McpSetupError` code `missing-sdk`).
 */
import { describeThrown } from "../shared/errors.js";
import { ownData } from "../shared/own-data.js";
import { safeText } from "../shared/text.js";
import { McpSetupError } from "./errors.js";

const INSTALL = "npm install @modelcontextprotocol/sdk";

/** The SDK's modules that plan-refs uses, by path. */
export type SdkModules = {
  "client/index.js": typeof import("@modelcontextprotocol/sdk/client/index.js");
  "client/stdio.js": typeof import("@modelcontextprotocol/sdk/client/stdio.js");
  "client/streamableHttp.js": typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  "server/index.js": typeof import("@modelcontextprotocol/sdk/server/index.js");
  "server/stdio.js": typeof import("@modelcontextprotocol/sdk/server/stdio.js");
  "server/streamableHttp.js": typeof import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  "types.js": typeof import("@modelcontextprotocol/sdk/types.js");
};

/**
 * A module of the SDK, imported when first needed; not installed: one line naming the install command.
 *
 * @example
 * const { Client } = await loadSdk("client/index.js")
 */
export async function loadSdk<K extends keyof SdkModules>(path: K): Promise<SdkModules[K]> {
  try {
    // Each path written out: bundlers and `tsc` see the specifiers.
    switch (path) {
      case "client/index.js":
        return (await import("@modelcontextprotocol/sdk/client/index.js")) as SdkModules[K];
      case "client/stdio.js":
        return (await import("@modelcontextprotocol/sdk/client/stdio.js")) as SdkModules[K];
      case "client/streamableHttp.js":
        return (await import("@modelcontextprotocol/sdk/client/streamableHttp.js")) as SdkModules[K];
      case "server/index.js":
        return (await import("@modelcontextprotocol/sdk/server/index.js")) as SdkModules[K];
      case "server/stdio.js":
        return (await import("@modelcontextprotocol/sdk/server/stdio.js")) as SdkModules[K];
      case "server/streamableHttp.js":
        return (await import("@modelcontextprotocol/sdk/server/streamableHttp.js")) as SdkModules[K];
      default:
        return (await import("@modelcontextprotocol/sdk/types.js")) as SdkModules[K];
    }
  } catch (error) {
    const code = ownData(error, "code");
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new McpSetupError("missing-sdk", `plan-refs/mcp needs @modelcontextprotocol/sdk, which is not installed: ${INSTALL}`, {
        cause: error,
      });
    }
    throw new McpSetupError(
      "missing-sdk",
      `@modelcontextprotocol/sdk could not be loaded (${safeText(describeThrown(error), 200)}); reinstall it: ${INSTALL}`,
      { cause: error },
    );
  }
}
